/**
 * The query every /api list takes (ra-data-simple-rest): `range`, `sort` and `filter` as JSON text, nothing else.
 * Each list reads them against its own sortable fields and filters (api/src/common/rest-query.ts).
 */
import { z } from 'zod';
import { reportsEveryIssue, strictFields } from './core';

export const listQuerySchema = reportsEveryIssue(
  strictFields({
    range: z
      .string({ error: 'range must be a string' })
      .optional()
      .meta({ description: 'JSON [start, end], inclusive, at most 100 rows.', examples: ['[0,9]'] }),
    sort: z
      .string({ error: 'sort must be a string' })
      .optional()
      .meta({ description: 'JSON [field, "ASC" | "DESC"].', examples: ['["timestamp","DESC"]'] }),
    filter: z
      .string({ error: 'filter must be a string' })
      .optional()
      .meta({ description: "JSON object of the list's filters.", examples: ['{"q":"lease"}'] }),
  }),
);

export type ListQuery = z.output<typeof listQuerySchema>;
