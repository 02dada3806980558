import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AdminMessages,
  DELIVERY_EXCERPT_BYTES,
  WEBHOOK_ALL_EVENTS,
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  WEBHOOK_DISABLE_AFTER_FAILING_DAYS,
  WEBHOOK_EVENTS,
  WEBHOOK_MAX_ATTEMPTS,
  WebhookHeaders,
  WebhookMessages,
  type CreatedWebhook,
  type CreateWebhookInput,
  type DeliveryListQuery,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookListQuery,
  type WebhookPayload,
} from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull, Raw, type EntityManager, type FindOptionsWhere } from 'typeorm';
import { AppError } from '../../common/app-error';
import * as lists from '../../common/rest-query';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ADMIN_NOTICE_JOB, type AdminNoticePayload } from '../jobs/admin-notice';
import type { JobContext } from '../jobs/job.types';
import { JobsRunner } from '../jobs/jobs.runner';
import { JobsService } from '../jobs/jobs.service';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { newWebhookSecret, signWebhook } from './webhook-signature';
import { assertPublicHost, checkWebhookUrl } from './webhook-url';
import { WebhookEntity } from './webhook.entity';

/** Job type that posts one delivery; payload { deliveryId }. */
export const WEBHOOK_DELIVER_JOB = 'webhook.deliver';
export interface WebhookDeliverPayload {
  deliveryId: number;
}

export { WEBHOOK_MAX_ATTEMPTS };
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Deliveries run in their own lane of the job runner: a slow receiver never holds up e-mails, SMS or seals. */
export const WEBHOOK_LANE = 'webhooks';
const FAILING_MS = WEBHOOK_DISABLE_AFTER_FAILING_DAYS * 86_400_000;
const MAX_WEBHOOKS_PER_ORG = 50;
const MAX_DELIVERIES_LISTED = 100;

