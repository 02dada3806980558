import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  Messages,
  type ApiKeyListQuery,
  type ApiKeySortField,
  type ApiKeySummary,
  type ConsumerResponse,
  type CreatedApiKey,
  type KeyAuthResponse,
  type UserRole,
  type WhoAmIResponse,
} from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { AppError } from '../../common/app-error';
import type { AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import * as lists from '../../common/rest-query';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RowReader } from '../../database/row-reader';
import { OrganisationsService } from '../organisations/organisations.service';
import { ApiKeyEntity } from './api-key.entity';
import { parseBasic } from './basic-auth';
import { LoginThrottleService } from './login-throttle.service';
import { hashKey, newApiKey, safeEqual, verifyPassword } from './secrets';
import { UsersService } from './users.service';
import { UserEntity } from './user.entity';

/** A session key's last use is written at most this often, so that a busy console does not write on every call. */
const TOUCH_INTERVAL_MS = 30_000;
const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

/** How each sortable field of the organisation keys' list orders the rows (database columns). */
const KEY_SORT_COLUMN: Record<ApiKeySortField, string> = {
  name: 'k.name',
  prefix: 'k.prefix',
  created_at: 'k.created_at',
  last_used_at: 'k.last_used_at',
  revoked_at: 'k.revoked_at',
  id: 'k.id',
};

