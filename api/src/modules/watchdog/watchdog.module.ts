import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { RequestsModule } from '../requests/requests.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WatchdogController } from './watchdog.controller';
import { WatchdogService } from './watchdog.service';

/** Issue 24: the watchdog for stuck requests (a recurring job) and its findings' routes. */
@Module({
  imports: [JobsModule, NotificationsModule, WebhooksModule, RequestsModule],
  providers: [WatchdogService],
  controllers: [WatchdogController],
  exports: [WatchdogService],
})
export class WatchdogModule {}
