import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { formatDateTime, StaffRoutes } from '@esign/contract';
import { DataSource, IsNull, Not, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { UserEntity } from '../auth/user.entity';
import {
  ADMIN_NOTICE_JOB,
  type AdminNotice,
  type AdminNoticePayload,
  type WatchdogNotice,
  type WebhookDisabledNotice,
} from '../jobs/admin-notice';
import { JobsRunner } from '../jobs/jobs.runner';
import { JobsService } from '../jobs/jobs.service';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { NotificationsService } from './notifications.service';
import type { StaffMessage } from './staff-templates';
import { checkUrl, oneLine, render, shorten } from './templates';

/** Items listed in one watchdog e-mail; the console's banner lists them all. */
const MAX_LISTED = 20;

interface NoticeContext {
  orgName: string;
  timeZone: string;
  /** The console's address for the action button. */
  url: string;
}

/** The e-mail telling the administrators that a webhook was disabled (issue 24). */
export function webhookDisabledMessage(n: WebhookDisabledNotice, c: NoticeContext): StaffMessage {
  const url = checkUrl(c.url);
  const { text, html } = render({
    orgName: c.orgName,
    heading: 'A webhook was disabled',
    paragraphs: [
      `The webhook ${n.url} of ${c.orgName} was disabled on ${formatDateTime(n.disabledAt, c.timeZone)}.`,
      n.reason,
      'Nothing more is sent to it until an administrator enables it again. Events that happen meanwhile are not queued for it; once the receiver works, enable the webhook and send the deliveries you need again from its delivery list.',
    ],
    action: { label: 'Open the webhooks', url },
  });
  return { subject: `Webhook disabled: ${shorten(oneLine(n.url), 180)}`, text, html };
}

/** The e-mail listing what the watchdog found and could not move by itself (issue 24). */
export function watchdogMessage(n: WatchdogNotice, c: NoticeContext): StaffMessage {
  const url = checkUrl(c.url);
  const listed = n.items.slice(0, MAX_LISTED);
  const more = n.items.length - listed.length;
  const { text, html } = render({
    orgName: c.orgName,
    heading: n.items.length === 1 ? 'A request needs attention' : `${n.items.length} requests need attention`,
    paragraphs: [
      `The watchdog of ${c.orgName} found what should have moved on and did not, and could not move it by itself:`,
      ...listed.map((i) => `Ref ID ${i.refId} ("${i.filename}"): ${i.detail}`),
      ...(more > 0 ? [`…and ${more} more, listed on the dashboard.`] : []),
      'Nothing was changed by force. The dashboard shows each one with a Retry button.',
    ],
    action: { label: 'Open the dashboard', url },
  });
  return {
    subject:
      n.items.length === 1
        ? `Request ${n.items[0].refId} needs attention`
        : `${n.items.length} requests need attention (${shorten(oneLine(c.orgName), 120)})`,
    text,
    html,
  };
}

/**
 * Runs the `notify.admins` job: the notice goes by e-mail, through the outbox like every message, to each of the
 * organisation's administrators who has an e-mail address and is not disabled. An organisation without one is logged,
 * not retried (nobody can be told).
 */
@Injectable()
export class AdminNotices implements OnModuleInit {
  private readonly log = new Logger('AdminNotices');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly runner: JobsRunner,
    private readonly notifications: NotificationsService,
  ) {}

  onModuleInit(): void {
    this.runner.register<AdminNoticePayload>(ADMIN_NOTICE_JOB, (payload) => this.send(payload));
  }

  /** Queues the notice in the caller's transaction (for modules that may import notifications). */
  queue(manager: EntityManager, orgId: string, notice: AdminNotice): Promise<unknown> {
    return this.jobs.enqueue(manager, {
      type: ADMIN_NOTICE_JOB,
      payload: { orgId, notice } satisfies AdminNoticePayload,
      orgId,
    });
  }

  /** The administrators a notice goes to: role admin, an e-mail address, not disabled. */
  admins(orgId: string, manager: EntityManager = this.db.manager): Promise<UserEntity[]> {
    return manager.find(UserEntity, {
      where: { orgId, role: 'admin', disabled: false, email: Not(IsNull()) },
      order: { username: 'ASC' },
    });
  }

  private async send({ orgId, notice }: AdminNoticePayload): Promise<void> {
    await this.db.transaction(async (manager) => {
      const org = await manager.findOne(OrganisationEntity, { where: { id: orgId } });
      if (!org) return;
      const admins = (await this.admins(orgId, manager)).filter((u) => u.email);
      if (!admins.length) {
        this.log.warn(`organisation ${orgId} has no administrator with an e-mail address: ${notice.kind} not e-mailed`);
        return;
      }
      const base = this.config.publicUrl;
      const context = { orgName: org.name, timeZone: org.timeZone };
      const message =
        notice.kind === 'webhook-disabled'
          ? webhookDisabledMessage(notice, { ...context, url: `${base}/webhooks` })
          : watchdogMessage(notice, { ...context, url: `${base}${StaffRoutes.dashboard}` });
      for (const admin of admins) {
        await this.notifications.queue(manager, {
          orgId,
          refId: notice.kind === 'watchdog' && notice.items.length === 1 ? notice.items[0].refId : null,
          kind: notice.kind,
          channel: 'email',
          to: admin.email!,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
      }
    });
  }
}
