import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Messages } from '@esign/contract';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { JobContext } from '../jobs/job.types';
import { JobsRunner } from '../jobs/jobs.runner';
import { JobsService } from '../jobs/jobs.service';
import type { MailTransport } from './mail.transport';
import {
  OutboxMessageEntity,
  type MessageChannel,
  type MessageKind,
  type MessageStatus,
} from './outbox-message.entity';
import type { SmsTransport } from './sms.transport';
import type { BuiltMessage } from './templates';

export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
export const SMS_TRANSPORT = Symbol('SMS_TRANSPORT');

/** Job type that sends one outbox message; payload { messageId }. */
export const NOTIFY_SEND_JOB = 'notify.send';
export interface NotifySendPayload {
  messageId: number;
}

export interface QueueMessage {
  orgId: string;
  refId?: number | null;
  partyOrder?: number | null;
  kind: MessageKind;
  channel: MessageChannel;
  /** An e-mail address (channel email) or a phone number (channel sms). */
  to: string;
  /** Required for e-mail. */
  subject?: string;
  text: string;
  html?: string;
}

/** What GET /dev/outbox lists. */
export interface OutboxEntry {
  id: number;
  channel: MessageChannel;
  kind: MessageKind;
  to: string;
  subject: string | null;
  text: string;
  html: string | null;
  status: MessageStatus;
  createdAt: string;
  refId: number | null;
  partyOrder: number | null;
}

const MAX_ERROR = 1000;

/**
 * Every e-mail and SMS: `queue` writes the outbox row and a `notify.send` job in the caller's transaction; the job
 * sends it through the configured transport and records the outcome on the row. Failures retry with the job's backoff.
 */
@Injectable()
export class NotificationsService implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('Notifications');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly runner: JobsRunner,
    @Inject(MAIL_TRANSPORT) private readonly mail: MailTransport,
    @Inject(SMS_TRANSPORT) private readonly sms: SmsTransport,
  ) {}

  onModuleInit(): void {
    this.runner.register<NotifySendPayload>(NOTIFY_SEND_JOB, (payload, ctx) => this.send(payload, ctx));
  }

  onApplicationShutdown(): void {
    this.mail.close();
  }

  async queue(manager: EntityManager, msg: QueueMessage): Promise<OutboxMessageEntity> {
    const to = msg.to?.trim();
    if (!to || to.length > 254) throw new Error('A message needs a recipient of at most 254 characters.');
    if (!msg.text) throw new Error('A message needs a text.');
    if (msg.channel === 'email' && !msg.subject) throw new Error('An e-mail needs a subject.');
    const now = this.clock.now();
    const row = manager.create(OutboxMessageEntity, {
      orgId: msg.orgId,
      refId: msg.refId ?? null,
      partyOrder: msg.partyOrder ?? null,
      channel: msg.channel,
      kind: msg.kind,
      to,
      subject: msg.channel === 'email' ? msg.subject!.slice(0, 255) : (msg.subject?.slice(0, 255) ?? null),
      text: msg.text,
      html: msg.channel === 'email' ? (msg.html ?? null) : null,
      status: 'queued',
      transport: msg.channel === 'email' ? this.mail.name : this.sms.name,
      error: null,
      createdAt: now,
      sentAt: null,
    });
    await manager.insert(OutboxMessageEntity, row);
    await this.jobs.enqueue(manager, {
      type: NOTIFY_SEND_JOB,
      payload: { messageId: row.id } satisfies NotifySendPayload,
      orgId: msg.orgId,
    });
    return row;
  }

  /**
   * A built message (templates.ts) to a party: the e-mail when `email` is given, the SMS when `phone` is.
   * Returns the rows queued.
   */
  async queueBuilt(
    manager: EntityManager,
    target: {
      orgId: string;
      refId?: number | null;
      partyOrder?: number | null;
      kind: MessageKind;
      email?: string | null;
      phone?: string | null;
    },
    built: BuiltMessage,
  ): Promise<OutboxMessageEntity[]> {
    const base = { orgId: target.orgId, refId: target.refId, partyOrder: target.partyOrder, kind: target.kind };
    const rows: OutboxMessageEntity[] = [];
    if (target.email) {
      rows.push(
        await this.queue(manager, {
          ...base,
          channel: 'email',
          to: target.email,
          subject: built.subject,
          text: built.text,
          html: built.html,
        }),
      );
    }
    if (target.phone)
      rows.push(await this.queue(manager, { ...base, channel: 'sms', to: target.phone, text: built.sms }));
    return rows;
  }

  /**
   * Sends a message that failed again (issue 24's watchdog): a new outbox row with the same recipient, subject and
   * text, and its own `notify.send` job, in the caller's transaction; the failed row stays as the record of the
   * failure. Answers the new row, or null when the message is unknown or was not failed.
   */
  async resend(manager: EntityManager, messageId: number): Promise<OutboxMessageEntity | null> {
    const failed = await manager.findOne(OutboxMessageEntity, { where: { id: messageId, status: 'failed' } });
    if (!failed) return null;
    return this.queue(manager, {
      orgId: failed.orgId,
      refId: failed.refId,
      partyOrder: failed.partyOrder,
      kind: failed.kind,
      channel: failed.channel,
      to: failed.to,
      subject: failed.subject ?? undefined,
      text: failed.text,
      html: failed.html ?? undefined,
    });
  }

  /** The dev outbox: newest first, at most 50, optionally only those to one recipient. Not in production. */
  async devOutbox(to?: string): Promise<OutboxEntry[]> {
    if (this.config.env === 'production') throw new AppError('NOT_FOUND', Messages.notFound);
    const rows = await this.db.getRepository(OutboxMessageEntity).find({
      where: to ? { to: to.trim() } : {},
      order: { createdAt: 'DESC', id: 'DESC' },
      take: 50,
    });
    return rows.map((r) => ({
      id: r.id,
      channel: r.channel,
      kind: r.kind,
      to: r.to,
      subject: r.subject,
      text: r.text,
      html: r.html,
      status: r.status,
      createdAt: r.createdAt.toISOString(),
      refId: r.refId,
      partyOrder: r.partyOrder,
    }));
  }

  /** The notify.send handler. Idempotent: a message that is no longer queued is left alone. */
  private async send({ messageId }: NotifySendPayload, ctx: JobContext): Promise<void> {
    const repo = ctx.manager.getRepository(OutboxMessageEntity);
    const msg = await repo.findOne({ where: { id: messageId } });
    if (!msg || msg.status !== 'queued') return;
    const transport = msg.channel === 'email' ? this.mail : this.sms;
    try {
      if (msg.channel === 'email') {
        await this.mail.send({
          from: this.config.mail.from,
          to: msg.to,
          subject: msg.subject ?? '',
          text: msg.text,
          html: msg.html,
        });
      } else {
        await this.sms.send({ to: msg.to, text: msg.text }, ctx.signal);
      }
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR);
      await repo.update(
        { id: msg.id, status: 'queued' },
        { error, transport: transport.name, ...(ctx.isLastAttempt ? { status: 'failed' as const } : {}) },
      );
      throw err;
    }
    await repo.update(
      { id: msg.id },
      { status: 'sent', sentAt: this.clock.now(), error: null, transport: transport.name },
    );
    // Never the body: it holds OTPs and personal signing links.
    if (transport.name === 'outbox')
      this.log.log(`dev outbox: ${msg.kind} ${msg.channel} to ${msg.to} (message ${msg.id})`);
    else this.log.log(`sent ${msg.kind} ${msg.channel} to ${msg.to} by ${transport.name} (message ${msg.id})`);
  }
}
