/** Events an organisation's webhooks can subscribe to ('*' subscribes to all of them). */
export const WEBHOOK_EVENTS = [
  'request.submitted',
  'request.completed',
  'request.rejected',
  'request.expired',
  'request.deleted',
  'request.cancelled',
  'party.invited',
  'party.reminded',
  'party.opened',
  'party.signed',
  'party.rejected',
  'party.failed',
  // Issue 24: the watchdog found a request that should have moved and did not, and could not move it by itself.
  'request.stuck',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const WEBHOOK_ALL_EVENTS = '*';

/** The longest webhook URL taken. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Headers of every delivery (see api/src/modules/webhooks/README.md for verifying the signature). */
export const WebhookHeaders = {
  event: 'x-esign-event',
  delivery: 'x-esign-delivery',
  timestamp: 'x-esign-timestamp',
  signature: 'x-esign-signature',
} as const;

/**
 * Issue 24, webhooks that give up cleanly: a delivery is `failed` after this many attempts (30 s, 1, 2, 4, 8, 16 and
 * 32 min apart, plus jitter: the last about an hour after the event).
 */
export const WEBHOOK_MAX_ATTEMPTS = 8;
/** A webhook is disabled after this many deliveries in a row ended failed… */
export const WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES = 20;
/** …or when its deliveries have been failing, without one delivered, for this many days. */
export const WEBHOOK_DISABLE_AFTER_FAILING_DAYS = 3;

/** Why a webhook was disabled (`disabled_reason`), and what its owners are told. */
export const WebhookMessages = {
  disabledAfterFailedDeliveries: `Disabled after ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed (the last: {error}).`,
  disabledAfterFailingDays: `Disabled after ${WEBHOOK_DISABLE_AFTER_FAILING_DAYS} days of failed deliveries (the last: {error}).`,
  disabledByAdministrator: 'Disabled by an administrator.',
  /** A delivery that was pending when its webhook was disabled or deleted. */
  deliveryWebhookDisabled: 'the webhook is disabled',
  deliveryWebhookGone: 'the webhook is gone',
} as const;

/** A webhook as /api/webhooks answers it (the secret only in the answer to its creation). */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * Issue 24: why the webhook is disabled (WebhookMessages: after failed deliveries, or by an administrator) and
   * since when (ISO 8601); null while it is active. Nothing is queued for a disabled webhook until it is enabled again
   * (PUT active: true), which also clears these and the failure count.
   */
  disabled_reason?: string | null;
  disabled_at?: string | null;
  /** Deliveries in a row that ended failed since the last one delivered (WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES). */
  consecutive_failures?: number;
  /** When the current run of failures began (its first failed attempt); null when the last delivery went through. */
  failing_since?: string | null;
}
export interface CreatedWebhook extends Webhook {
  /** whsec_…: shown once; signs every delivery (HMAC-SHA256). */
  secret: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** GET /api/webhooks/{id}/deliveries: one event sent (or being retried) to the webhook. */
export interface WebhookDelivery {
  id: number;
  /** The webhook it went to (issue 22: the `deliveries` resource filters by it). */
  webhook_id: string;
  event: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  /** The start of the receiver's last answer, at most DELIVERY_EXCERPT_BYTES; null before any answer. */
  response_excerpt: string | null;
  /** The delivery this one sends again (a redelivery); null for an event's own delivery. */
  redelivery_of: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** The JSON body of every delivery. */
export interface WebhookPayload<T = Record<string, unknown>> {
  id: string;
  event: WebhookEvent;
  createdAt: string;
  orgId: string;
  data: T;
}
