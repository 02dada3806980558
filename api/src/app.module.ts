import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock, SystemClock } from './common/clock';
import { FaultPoints } from './common/fault-points';
import { APP_CONFIG, type AppConfig } from './config/app-config';
import { dataSourceOptions } from './database/data-source';
import { serialiseSqlite } from './database/sqlite-serialise';
import { AdministrationModule } from './modules/administration/administration.module';
import { AuditModule } from './modules/audit/audit.module';
import { BackupModule } from './modules/backup/backup.module';
import { RetentionModule } from './modules/retention/retention.module';
import { AuthModule } from './modules/auth/auth.module';
import { HealthController } from './modules/health/health.controller';
import { JobsModule } from './modules/jobs/jobs.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { OrganisationsModule } from './modules/organisations/organisations.module';
import { RedisModule } from './modules/redis/redis.module';
import { RecipientListModule } from './modules/recipient-list/recipient-list.module';
import { RecipientsModule } from './modules/recipients/recipients.module';
import { RequestsModule } from './modules/requests/requests.module';
import { SecretsModule } from './modules/secrets/secrets.module';
import { SigningModule } from './modules/signing/signing.module';
import { StorageModule } from './modules/storage/storage.module';
import { VerificationModule } from './modules/verification/verification.module';
import { WatchdogModule } from './modules/watchdog/watchdog.module';
import { WebController } from './modules/web/web.controller';
import { WebPages } from './modules/web/web-pages';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

export interface AppOverrides {
  clock?: Clock;
  /** Where the JSON log lines go (stdout by default); tests read them. */
  logDestination?: NodeJS.WritableStream;
}

@Global()
@Module({})
class CoreModule {
  static forRoot(config: AppConfig, overrides: AppOverrides): DynamicModule {
    const providers: Provider[] = [
      { provide: APP_CONFIG, useValue: config },
      { provide: Clock, useValue: overrides.clock ?? new SystemClock() },
      FaultPoints,
    ];
    return { module: CoreModule, providers, exports: providers };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: AppOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, overrides),
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSourceOptions(config),
          dataSourceFactory: async (options) => serialiseSqlite(await new DataSource(options!).initialize()),
        }),
        RedisModule,
        MetricsModule,
        StorageModule,
        OrganisationsModule,
        AuthModule,
        JobsModule,
        NotificationsModule,
        WebhooksModule,
        SecretsModule,
        AuditModule,
        RequestsModule,
        SigningModule,
        RecipientsModule,
        RecipientListModule,
        VerificationModule,
        AdministrationModule,
        WatchdogModule,
        BackupModule,
        RetentionModule,
      ],
      // WebController last: its routes are exact paths, but keep the API's first in the route table.
      controllers: [HealthController, WebController],
      providers: [WebPages],
    };
  }
}
