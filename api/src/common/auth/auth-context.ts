import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { UserRole } from '@esign/contract';
import type { Request } from 'express';
import type { ApiKeyKind } from '../../modules/auth/api-key.entity';

/** Who is calling: resolved once per request from the `apikey` header by the tenant guard. */
export interface AuthContext {
  orgId: string;
  keyId: string;
  kind: ApiKeyKind;
  userId: string | null;
  /**
   * What the caller may do (issue 22): a session key has its user's role, read on every call (a demotion takes effect
   * at once); an organisation API key acts as admin (it is the organisation's own credential, made by an admin).
   */
  role: UserRole;
}

export type AuthedRequest = Request & { auth?: AuthContext };

export const IS_PUBLIC = 'esign:public';
/**
 * Marks a route that does not take an organisation `apikey`: health, the Basic-auth consumer calls, the logo, the web
 * apps. Everything else is guarded by default. The tenancy test lists these routes by name.
 */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const ADMIN_ONLY = 'esign:admin-only';
/**
 * Marks a route (or a controller's every route) that only an organisation administrator may call: the tenant guard
 * answers 403 FORBIDDEN (AdminMessages.adminOnly) to a staff user's session key. test/security/admin-routes.test.ts
 * walks them with a staff user's key.
 */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

export const Auth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.auth) throw new Error('Auth() used on a public route');
  return req.auth;
});

/** How audit events name a staff caller: the user behind a session key, or the organisation key itself. */
export const actorOf = (auth: AuthContext): string => (auth.userId ? `user:${auth.userId}` : `key:${auth.keyId}`);
