import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  AdminMessages,
  isEmail,
  USERNAME_PATTERN,
  USERNAME_RULE,
  type InviteUserInput,
  type StaffUser,
  type UpdateUserInput,
  type UserListQuery,
  type UserRole,
  type UserSortField,
} from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { IsNull, Repository, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import * as lists from '../../common/rest-query';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { OrganisationsService } from '../organisations/organisations.service';
import { ApiKeyEntity } from './api-key.entity';
import { hashPassword } from './secrets';
import { UserEntity } from './user.entity';

export { USERNAME_PATTERN };
export const MIN_PASSWORD_LENGTH = 8;

/**
 * Usernames that name a route of /consumers (GET /consumers/password is the set-password link's check, not the
 * consumer record of a user called "password").
 */
const RESERVED_USERNAMES = new Set(['password']);

/** How each sortable field of the users' list orders the rows (database columns). */
const USER_SORT_COLUMN: Record<UserSortField, string> = {
  username: 'u.username',
  email: 'u.email',
  role: 'u.role',
  created_at: 'u.created_at',
  last_login_at: 'u.last_login_at',
  id: 'u.id',
};

/** Pessimistic row locks exist on MySQL/MariaDB; SQLite serialises writing transactions anyway. */
const lockFor = (manager: EntityManager): { lock?: { mode: 'pessimistic_write' } } =>
  manager.connection.options.type === 'better-sqlite3' ? {} : { lock: { mode: 'pessimistic_write' } };

/** An active administrator: role admin, a password set, not disabled (an invited admin cannot act yet). */
const isActiveAdmin = (u: Pick<UserEntity, 'role' | 'disabled' | 'passwordHash'>) =>
  u.role === 'admin' && !u.disabled && !!u.passwordHash;

/** A user's status as the console shows it. */
export function statusOf(u: Pick<UserEntity, 'disabled' | 'passwordHash'>): StaffUser['status'] {
  return u.disabled ? 'disabled' : u.passwordHash ? 'active' : 'invited';
}

export function toStaffUser(u: UserEntity): StaffUser {
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    role: u.role,
    status: statusOf(u),
    disabled: u.disabled,
    link_sent_at: u.linkSentAt ? u.linkSentAt.toISOString() : null,
    last_login_at: u.lastLoginAt ? u.lastLoginAt.toISOString() : null,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

const isDuplicate = (err: unknown) =>
  /UNIQUE constraint|Duplicate entry|ER_DUP_ENTRY|SQLITE_CONSTRAINT/i.test(String((err as Error)?.message));

/**
 * Staff users: the operator's `manage` commands (create-user, set-email, set-password, set-role) and the organisation
 * administrator's /api/users (list, invite, change role, disable). The last active administrator of an organisation
 * can be neither demoted nor disabled: the check and the change run in one transaction that holds the organisation's
 * row, so two administrators demoting each other at once leave one.
 */
@Injectable()
export class UsersService {
  private dummy?: Promise<string>;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly organisations: OrganisationsService,
    private readonly clock: Clock,
  ) {}

  findByUsername(username: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { username: username.toLowerCase() } });
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { id } });
  }

  /** A real argon2id hash of a random password, computed once, to verify against for unknown usernames. */
  dummyHash(): Promise<string> {
    this.dummy ??= hashPassword(randomUUID());
    return this.dummy;
  }

  /**
   * `manage create-user` (and the demo seed): a user with a password, an administrator unless said otherwise (an
   * operator creates an organisation's first user, who then invites the others).
   */
  async create(
    orgId: string,
    rawUsername: string,
    password: string,
    rawEmail?: string | null,
    role: UserRole = 'admin',
  ): Promise<{ id: string; username: string; orgId: string; email: string | null; role: UserRole }> {
    const username = checkUsername(rawUsername);
    const email = checkEmail(rawEmail);
    assertPassword(password);
    await this.organisations.getEntity(orgId);
    const user = await this.insert(orgId, username, email, role, await hashPassword(password));
    return { id: user.id, username, orgId, email, role };
  }

  /** POST /api/users: a user without a password (status invited); the caller sends the set-password link. */
  async invite(orgId: string, input: InviteUserInput, manager: EntityManager): Promise<UserEntity> {
    const username = checkUsername(input.username);
    await this.organisations.getEntity(orgId);
    return this.insert(orgId, username, input.email, input.role ?? 'staff', null, manager);
  }

  private async insert(
    orgId: string,
    username: string,
    email: string | null,
    role: UserRole,
    passwordHash: string | null,
    manager: EntityManager = this.users.manager,
  ): Promise<UserEntity> {
    if (await manager.findOne(UserEntity, { where: { username } }))
      throw new AppError('CONFLICT', AdminMessages.usernameTaken);
    const now = this.clock.now();
    const user = manager.create(UserEntity, {
      id: randomUUID(),
      orgId,
      username,
      email,
      passwordHash,
      disabled: false,
      role,
      lastLoginAt: null,
      linkSentAt: null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await manager.insert(UserEntity, user);
    } catch (err) {
      // Another call took the name between the look-up and the insert: the unique index decides.
      if (isDuplicate(err)) throw new AppError('CONFLICT', AdminMessages.usernameTaken);
      throw err;
    }
    // Read back: after an insert TypeORM merges the driver's raw defaults (MySQL's 0 for false) into `user`.
    return manager.findOneByOrFail(UserEntity, { id: user.id });
  }

  /** A page of the organisation's users, sorted and filtered in the database; ties go by id. */
  async list(orgId: string, query: UserListQuery): Promise<lists.ListPage<StaffUser>> {
    const { start, limit, sort, order, filter } = query;
    const qb = this.users.createQueryBuilder('u').where('u.org_id = :orgId', { orgId });
    const { q, role, disabled } = filter;
    if (q)
      qb.andWhere(`(u.username LIKE :pattern ${lists.LIKE_ESCAPE} OR u.email LIKE :pattern ${lists.LIKE_ESCAPE})`, {
        pattern: lists.containsPattern(q),
      });
    if (role) qb.andWhere('u.role = :role', { role });
    if (disabled !== undefined) qb.andWhere('u.disabled = :disabled', { disabled });
    const column = USER_SORT_COLUMN[sort];
    qb.orderBy(
      sort === 'username' || sort === 'email' ? lists.caseless(this.users.manager.connection, column) : column,
      order,
    );
    if (column !== 'u.id') qb.addOrderBy('u.id', order);
    const [rows, total] = await qb.offset(start).limit(limit).getManyAndCount();
    return { rows: rows.map(toStaffUser), start, total };
  }

  /** One user of the organisation, or 404 (another organisation's user is no user). */
  async get(orgId: string, id: string, manager: EntityManager = this.users.manager): Promise<UserEntity> {
    const user = await manager.findOne(UserEntity, { where: { id, orgId } });
    if (!user) throw new AppError('NOT_FOUND', AdminMessages.userNotFound.replace('{id}', id.slice(0, 64)));
    return user;
  }

  /**
   * PUT /api/users/{id}: role, disabled, e-mail. Refuses (409) to leave the organisation without an active
   * administrator. Disabling revokes the user's session keys in the same transaction (and the tenant guard refuses a
   * disabled user's keys anyway, so nothing comes back to life when the user is enabled again).
   */
  async update(orgId: string, id: string, input: Partial<UpdateUserInput>): Promise<UserEntity> {
    return this.users.manager.transaction(async (manager) => {
      const user = await this.lockedUser(manager, orgId, id);
      const next = {
        role: input.role ?? user.role,
        disabled: input.disabled ?? user.disabled,
        email: input.email ?? user.email,
      };
      await this.assertAdminRemains(manager, user, next);
      const changes: Partial<UserEntity> = {};
      if (next.role !== user.role) changes.role = next.role;
      if (next.disabled !== user.disabled) changes.disabled = next.disabled;
      if (next.email !== user.email) changes.email = next.email;
      if (Object.keys(changes).length) {
        changes.updatedAt = this.clock.now();
        await manager.update(UserEntity, { id: user.id }, changes);
        Object.assign(user, changes);
      }
      if (changes.disabled) await this.revokeSessions(user.id, manager);
      return user;
    });
  }

  /** `manage set-role`: the same rule as the console (the last active administrator stays one). */
  async setRole(rawUsername: string, role: UserRole): Promise<{ username: string; orgId: string; role: UserRole }> {
    const found = await this.findByUsername(rawUsername.trim());
    if (!found) throw new AppError('NOT_FOUND', AdminMessages.userNotFound.replace('{id}', rawUsername.slice(0, 64)));
    const user = await this.update(found.orgId, found.id, { role });
    return { username: user.username, orgId: user.orgId, role: user.role };
  }

  /** The user's row, with the organisation's row locked: every change of roles in an organisation queues here. */
  private async lockedUser(manager: EntityManager, orgId: string, id: string): Promise<UserEntity> {
    await manager.findOne(OrganisationEntity, { where: { id: orgId }, ...lockFor(manager) });
    return this.get(orgId, id, manager);
  }

  private async assertAdminRemains(
    manager: EntityManager,
    user: UserEntity,
    next: { role: UserRole; disabled: boolean },
  ): Promise<void> {
    if (!isActiveAdmin(user) || isActiveAdmin({ ...user, ...next })) return;
    const others = await manager
      .createQueryBuilder(UserEntity, 'u')
      .where('u.org_id = :orgId', { orgId: user.orgId })
      .andWhere('u.role = :role', { role: 'admin' })
      .andWhere('u.disabled = :disabled', { disabled: false })
      .andWhere('u.password_hash IS NOT NULL')
      .andWhere('u.id <> :id', { id: user.id })
      .getCount();
    if (others === 0) throw new AppError('CONFLICT', AdminMessages.lastAdmin);
  }

  /** Revokes every live session key of the user (disabled, or a new password set by a reset link). */
  async revokeSessions(userId: string, manager: EntityManager = this.users.manager): Promise<number> {
    const res = await manager.update(
      ApiKeyEntity,
      { userId, kind: 'session', revokedAt: IsNull() },
      { revokedAt: this.clock.now() },
    );
    return res.affected ?? 0;
  }

  /** A sign-in: when the user last signed in (the console's list shows it). */
  async recordLogin(id: string, at: Date): Promise<void> {
    await this.users.update({ id }, { lastLoginAt: at });
  }

  /** Sets (or with null, removes) the address the product writes to the user at. */
  async setEmail(rawUsername: string, rawEmail: string | null): Promise<{ username: string; email: string | null }> {
    const email = checkEmail(rawEmail);
    const user = await this.findByUsername(rawUsername.trim());
    if (!user) throw new AppError('NOT_FOUND', `No user '${rawUsername}'.`);
    await this.users.update({ id: user.id }, { email, updatedAt: this.clock.now() });
    return { username: user.username, email };
  }

  async setPassword(rawUsername: string, password: string): Promise<void> {
    assertPassword(password);
    const user = await this.findByUsername(rawUsername.trim());
    if (!user) throw new AppError('NOT_FOUND', `No user '${rawUsername}'.`);
    await this.users.update(
      { id: user.id },
      { passwordHash: await hashPassword(password), updatedAt: this.clock.now() },
    );
  }
}

function checkUsername(raw: string): string {
  const username = raw.trim().toLowerCase();
  if (!USERNAME_PATTERN.test(username)) throw new AppError('VALIDATION_FAILED', USERNAME_RULE);
  if (RESERVED_USERNAMES.has(username)) throw new AppError('CONFLICT', AdminMessages.usernameTaken);
  return username;
}

/** A staff user's e-mail address: trimmed, as typed (null for none); refused when it does not look like one. */
function checkEmail(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null) return null;
  const email = String(raw).trim();
  if (!email) return null;
  if (!isEmail(email)) throw new AppError('VALIDATION_FAILED', `'${email}' is not a valid e-mail address.`);
  return email;
}

function assertPassword(password: string): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 256) {
    throw new AppError('VALIDATION_FAILED', `A password is ${MIN_PASSWORD_LENGTH} to 256 characters.`);
  }
}
