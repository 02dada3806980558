import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AdminMessages, Headers, Messages } from '@esign/contract';
import { AppError } from '../app-error';
import { AuthService } from '../../modules/auth/auth.service';
import { ADMIN_ONLY, IS_PUBLIC, type AuthContext, type AuthedRequest } from './auth-context';

/** Parameter, query, body and header names under which a caller can name an organisation. */
const ORG_KEYS = new Set(['orgid', 'org_id', 'org-id', 'client_orgid']);
const ORG_HEADERS = [Headers.orgId, 'orgid', 'x-org-id'];

/**
 * Global guard, so every route gets it unless marked @Public(): resolves the organisation from the `apikey` header
 * and answers 403 when the path, query, body or a header names any other organisation. Multipart bodies are parsed
 * before the guard runs (see app.factory.ts), so their fields are checked too. A route marked @AdminOnly() answers
 * 403 FORBIDDEN to a caller whose role is not admin (a staff user's session key).
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const adminOnly = this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, [context.getHandler(), context.getClass()]);
    req.auth = await this.resolve(req, adminOnly === true);
    return true;
  }

  /**
   * The caller of a guarded route, with every check of canActivate; AppError when one fails. Also called by the console
   * list answered before Express (requests/list-answer.ts), which reads `adminOnly` from its controller method.
   */
  async resolve(
    req: Pick<AuthedRequest, 'headers' | 'params' | 'query' | 'body'>,
    adminOnly: boolean,
  ): Promise<AuthContext> {
    const header = req.headers[Headers.apiKey];
    const auth = await this.auth.authenticateKey(Array.isArray(header) ? header[0] : header);
    for (const named of namedOrganisations(req)) {
      if (named !== auth.orgId) throw new AppError('FORBIDDEN_ORGANISATION', Messages.cannotConsume);
    }
    if (adminOnly && auth.role !== 'admin') throw new AppError('FORBIDDEN', AdminMessages.adminOnly);
    return auth;
  }

  /** Whether a controller method's route is public or admin-only, as canActivate reads it. */
  routeOf(controller: new (...args: never[]) => unknown, method: string): { isPublic: boolean; adminOnly: boolean } {
    const handler = (controller.prototype as Record<string, () => unknown>)[method];
    return {
      isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]) === true,
      adminOnly: this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, [handler, controller]) === true,
    };
  }
}

/** Every organisation id the request names anywhere. */
export function namedOrganisations(req: Pick<AuthedRequest, 'headers' | 'params' | 'query' | 'body'>): string[] {
  const found: string[] = [];
  const collect = (source: unknown) => {
    if (!source || typeof source !== 'object' || Array.isArray(source)) return;
    for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
      if (!ORG_KEYS.has(key.toLowerCase())) continue;
      for (const v of Array.isArray(value) ? value : [value]) found.push(String(v));
    }
  };
  collect(req.params);
  collect(req.query);
  collect(req.body);
  for (const name of ORG_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) found.push(...(Array.isArray(value) ? value : [value]));
  }
  return found;
}
