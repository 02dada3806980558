import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AdminMessages, PASSWORD_LINK_HOURS, type PasswordLinkView, type SetPasswordInput } from '@esign/contract';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { OrganisationsService } from '../organisations/organisations.service';
import { LoginThrottleService } from './login-throttle.service';
import { PasswordLinkEntity, type PasswordLinkPurpose } from './password-link.entity';
import { hashKey, hashPassword } from './secrets';
import { UserEntity } from './user.entity';
import { UsersService } from './users.service';

/** A link's token: 256 random bits; only its SHA-256 is stored. */
const newToken = () => `pwl_${randomBytes(32).toString('base64url')}`;

/** The one answer to a token that is unknown, used, expired, superseded or a disabled user's: it says none of which. */
const invalid = () => new AppError('VALIDATION_FAILED', AdminMessages.passwordLinkInvalid);

/**
 * The login throttle's bucket for set-password attempts from one address: a bad token counts as a failed sign-in, so
 * guessing tokens is throttled like guessing passwords, without one address locking out another's links.
 */
const throttleKey = (ip: string) => `#password-link@${ip}`;

/**
 * Invitation and password-reset links (issue 22): `issue` makes one in the caller's transaction (the caller e-mails
 * it); GET /consumers/password checks one without using it; POST /consumers/password sets the password, uses the
 * link up, and after a reset revokes the user's session keys.
 */
@Injectable()
export class PasswordLinksService {
  private readonly log = new Logger('PasswordLinks');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly organisations: OrganisationsService,
    private readonly throttle: LoginThrottleService,
  ) {}

  /** A new link for the user; every earlier link of theirs dies. Answers the token (never stored) and its expiry. */
  async issue(
    manager: EntityManager,
    user: UserEntity,
    purpose: PasswordLinkPurpose,
  ): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock.now();
    const token = newToken();
    const expiresAt = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3_600_000);
    await manager.delete(PasswordLinkEntity, { userId: user.id });
    await manager.insert(PasswordLinkEntity, {
      id: randomUUID(),
      userId: user.id,
      orgId: user.orgId,
      tokenHash: hashKey(token),
      purpose,
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
    await manager.update(UserEntity, { id: user.id }, { linkSentAt: now });
    user.linkSentAt = now;
    return { token, expiresAt };
  }

  /** GET /consumers/password: what the page shows; the link stays usable. */
  async view(token: string, ip: string): Promise<PasswordLinkView> {
    await this.throttle.assertAllowed(throttleKey(ip), ip);
    const found = await this.find(this.db.manager, token);
    if (!found) return this.refuse(ip);
    return this.viewOf(found.link, found.user);
  }

  /** POST /consumers/password: sets the password once; after a reset, the user's sessions are signed out. */
  async setPassword(input: SetPasswordInput, ip: string): Promise<PasswordLinkView> {
    await this.throttle.assertAllowed(throttleKey(ip), ip);
    if (!(await this.find(this.db.manager, input.token))) return this.refuse(ip);
    // argon2id takes a while: outside the transaction, which then checks the link again and uses it up.
    const passwordHash = await hashPassword(input.password);
    const done = await this.db.transaction(async (manager) => {
      const found = await this.find(manager, input.token);
      if (!found) return null;
      const { link, user } = found;
      const now = this.clock.now();
      // Two calls with the same link at once: the conditional update lets one through.
      const used = await manager.update(PasswordLinkEntity, { id: link.id, usedAt: IsNull() }, { usedAt: now });
      if (!used.affected) return null;
      await manager.update(UserEntity, { id: user.id }, { passwordHash, updatedAt: now });
      const revoked = link.purpose === 'reset' ? await this.users.revokeSessions(user.id, manager) : 0;
      return { link, user, revoked };
    });
    if (!done) return this.refuse(ip);
    await this.throttle.clear(throttleKey(ip));
    this.log.log(
      `password set by ${done.link.purpose} link for user ${done.user.id}${done.revoked ? `; ${done.revoked} session(s) revoked` : ''}`,
    );
    return this.viewOf(done.link, done.user);
  }

  /** The live link of this token and its user, or null (unknown, used, expired, the user gone or disabled). */
  private async find(
    manager: EntityManager,
    token: string,
  ): Promise<{ link: PasswordLinkEntity; user: UserEntity } | null> {
    const link = await manager.findOne(PasswordLinkEntity, { where: { tokenHash: hashKey(token) } });
    if (!link || link.usedAt || link.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    const user = await manager.findOne(UserEntity, { where: { id: link.userId, orgId: link.orgId } });
    if (!user || user.disabled) return null;
    return { link, user };
  }

  private async refuse(ip: string): Promise<never> {
    await this.throttle.recordFailure(throttleKey(ip), ip);
    throw invalid();
  }

  private async viewOf(link: PasswordLinkEntity, user: UserEntity): Promise<PasswordLinkView> {
    const org = await this.organisations.getEntity(user.orgId);
    return {
      username: user.username,
      organisation: org.name,
      purpose: link.purpose,
      expires_at: link.expiresAt.toISOString(),
    };
  }
}
