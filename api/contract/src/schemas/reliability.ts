/** Issue 24: the watchdog's findings, retention settings and a signer's data (export, erasure). */
import { z } from 'zod';
import { SignerDataMessages, WATCHDOG_FINDING_SORT_FIELDS, WatchdogMessages } from '../reliability';
import { normaliseRecipientIdentifier } from '../recipient-list';
import { reportsEveryIssue, strictFields, withCode } from './core';
import { listQueryFor } from './lists';

/** GET /api/watchdog/findings: the latest seen first; `state` (open, reported, resolved), `kind`, `resolved`. */
export const watchdogFindingListQuerySchema = listQueryFor({
  sortable: WATCHDOG_FINDING_SORT_FIELDS,
  sort: ['last_seen_at', 'DESC'],
  filters: { state: 'text', kind: 'text', resolved: 'boolean' },
});
export type WatchdogFindingListQuery = z.output<typeof watchdogFindingListQuerySchema>;

/** A finding's id in a path (`/api/watchdog/findings/{id}`): a positive whole number, else no finding (404). */
export const watchdogFindingIdParamSchema = z
  .string()
  .refine((id) => /^[1-9][0-9]{0,9}$/.test(id), {
    error: (issue) => WatchdogMessages.findingNotFound.replace('{id}', String(issue.input).slice(0, 64)),
    params: withCode('NOT_FOUND'),
  })
  .transform(Number)
  .meta({ description: "The finding's id." });

/** POST /api/signers/export and /api/signers/erase: the signer, by e-mail or mobile number (as parties are matched). */
export const signerLookupSchema = reportsEveryIssue(
  strictFields({
    identifier: z
      .string({ error: SignerDataMessages.notAnAddress })
      .refine((v) => normaliseRecipientIdentifier(v) !== null, SignerDataMessages.notAnAddress)
      .transform((v) => normaliseRecipientIdentifier(v)!)
      .meta({ description: 'The signer’s e-mail address or mobile number.' }),
  }).meta({ examples: [{ identifier: 'asha@example.in' }, { identifier: '+91 98765 43210' }] }),
);
export type SignerLookup = z.output<typeof signerLookupSchema>;