/** An organisation's webhooks, the events emitted to them, and their signed, retried deliveries. */
@Injectable()
export class WebhooksService implements OnModuleInit {
  private readonly log = new Logger('Webhooks');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly runner: JobsRunner,
  ) {}

  onModuleInit(): void {
    this.runner.register<WebhookDeliverPayload>(WEBHOOK_DELIVER_JOB, (payload, ctx) => this.deliver(payload, ctx), {
      lane: WEBHOOK_LANE,
    });
  }

  private get hooks() {
    return this.db.getRepository(WebhookEntity);
  }

  private get deliveriesRepo() {
    return this.db.getRepository(WebhookDeliveryEntity);
  }

  async list(orgId: string, query: WebhookListQuery): Promise<lists.ListPage<Webhook>> {
    const { start, limit, sort, order, filter } = query;
    const where: FindOptionsWhere<WebhookEntity> = { orgId };
    const { q, active } = filter;
    if (q)
      where.url = Raw((column) => `${column} LIKE :pattern ${lists.LIKE_ESCAPE}`, {
        pattern: lists.containsPattern(q),
      });
    if (active !== undefined) where.active = active;
    const [rows, total] = await this.hooks.findAndCount({
      where,
      order: { [sort]: order, id: 'ASC' },
      skip: start,
      take: limit,
    });
    return { rows: rows.map(toWebhook), start, total };
  }

  async create(orgId: string, dto: CreateWebhookInput): Promise<CreatedWebhook> {
    const url = checkWebhookUrl(dto.url, this.config.env === 'production');
    if ((await this.hooks.count({ where: { orgId } })) >= MAX_WEBHOOKS_PER_ORG)
      throw new AppError('CONFLICT', `An organisation can have at most ${MAX_WEBHOOKS_PER_ORG} webhooks.`);
    const now = this.clock.now();
    const row = this.hooks.create({
      id: randomUUID(),
      orgId,
      url,
      events: normaliseEvents(dto.events),
      secret: newWebhookSecret(),
      active: true,
      createdAt: now,
      updatedAt: now,
    });
    await this.hooks.insert(row);
    // Read back: after an insert TypeORM merges the driver's raw defaults (MySQL's 1 for true) into `row`.
    const stored = await this.find(orgId, row.id);
    return { ...toWebhook(stored), secret: stored.secret };
  }

  async get(orgId: string, id: string): Promise<Webhook> {
    return toWebhook(await this.find(orgId, id));
  }

  async update(orgId: string, id: string, dto: UpdateWebhookInput): Promise<Webhook> {
    const hook = await this.find(orgId, id);
    const changes: Partial<WebhookEntity> = {};
    if (dto.url !== undefined) changes.url = checkWebhookUrl(dto.url, this.config.env === 'production');
    if (dto.events !== undefined) changes.events = normaliseEvents(dto.events);
    if (dto.active !== undefined && dto.active !== hook.active) {
      changes.active = dto.active;
      // Enabled again: a fresh start (the limits count from here). Disabled by hand: said so.
      Object.assign(
        changes,
        dto.active
          ? { disabledReason: null, disabledAt: null, consecutiveFailures: 0, failingSince: null }
          : { disabledReason: WebhookMessages.disabledByAdministrator, disabledAt: this.clock.now() },
      );
    }
    if (Object.keys(changes).length) {
      await this.hooks.update({ id: hook.id, orgId }, { ...changes, updatedAt: this.clock.now() });
    }
    return this.get(orgId, id);
  }

  /** Deletes the webhook and its delivery history; queued deliveries are dropped when their job runs. */
  async remove(orgId: string, id: string): Promise<Webhook> {
    const hook = await this.find(orgId, id);
    await this.db.transaction(async (manager) => {
      await manager.delete(WebhookDeliveryEntity, { webhookId: hook.id, orgId });
      await manager.delete(WebhookEntity, { id: hook.id, orgId });
    });
    return toWebhook(hook);
  }

  /** The webhook's deliveries, newest first (the latest 100). */
  async deliveries(orgId: string, id: string): Promise<lists.ListPage<WebhookDelivery>> {
    const hook = await this.find(orgId, id);
    const [rows, total] = await this.deliveriesRepo.findAndCount({
      where: { webhookId: hook.id, orgId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: MAX_DELIVERIES_LISTED,
    });
    return { rows: rows.map(toDelivery), start: 0, total };
  }

  /**
   * POST /api/webhooks/{id}/secret: a new signing secret, shown once; every delivery sent from now on (retries of
   * earlier events too) is signed with it, and the old one signs nothing more.
   */
  async rotateSecret(orgId: string, id: string): Promise<CreatedWebhook> {
    const hook = await this.find(orgId, id);
    const secret = newWebhookSecret();
    await this.hooks.update({ id: hook.id, orgId }, { secret, updatedAt: this.clock.now() });
    return { ...toWebhook(await this.find(orgId, id)), secret };
  }

  /** GET /api/deliveries: the organisation's deliveries, filtered by webhook, status and event, paged in the database. */
  async listDeliveries(orgId: string, query: DeliveryListQuery): Promise<lists.ListPage<WebhookDelivery>> {
    const { start, limit, sort, order, filter } = query;
    const where: FindOptionsWhere<WebhookDeliveryEntity> = { orgId };
    if (filter.webhook_id) where.webhookId = filter.webhook_id;
    if (filter.status) where.status = filter.status as WebhookDeliveryEntity['status'];
    if (filter.event) where.event = filter.event;
    const [rows, total] = await this.deliveriesRepo.findAndCount({
      where,
      order: { [sort]: order, ...(sort === 'id' ? {} : { id: order }) },
      skip: start,
      take: limit,
    });
    return { rows: rows.map(toDelivery), start, total };
  }

  async getDelivery(orgId: string, id: number): Promise<WebhookDelivery> {
    return toDelivery(await this.findDelivery(orgId, id));
  }

  /**
   * POST /api/deliveries/{id}/redeliver: the same body once more, as a new delivery (`redelivery_of` the one asked
   * for) through the same job, signed with the webhook's current secret when it is sent.
   */
  async redeliver(orgId: string, id: number): Promise<WebhookDelivery> {
    const original = await this.findDelivery(orgId, id);
    const hook = await this.find(orgId, original.webhookId);
    if (!hook.active) throw new AppError('CONFLICT', AdminMessages.redeliveryWebhookInactive);
    const created = await this.db.transaction((manager) =>
      this.queueDelivery(manager, hook, original.event, original.body, original.id),
    );
    return toDelivery(created);
  }

  private async findDelivery(orgId: string, id: number): Promise<WebhookDeliveryEntity> {
    const delivery = await this.deliveriesRepo.findOne({ where: { id, orgId } });
    if (!delivery) throw new AppError('NOT_FOUND', AdminMessages.deliveryNotFound.replace('{id}', String(id)));
    return delivery;
  }

  /** One delivery row and its `webhook.deliver` job, in the caller's transaction. */
  private async queueDelivery(
    manager: EntityManager,
    hook: WebhookEntity,
    event: string,
    body: string,
    redeliveryOf: number | null,
  ): Promise<WebhookDeliveryEntity> {
    const delivery = manager.create(WebhookDeliveryEntity, {
      webhookId: hook.id,
      orgId: hook.orgId,
      event,
      body,
      status: 'pending',
      attempts: 0,
      responseStatus: null,
      error: null,
      responseExcerpt: null,
      redeliveryOf,
      createdAt: this.clock.now(),
      deliveredAt: null,
    });
    await manager.insert(WebhookDeliveryEntity, delivery);
    await this.jobs.enqueue(manager, {
      type: WEBHOOK_DELIVER_JOB,
      payload: { deliveryId: delivery.id } satisfies WebhookDeliverPayload,
      orgId: hook.orgId,
      maxAttempts: WEBHOOK_MAX_ATTEMPTS,
    });
    return delivery;
  }

  /**
   * Emits an event to every active webhook of the organisation that wants it: one delivery row and one
   * `webhook.deliver` job each, in the caller's transaction. Returns how many deliveries were queued.
   */
  async emit(manager: EntityManager, orgId: string, event: WebhookEvent, data: object): Promise<number> {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) throw new Error(`Unknown webhook event '${event}'.`);
    const hooks = (await manager.find(WebhookEntity, { where: { orgId, active: true } })).filter(
      (h) => h.events.includes(WEBHOOK_ALL_EVENTS) || h.events.includes(event),
    );
    if (!hooks.length) return 0;
    const now = this.clock.now();
    const payload: WebhookPayload<object> = {
      id: `evt_${randomUUID()}`,
      event,
      createdAt: now.toISOString(),
      orgId,
      data,
    };
    const body = JSON.stringify(payload);
    for (const hook of hooks) await this.queueDelivery(manager, hook, event, body, null);
    return hooks.length;
  }

  /** `id`: at most 36 characters (the contract's webhookIdParamSchema, on every route that names one). */
  private async find(orgId: string, id: string): Promise<WebhookEntity> {
    const hook = await this.hooks.findOne({ where: { id, orgId } });
    if (!hook) throw new AppError('NOT_FOUND', `No webhook '${id.slice(0, 64)}'.`);
    return hook;
  }

  /**
   * The webhook.deliver handler: one signed POST; a non-2xx answer or no answer throws, so the job retries (8
   * attempts). Issue 24: a delivered one ends the webhook's run of failures; a failed attempt starts one (its time), a
   * delivery that fails for good counts one more, and the webhook is disabled by the limits (`limitReached`).
   */
  private async deliver({ deliveryId }: WebhookDeliverPayload, ctx: JobContext): Promise<void> {
    const repo = ctx.manager.getRepository(WebhookDeliveryEntity);
    const delivery = await repo.findOne({ where: { id: deliveryId } });
    if (!delivery || delivery.status !== 'pending') return;
    const pending = { id: delivery.id, status: 'pending' as const };
    const hook = await ctx.manager.findOne(WebhookEntity, {
      where: { id: delivery.webhookId, orgId: delivery.orgId },
    });
    if (!hook || !hook.active) {
      await repo.update(pending, {
        status: 'failed',
        error: hook ? WebhookMessages.deliveryWebhookDisabled : WebhookMessages.deliveryWebhookGone,
      });
      return;
    }
    const attempts = delivery.attempts + 1;
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const timeout = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
    let responseStatus: number | null = null;
    let responseExcerpt: string | null = null;
    let error: string;
    try {
      if (this.config.env === 'production') await assertPublicHost(hook.url);
      const res = await fetch(hook.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'e-Sign-Webhooks/1',
          [WebhookHeaders.event]: delivery.event,
          [WebhookHeaders.delivery]: String(delivery.id),
          [WebhookHeaders.timestamp]: String(timestamp),
          [WebhookHeaders.signature]: signWebhook(hook.secret, timestamp, delivery.body),
        },
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.any([ctx.signal, timeout]),
      });
      responseStatus = res.status;
      responseExcerpt = await readExcerpt(res, DELIVERY_EXCERPT_BYTES);
      if (res.ok) {
        await repo.update(pending, {
          status: 'delivered',
          attempts,
          responseStatus,
          responseExcerpt,
          error: null,
          deliveredAt: this.clock.now(),
        });
        await this.delivered(ctx.manager, hook);
        return;
      }
      error = `the receiver answered ${res.status}`;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      error = timeout.aborted
        ? `the receiver did not answer in ${WEBHOOK_TIMEOUT_MS / 1000} s`
        : `the receiver could not be reached: ${describe(err)}`;
    }
    const failure = { attempts, responseStatus, responseExcerpt, error: error.slice(0, 1000) };
    const disabled = await this.attemptFailed(hook, delivery.id, failure, ctx.isLastAttempt);
    // Disabled by this failure: the delivery ends here (nothing more is sent to a disabled webhook). Otherwise the
    // job retries, or on its last attempt ends failed like the delivery.
    if (!disabled) throw new Error(error);
  }

  /** A delivery went through: the webhook's run of failures is over. */
  private async delivered(manager: EntityManager, hook: WebhookEntity): Promise<void> {
    if (!hook.consecutiveFailures && !hook.failingSince) return;
    await manager.update(WebhookEntity, { id: hook.id }, { consecutiveFailures: 0, failingSince: null });
  }

  /**
   * Records a failed attempt in one transaction: the delivery's outcome (failed for good on its last attempt, or when
   * the webhook is disabled now), the webhook's count of failed deliveries and the start of its run of failures, and,
   * when a limit is reached, the webhook disabled (`active` false, the reason and the time), its other pending
   * deliveries failed and its administrators' e-mail queued. Answers whether the webhook was disabled by it.
   */
  private async attemptFailed(
    hook: WebhookEntity,
    deliveryId: number,
    failure: { attempts: number; responseStatus: number | null; responseExcerpt: string | null; error: string },
    last: boolean,
  ): Promise<boolean> {
    const now = this.clock.now();
    return this.db.transaction(async (manager) => {
      const hooks = manager.getRepository(WebhookEntity);
      const deliveries = manager.getRepository(WebhookDeliveryEntity);
      await deliveries.update(
        { id: deliveryId, status: 'pending' },
        { ...failure, ...(last ? { status: 'failed' as const } : {}) },
      );
      await hooks.update({ id: hook.id, failingSince: IsNull() }, { failingSince: now });
      if (last) await hooks.increment({ id: hook.id }, 'consecutiveFailures', 1);
      const fresh = await hooks.findOne({ where: { id: hook.id } });
      const reason = fresh?.active ? limitReached(fresh, now, failure.error) : null;
      if (!fresh || !reason) return false;
      // Conditional: of two deliveries failing at once, one disables the webhook and tells its owners.
      const taken = await hooks.update(
        { id: hook.id, active: true },
        { active: false, disabledReason: reason, disabledAt: now, updatedAt: now },
      );
      if (!taken.affected) return false;
      // This delivery ends with its own error; the others pending say why they were not sent.
      await deliveries.update({ id: deliveryId, status: 'pending' }, { status: 'failed' });
      await deliveries.update(
        { webhookId: hook.id, status: 'pending' },
        { status: 'failed', error: WebhookMessages.deliveryWebhookDisabled },
      );
      await this.jobs.enqueue(manager, {
        type: ADMIN_NOTICE_JOB,
        payload: {
          orgId: hook.orgId,
          notice: {
            kind: 'webhook-disabled',
            webhookId: hook.id,
            url: hook.url,
            reason,
            disabledAt: now.toISOString(),
          },
        } satisfies AdminNoticePayload,
        orgId: hook.orgId,
      });
      this.log.warn(`webhook ${hook.id} of ${hook.orgId} disabled: ${reason}`);
      return true;
    });
  }
}

