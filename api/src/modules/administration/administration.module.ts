import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { SigningModule } from '../signing/signing.module';
import { SealAdministration } from './seal-administration.service';
import { SealController } from './seal.controller';
import { UserAdministration } from './user-administration.service';
import { UsersController } from './users.controller';

/**
 * The organisation's own administration (issue 22): its staff users (/api/users) and its seal certificate
 * (/api/organisations/{orgId}/seal), for administrators only. API keys, webhooks and the organisation's settings and
 * logo stay with their modules (auth, webhooks, organisations), marked @AdminOnly() there. Nothing imports this module.
 */
@Module({
  imports: [AuthModule, NotificationsModule, OrganisationsModule, SigningModule],
  controllers: [UsersController, SealController],
  providers: [UserAdministration, SealAdministration],
})
export class AdministrationModule {}
