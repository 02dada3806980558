/** The organisation's API keys (/api/api-keys). */
import { z } from 'zod';
import { API_KEY_SORT_FIELDS } from '../consumers';
import { reportsEveryIssue, strictFields, withCode } from './core';
import { listQueryFor } from './lists';

/** POST /api/api-keys: { name }, 1 to 100 characters, not blank; nothing else. */
export const createApiKeySchema = reportsEveryIssue(
  strictFields({
    name: z
      .string({ error: 'name must be a string' })
      .min(1, 'name must be longer than or equal to 1 characters')
      .max(100, 'name must be shorter than or equal to 100 characters')
      .regex(/\S/, 'name must not be blank')
      .transform((name) => name.trim()),
  }).meta({ examples: [{ name: 'nightly bulk send' }] }),
);

/** GET /api/api-keys: newest first; `q` the name or the prefix contains it, `revoked` true or false. */
export const apiKeyListQuerySchema = listQueryFor({
  sortable: API_KEY_SORT_FIELDS,
  sort: ['created_at', 'DESC'],
  filters: { q: 'text', revoked: 'boolean' },
});
export type ApiKeyListQuery = z.output<typeof apiKeyListQuerySchema>;

/** An API key's id in a path (`/api/api-keys/{id}`): longer than an id can be is no key (404). */
export const apiKeyIdParamSchema = z
  .string()
  .refine((id) => id.length <= 36, { error: 'No such API key.', params: withCode('NOT_FOUND') })
  .meta({ description: "The API key's id." });
