/** The development outbox (GET /dev/outbox). */
import { z } from 'zod';
import { reportsEveryIssue, strictFields } from './core';

/** ?to=: only messages to this e-mail address or phone number. */
export const devOutboxQuerySchema = reportsEveryIssue(
  strictFields({
    to: z
      .string({ error: 'to must be a string' })
      .max(254, 'to must be shorter than or equal to 254 characters')
      .optional()
      .meta({ description: 'Only messages to this e-mail address or phone number.' }),
  }),
);
