import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AdminMessages,
  setPasswordUrl,
  type InviteUserInput,
  type PasswordLinkSent,
  type StaffUser,
  type UpdateUserInput,
  type UserListQuery,
} from '@esign/contract';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import type { AuthContext } from '../../common/auth/auth-context';
import type { ListPage } from '../../common/rest-query';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { PasswordLinkPurpose } from '../auth/password-link.entity';
import { PasswordLinksService } from '../auth/password-links.service';
import type { UserEntity } from '../auth/user.entity';
import { toStaffUser, UsersService } from '../auth/users.service';
import { NotificationsService } from '../notifications/notifications.service';
import { passwordReset, userInvitation } from '../notifications/staff-templates';
import { OrganisationsService } from '../organisations/organisations.service';

/**
 * The organisation administrator's users (issue 22): invite by e-mail, change role, disable or enable, send a new
 * set-password link. A user and the link's e-mail (through the outbox, like every message) are written in one
 * transaction, so an invitation is never half made.
 */
@Injectable()
export class UserAdministration {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly links: PasswordLinksService,
    private readonly notifications: NotificationsService,
    private readonly organisations: OrganisationsService,
  ) {}

  list(auth: AuthContext, query: UserListQuery): Promise<ListPage<StaffUser>> {
    return this.users.list(auth.orgId, query);
  }

  async get(auth: AuthContext, id: string): Promise<StaffUser> {
    return toStaffUser(await this.users.get(auth.orgId, id));
  }

  /** POST /api/users: the user (no password yet, status invited) and the invitation's e-mail. */
  async invite(auth: AuthContext, input: InviteUserInput): Promise<StaffUser> {
    const user = await this.db.transaction(async (manager) => {
      const created = await this.users.invite(auth.orgId, input, manager);
      await this.sendLink(manager, auth, created, 'invite');
      return created;
    });
    return toStaffUser(user);
  }

  async update(auth: AuthContext, id: string, input: UpdateUserInput): Promise<StaffUser> {
    return toStaffUser(await this.users.update(auth.orgId, id, input));
  }

  /**
   * POST /api/users/{id}/password-link: a new link by e-mail (every earlier one dies): an invitation again for a user
   * who never set a password, a reset otherwise.
   */
  async passwordLink(auth: AuthContext, id: string): Promise<PasswordLinkSent> {
    const user = await this.users.get(auth.orgId, id);
    if (user.disabled) throw new AppError('CONFLICT', AdminMessages.userDisabled);
    if (!user.email) throw new AppError('CONFLICT', AdminMessages.inviteNeedsEmail);
    const purpose: PasswordLinkPurpose = user.passwordHash ? 'reset' : 'invite';
    await this.db.transaction((manager) => this.sendLink(manager, auth, user, purpose));
    const message = (purpose === 'invite' ? AdminMessages.invitationSent : AdminMessages.resetSent).replace(
      '{email}',
      user.email,
    );
    return { message, user: toStaffUser(user) };
  }

  private async sendLink(
    manager: EntityManager,
    auth: AuthContext,
    user: UserEntity,
    purpose: PasswordLinkPurpose,
  ): Promise<void> {
    const org = await this.organisations.getEntity(auth.orgId);
    const sender = auth.userId ? await this.users.findById(auth.userId) : null;
    const { token, expiresAt } = await this.links.issue(manager, user, purpose);
    const input = {
      orgName: org.name,
      username: user.username,
      url: setPasswordUrl(this.config.publicUrl, token),
      expiresAt,
      sentBy: sender?.username ?? null,
      timeZone: org.timeZone,
    };
    const message = purpose === 'invite' ? userInvitation(input) : passwordReset(input);
    await this.notifications.queue(manager, {
      orgId: org.id,
      kind: purpose === 'invite' ? 'user-invitation' : 'password-reset',
      channel: 'email',
      to: user.email!,
      ...message,
    });
  }
}