/**
 * Whether a webhook's failures reached a limit, and the reason to record: WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES
 * deliveries in a row failed for good, or failed attempts without one delivered for WEBHOOK_DISABLE_AFTER_FAILING_DAYS.
 */
export function limitReached(
  hook: Pick<WebhookEntity, 'consecutiveFailures' | 'failingSince'>,
  now: Date,
  lastError: string,
): string | null {
  const error = lastError.slice(0, 200);
  if (hook.consecutiveFailures >= WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES)
    return WebhookMessages.disabledAfterFailedDeliveries.replace('{error}', error);
  if (hook.failingSince && now.getTime() - hook.failingSince.getTime() >= FAILING_MS)
    return WebhookMessages.disabledAfterFailingDays.replace('{error}', error);
  return null;
}

function toWebhook(h: WebhookEntity): Webhook {
  return {
    id: h.id,
    url: h.url,
    events: h.events,
    active: h.active,
    createdAt: h.createdAt.toISOString(),
    updatedAt: h.updatedAt.toISOString(),
    disabled_reason: h.disabledReason,
    disabled_at: h.disabledAt?.toISOString() ?? null,
    consecutive_failures: h.consecutiveFailures,
    failing_since: h.failingSince?.toISOString() ?? null,
  };
}

function toDelivery(d: WebhookDeliveryEntity): WebhookDelivery {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    error: d.error,
    response_excerpt: d.responseExcerpt,
    redelivery_of: d.redeliveryOf,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt ? d.deliveredAt.toISOString() : null,
  };
}

/**
 * The start of an answer's body, at most `max` bytes, cut where a UTF-8 character starts (never in the middle of one),
 * and the rest left unread. A body that cannot be read gives what was read before.
 */
export async function readExcerpt(res: Response, max: number): Promise<string | null> {
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // A broken or aborted answer: keep what came.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return utf8Prefix(Buffer.concat(chunks), max);
}

/** The longest prefix of `bytes` of at most `max` bytes that ends on a UTF-8 character boundary, as text. */
export function utf8Prefix(bytes: Buffer, max: number): string {
  if (bytes.length <= max) return bytes.toString('utf8');
  let end = max;
  // A continuation byte (10xxxxxx) at the cut belongs to a character that started before it: cut before that one.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

function normaliseEvents(events: string[] | undefined): string[] {
  if (!events || events.includes(WEBHOOK_ALL_EVENTS)) return [WEBHOOK_ALL_EVENTS];
  return [...new Set(events)];
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
