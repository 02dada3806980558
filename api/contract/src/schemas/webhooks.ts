/** The organisation's webhooks (/api/webhooks). */
import { z } from 'zod';
import { WEBHOOK_ALL_EVENTS, WEBHOOK_EVENTS, WEBHOOK_URL_MAX_LENGTH } from '../webhooks';
import { absentable, reportsEveryIssue, strictFields, withCode } from './core';
import { listQueryFor } from './lists';

const EVENT_CHOICES: readonly string[] = [...WEBHOOK_EVENTS, WEBHOOK_ALL_EVENTS];
const EVENTS_MESSAGE = `events must each be one of: ${EVENT_CHOICES.join(', ')}`;

const url = z
  .string({ error: 'url must be a string' })
  .max(WEBHOOK_URL_MAX_LENGTH, `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`)
  .meta({ description: 'An absolute http:// or https:// URL (https in production, never an internal address).' });

const events = z
  .array(
    z.string({ error: EVENTS_MESSAGE }).refine((event) => EVENT_CHOICES.includes(event), EVENTS_MESSAGE),
    {
      error: 'events must be a list of event names',
    },
  )
  .min(1, 'events must name at least one event (or "*")')
  .max(EVENT_CHOICES.length, `events must contain no more than ${EVENT_CHOICES.length} elements`)
  .meta({ description: `Event names, or "*" for all: ${EVENT_CHOICES.join(', ')}.` });

/** POST /api/webhooks: { url, events } (events default to every event). */
export const createWebhookSchema = reportsEveryIssue(
  strictFields({ url, events: absentable(events) }).meta({
    examples: [{ url: 'https://example.com/esign-events', events: ['request.completed', 'party.rejected'] }],
  }),
);

/** PUT /api/webhooks/{id}: any of url, events, active. */
export const updateWebhookSchema = reportsEveryIssue(
  strictFields({
    url: absentable(url),
    events: absentable(events),
    active: absentable(z.boolean({ error: 'active must be true or false' })),
  }).meta({ examples: [{ active: false }] }),
);

export type CreateWebhookInput = z.output<typeof createWebhookSchema>;
export type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;

/** A webhook's id in a path (`/api/webhooks/{id}`): longer than an id can be is no webhook (404). */
export const webhookIdParamSchema = z
  .string()
  .refine((id) => id.length <= 36, {
    error: (issue) => `No webhook '${String(issue.input).slice(0, 64)}'.`,
    params: withCode('NOT_FOUND'),
  })
  .meta({ description: "The webhook's id." });

/** What GET /api/webhooks sorts by (newest first by default). */
export const WEBHOOK_SORT_FIELDS = ['id', 'url', 'active', 'createdAt', 'updatedAt'] as const;

/** GET /api/webhooks: `q` the URL contains it, `active` true or false. */
export const webhookListQuerySchema = listQueryFor({
  sortable: WEBHOOK_SORT_FIELDS,
  sort: ['createdAt', 'DESC'],
  filters: { q: 'text', active: 'boolean' },
});
export type WebhookListQuery = z.output<typeof webhookListQuerySchema>;
