import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { DeliveriesController, WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Organisation webhooks: REST under /api/webhooks and /api/deliveries, WebhooksService.emit(manager, orgId, event, data).
 */
@Module({
  imports: [JobsModule],
  controllers: [WebhooksController, DeliveriesController],
  providers: [WebhooksService],
  exports: [WebhooksService],
})
export class WebhooksModule {}
