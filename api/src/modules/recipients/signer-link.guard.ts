import {
  applyDecorators,
  createParamDecorator,
  Injectable,
  SetMetadata,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { Headers, RecipientMessages } from '@esign/contract';
import type { Request } from 'express';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { LinksService } from '../secrets/links.service';
import { PartyEntity } from '../requests/party.entity';
import { RequestEntity } from '../requests/request.entity';
import { lockFor, RequestRepository } from '../requests/request-repository';
import { RowReader } from '../../database/row-reader';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { signingOver, SignerSessions, type SignerSession } from './signer-sessions.service';

/** The party a recipient call is for, resolved from its link token, and this browser's live signer session. */
export interface SignerContext {
  party: PartyEntity;
  request: RequestEntity;
  /** The live signer session sent with the call (x-signer-session), or null. */
  session?: SignerSession | null;
}
type SignerRequest = Request & { signer?: SignerContext };

/** The party's request, every party of it, the party itself (as now in the database) and its organisation. */
export interface Loaded {
  req: RequestEntity;
  parties: PartyEntity[];
  me: PartyEntity;
  org: OrganisationEntity;
}

/**
 * Reads the signer's request afresh (locked for the transaction on engines with row locks). Not lockRequest: a request
 * deleted from the console's lists (cancelled) must still tell its signers that it was cancelled.
 */
export async function loadSigner(
  manager: EntityManager,
  requests: RequestRepository,
  { party, request }: SignerContext,
  lock: boolean,
): Promise<Loaded> {
  // A read (no lock) uses the request the guard has just read for this call; a change reads it again, locked.
  const req = lock
    ? await manager.findOne(RequestEntity, {
        where: { orgId: request.orgId, refId: request.refId },
        ...lockFor(manager),
      })
    : request;
  const parties = req ? await requests.parties(manager, req.refId) : [];
  const me = parties.find((p) => p.id === party.id);
  // A resend between the guard and here replaced the token: the old link is dead.
  if (!req || !me || me.tokenHash !== party.tokenHash)
    throw new AppError('INVALID_LINK', RecipientMessages.invalidLink);
  return { req, parties, me, org: await requests.organisation(req.orgId, manager) };
}

const TOKEN = /^[A-Za-z0-9_-]{20,128}$/;

/** Path, query and body names that must all name the token's own party when present. */
const BINDINGS: Array<[names: string[], matches: (ctx: SignerContext, value: string) => boolean]> = [
  [['orgId', 'org_id', 'client_orgId'], (c, v) => v === c.party.orgId],
  [['refId', 'refID'], (c, v) => v === String(c.party.refId)],
  [['order', 'orderNo'], (c, v) => v === String(c.party.order)],
  [['requestId'], (c, v) => v === c.party.id],
];

const NEEDS_SESSION = 'esign:signer-session';

/** The session header's value (never the query: it would land in addresses and logs). */
const sessionToken = (req: Pick<Request, 'headers'>): string | null => {
  const header = req.headers[Headers.signerSession];
  const value = Array.isArray(header) ? header[0] : header;
  return typeof value === 'string' ? value : null;
};

/**
 * The rows a recipient call acts on, as this browser sees them: on an OTP request, the party's OTP counts as verified
 * only with a live signer session from this browser (the rules read `otpVerifiedAt`). A copy: never saved.
 */
export function asSeenBy<T extends Pick<PartyEntity, 'otpVerifiedAt'>>(
  party: T,
  request: Pick<RequestEntity, 'otpRequired'>,
  session: SignerSession | null | undefined,
): T {
  if (!request.otpRequired) return party;
  return { ...party, otpVerifiedAt: session ? (party.otpVerifiedAt ?? session.verifiedAt) : null };
}

export function linkToken(req: Pick<Request, 'headers' | 'query'>): string | null {
  const header = req.headers[Headers.signToken];
  const value = (Array.isArray(header) ? header[0] : header) ?? req.query.token;
  return typeof value === 'string' && TOKEN.test(value) ? value : null;
}

/**
 * Every recipient call needs the party's link token (x-sign-token header or ?token=): its SHA-256 finds the party, and
 * every organisation, Ref ID, order or request id the call names must be that party's. Anything else is 401 with one
 * message, so a caller learns nothing about which part was wrong.
 */
@Injectable()
export class SignerLinkGuard implements CanActivate {
  private readonly partyByToken: RowReader<PartyEntity>;
  private readonly requestById: RowReader<RequestEntity>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly links: LinksService,
    private readonly sessions: SignerSessions,
    private readonly reflector: Reflector,
  ) {
    this.partyByToken = new RowReader(db, PartyEntity, ['tokenHash']);
    this.requestById = new RowReader(db, RequestEntity, ['refId']);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<SignerRequest>();
    const needsSession = this.reflector.get<boolean>(NEEDS_SESSION, context.getHandler()) === true;
    req.signer = await this.resolve(req, needsSession);
    return true;
  }

  /**
   * The party of the call's link token and this browser's session, with every check of canActivate; AppError when
   * any fails. Also called by the signing page's first call answered before Express (reference-answer.ts).
   */
  async resolve(
    req: Pick<Request, 'headers' | 'params' | 'query' | 'body'>,
    needsSession: boolean,
  ): Promise<SignerContext> {
    const token = linkToken(req);
    // Made only when thrown: an error captures a stack trace, which every valid call would pay for.
    const invalid = () => new AppError('INVALID_LINK', RecipientMessages.invalidLink);
    if (!token) throw invalid();
    const party = await this.partyByToken.one([this.links.tokenHash(token)]);
    const request = party && (await this.requestById.one([party.refId]));
    if (!party || !request || request.orgId !== party.orgId) throw invalid();
    const ctx = { party, request };
    const sources = [req.params, req.query, req.body && typeof req.body === 'object' ? req.body : {}] as Record<
      string,
      unknown
    >[];
    for (const [names, matches] of BINDINGS) {
      for (const source of sources) {
        for (const name of names) {
          const value = source[name];
          if (value !== undefined && !matches(ctx, String(value))) throw invalid();
        }
      }
    }
    const session = await this.sessions.resolve(sessionToken(req), party, request);
    // Acting on an OTP request (sign, reject, accept, selfie, position, video, retry) needs this browser's live
    // session while the party can still act; once its signing or the request is over, the service says why not (400).
    if (needsSession && request.otpRequired && !session && !signingOver(request, party))
      throw new AppError('OTP_REQUIRED', RecipientMessages.otpSessionRequired);
    return { ...ctx, session };
  }
}

/**
 * A recipient route: no organisation apikey, the party's link token instead. `{ session: true }`: on a request that
 * needs OTP, also this browser's live signer session (x-signer-session), else 401 OTP_REQUIRED.
 */
export const SignerRoute = (options: { session?: boolean } = {}) =>
  applyDecorators(
    Public(),
    UseGuards(SignerLinkGuard),
    SetMetadata(NEEDS_SESSION, options.session === true),
    ApiHeader({ name: Headers.signToken, description: "The party's link token (or ?token=)", required: true }),
    ...(options.session
      ? [
          ApiHeader({
            name: Headers.signerSession,
            description: 'The signer session a verified OTP gave this browser (needed when the request asks for OTP)',
            required: false,
          }),
        ]
      : []),
  );

export const Signer = createParamDecorator((_data: unknown, ctx: ExecutionContext): SignerContext => {
  const req = ctx.switchToHttp().getRequest<SignerRequest>();
  if (!req.signer) throw new Error('Signer() used outside a SignerRoute');
  return req.signer;
});
