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

/** A webhook as /api/webhooks answers it (the secret only in the answer to its creation). */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  createdAt: string;
  updatedAt: string;
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
