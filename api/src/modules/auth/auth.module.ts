import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantGuard } from '../../common/auth/tenant.guard';
import { OrganisationsModule } from '../organisations/organisations.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysController } from './api-keys.controller';
import { AuthService } from './auth.service';
import { ConsumersController, WhoAmIController } from './consumers.controller';
import { LoginFailureEntity } from './login-failure.entity';
import { LoginThrottleService } from './login-throttle.service';
import { PasswordController } from './password.controller';
import { PasswordLinkEntity } from './password-link.entity';
import { PasswordLinksService } from './password-links.service';
import { UserEntity } from './user.entity';
import { UsersService } from './users.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([UserEntity, ApiKeyEntity, LoginFailureEntity, PasswordLinkEntity]),
    OrganisationsModule,
  ],
  // PasswordController first: its /consumers/password comes before ConsumersController's /consumers/:username.
  controllers: [PasswordController, ConsumersController, WhoAmIController, ApiKeysController],
  providers: [
    AuthService,
    UsersService,
    LoginThrottleService,
    PasswordLinksService,
    // One instance: the global guard, and the console list answered before Express (requests/list-answer.ts).
    TenantGuard,
    { provide: APP_GUARD, useExisting: TenantGuard },
  ],
  exports: [AuthService, UsersService, PasswordLinksService, TenantGuard],
})
export class AuthModule {}
