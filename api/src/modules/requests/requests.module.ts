import { Module, type OnModuleInit } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { JobsRunner } from '../jobs/jobs.runner';
import { NotificationsModule } from '../notifications/notifications.module';
import { SigningModule } from '../signing/signing.module';
import { TemplatesModule } from '../templates/templates.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ArchiveService } from './archive-renewal.service';
import { AuditTrailController } from './audit-trail.controller';
import { DocumentsController } from './documents.controller';
import { EXPIRE_JOB, REMIND_JOB, RequestEvents } from './request-events';
import { RequestListsService } from './request-lists.service';
import { RequestMetrics } from './request-metrics';
import { ListPageCache } from './list-page-cache';
import { RequestCounts } from './request-counts';
import { OutsideSubmissions } from './outside-submissions';
import { RequestDrafts } from './request-drafts.service';
import { RequestLifecycle } from './request-lifecycle.service';
import { RequestRepository } from './request-repository';
import { SealQueue } from './seal.queue';
import { SealService } from './seal.service';
import { RequestActionsController } from './request-actions.controller';
import { RestRequestsController } from './rest-requests.controller';
import { TemplateUploads } from './template-uploads';
import { UnsavedDrafts } from './unsaved-drafts';
import { V1RequestsController } from './v1-requests.controller';

type JobPayload = { orgId: string; refId: number };

@Module({
  imports: [JobsModule, NotificationsModule, WebhooksModule, TemplatesModule, SigningModule],
  providers: [
    RequestRepository,
    RequestDrafts,
    RequestLifecycle,
    SealService,
    SealQueue,
    OutsideSubmissions,
    ArchiveService,
    RequestListsService,
    RequestCounts,
    ListPageCache,
    RequestEvents,
    RequestMetrics,
    TemplateUploads,
    UnsavedDrafts,
  ],
  controllers: [
    V1RequestsController,
    RestRequestsController,
    RequestActionsController,
    DocumentsController,
    AuditTrailController,
  ],
  exports: [
    RequestRepository,
    RequestLifecycle,
    RequestListsService,
    RequestEvents,
    UnsavedDrafts,
    SealService,
    SealQueue,
    OutsideSubmissions,
    ArchiveService,
  ],
})
export class RequestsModule implements OnModuleInit {
  constructor(
    private readonly runner: JobsRunner,
    private readonly lifecycle: RequestLifecycle,
  ) {}

  onModuleInit(): void {
    this.runner.register(REMIND_JOB, async (payload) => {
      const { orgId, refId } = payload as JobPayload;
      await this.lifecycle.remind(orgId, refId);
    });
    this.runner.register(EXPIRE_JOB, async (payload) => {
      const { orgId, refId } = payload as JobPayload;
      await this.lifecycle.expire(orgId, refId);
    });
  }
}