@Injectable()
export class AuthService {
  // Every guarded call reads its key and (for a session key) its user: the SQL is built once (RowReader).
  private readonly keyByHash: RowReader<ApiKeyEntity>;
  private readonly userById: RowReader<UserEntity>;

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly organisations: OrganisationsService,
    private readonly throttle: LoginThrottleService,
    private readonly clock: Clock,
  ) {
    this.keyByHash = new RowReader(keys.manager.connection, ApiKeyEntity, ['keyHash']);
    this.userById = new RowReader(keys.manager.connection, UserEntity, ['id'], {
      select: ['id', 'orgId', 'role', 'disabled'],
    });
  }

  /** GET /consumers/{username}/key-auth: checks the Basic credentials and issues a fresh session key. */
  async issueSessionKey(pathUsername: string, authorization: string | undefined, ip: string): Promise<KeyAuthResponse> {
    const user = await this.checkCredentials(pathUsername, authorization, ip);
    const now = this.clock.now();
    await this.users.recordLogin(user.id, now);
    const { key, hash, prefix } = newApiKey('session');
    const expiresAt = new Date(now.getTime() + this.config.session.maxSeconds * 1000);
    const id = randomUUID();
    await this.keys.insert({
      id,
      orgId: user.orgId,
      userId: user.id,
      kind: 'session',
      name: `session of ${user.username}`,
      keyHash: hash,
      prefix,
      createdAt: now,
      lastUsedAt: now,
      expiresAt,
      revokedAt: null,
    });
    return {
      data: [
        {
          id,
          key,
          created_at: epoch(now),
          idle_timeout: this.config.session.idleSeconds,
          expires_at: epoch(expiresAt),
        },
      ],
      next: null,
    };
  }

  /** GET /consumers/{username}: the consumer record, tags = [orgId, tag, mode]. */
  async consumer(pathUsername: string, authorization: string | undefined, ip: string): Promise<ConsumerResponse> {
    const user = await this.checkCredentials(pathUsername, authorization, ip);
    const org = await this.organisations.getEntity(user.orgId);
    return {
      id: user.id,
      username: user.username,
      custom_id: org.id,
      tags: [org.id, org.tag, org.mode],
      created_at: epoch(user.createdAt),
    };
  }

  /** Resolves an `apikey` header to its organisation, or answers 401. */
  async authenticateKey(key: string | undefined): Promise<AuthContext> {
    if (!key) throw new AppError('NO_API_KEY', Messages.noApiKey);
    const row = await this.keyByHash.one([hashKey(key)]);
    if (!row || row.revokedAt) throw new AppError('INVALID_CREDENTIALS', Messages.invalidCredentials);
    const now = this.clock.now();
    if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
      throw new AppError('SESSION_EXPIRED', Messages.sessionExpired);
    }
    if (row.kind === 'session' && now.getTime() - row.lastUsedAt.getTime() > this.config.session.idleSeconds * 1000) {
      throw new AppError('SESSION_EXPIRED', Messages.sessionExpired);
    }
    // A session key is its user's: a disabled (or removed) user's keys stop at once, and the role is read each call.
    let role: UserRole = 'admin';
    if (row.kind === 'session') {
      const user = row.userId ? await this.userById.one([row.userId]) : null;
      if (!user || user.disabled || user.orgId !== row.orgId)
        throw new AppError('INVALID_CREDENTIALS', Messages.invalidCredentials);
      role = user.role;
    }
    if (now.getTime() - row.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.keys.update({ id: row.id }, { lastUsedAt: now });
    }
    return { orgId: row.orgId, keyId: row.id, kind: row.kind, userId: row.userId, role };
  }

  /** GET /api/whoami: the kind of the calling key, its organisation and its user or name. */
  async whoami(auth: AuthContext): Promise<WhoAmIResponse> {
    const row = await this.keys.findOne({ where: { id: auth.keyId } });
    const user = auth.userId ? await this.users.findById(auth.userId) : null;
    return {
      kind: auth.kind === 'session' ? 'session' : 'org',
      orgId: auth.orgId,
      username: user?.username ?? null,
      keyName: auth.kind === 'session' ? null : (row?.name ?? null),
      role: auth.role,
    };
  }

  /** Sign-out: revokes the session key the call was made with. */
  async signOut(auth: AuthContext, pathUsername: string): Promise<void> {
    if (auth.kind !== 'session' || !auth.userId) {
      throw new AppError(
        'FORBIDDEN',
        'Only a session key can be signed out; revoke organisation keys under /api/api-keys.',
      );
    }
    const user = await this.users.findById(auth.userId);
    if (!user || !safeEqual(user.username, pathUsername.toLowerCase())) {
      throw new AppError('FORBIDDEN', Messages.cannotConsume);
    }
    await this.keys.update({ id: auth.keyId, revokedAt: IsNull() }, { revokedAt: this.clock.now() });
  }

  async createOrgKey(orgId: string, name: string): Promise<CreatedApiKey> {
    await this.organisations.getEntity(orgId);
    const now = this.clock.now();
    const { key, hash, prefix } = newApiKey('org');
    const row: ApiKeyEntity = {
      id: randomUUID(),
      orgId,
      userId: null,
      kind: 'org',
      name,
      keyHash: hash,
      prefix,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: null,
      revokedAt: null,
    };
    await this.keys.insert(row);
    return { ...toSummary(row), key };
  }

  /**
   * A page of the organisation's API keys (never session keys, which are the users' own), sorted and filtered in the
   * database on idx_api_keys_org_kind; ties in the sort go by id, in the same direction.
   */
  async listOrgKeys(orgId: string, query: ApiKeyListQuery): Promise<lists.ListPage<ApiKeySummary>> {
    const { start, limit, sort, order, filter } = query;
    const qb = this.keys
      .createQueryBuilder('k')
      .where('k.org_id = :orgId', { orgId })
      .andWhere('k.kind = :kind', { kind: 'org' });
    const { q, revoked } = filter;
    if (q)
      qb.andWhere(`(k.name LIKE :pattern ${lists.LIKE_ESCAPE} OR k.prefix LIKE :pattern ${lists.LIKE_ESCAPE})`, {
        pattern: lists.containsPattern(q),
      });
    if (revoked !== undefined) qb.andWhere(revoked ? 'k.revoked_at IS NOT NULL' : 'k.revoked_at IS NULL');
    const column = KEY_SORT_COLUMN[sort];
    qb.orderBy(sort === 'name' ? lists.caseless(this.keys.manager.connection, column) : column, order);
    if (column !== 'k.id') qb.addOrderBy('k.id', order);
    const [rows, total] = await qb.offset(start).limit(limit).getManyAndCount();
    return { rows: rows.map(toSummary), start, total };
  }

  /** GET /api/api-keys/{id}: one organisation key (never its secret, never a session key). */
  async getOrgKey(orgId: string, id: string): Promise<ApiKeySummary> {
    const row = await this.keys.findOne({ where: { id, orgId, kind: 'org' } });
    if (!row) throw new AppError('NOT_FOUND', 'No such API key.');
    return toSummary(row);
  }

  async revokeOrgKey(orgId: string, id: string): Promise<ApiKeySummary> {
    const row = await this.keys.findOne({ where: { id, orgId, kind: 'org' } });
    if (!row) throw new AppError('NOT_FOUND', 'No such API key.');
    if (!row.revokedAt) {
      row.revokedAt = this.clock.now();
      await this.keys.update({ id }, { revokedAt: row.revokedAt });
    }
    return toSummary(row);
  }

  private async checkCredentials(
    pathUsername: string,
    authorization: string | undefined,
    ip: string,
  ): Promise<UserEntity> {
    const username = pathUsername.toLowerCase();
    await this.throttle.assertAllowed(username, ip);
    let credentials: { username: string; password: string } | undefined;
    try {
      credentials = parseBasic(authorization);
    } catch (err) {
      await this.throttle.recordFailure(username, ip);
      throw err;
    }
    const user = await this.users.findByUsername(username);
    // Unknown users cost the same argon2 verification as known ones, so timing does not tell them apart.
    // An invited user without a password yet (passwordHash null) is checked against the dummy too, and refused.
    const ok = await verifyPassword(user?.passwordHash ?? (await this.users.dummyHash()), credentials.password);
    if (!user || !user.passwordHash || !ok || user.disabled || credentials.username.toLowerCase() !== username) {
      await this.throttle.recordFailure(username, ip);
      throw new AppError('INVALID_CREDENTIALS', Messages.invalidCredentials);
    }
    await this.throttle.clear(username);
    return user;
  }
}

function toSummary(row: ApiKeyEntity): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    revoked_at: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}
