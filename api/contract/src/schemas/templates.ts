/** Templates (/v1/templates and /api/templates): a PDF and its form-field annotation. */
import { z } from 'zod';
import { RequestMessages } from '../requests';
import { TEMPLATE_SORT_FIELDS } from '../templates';
import { withCode } from './core';
import { listQueryFor } from './lists';

const name = z
  .string({ error: RequestMessages.templateNameRequired })
  .trim()
  .min(1, RequestMessages.templateNameRequired)
  .max(200, RequestMessages.templateNameRequired);

/** template_annotation: JSON text (multipart) or the object itself; checked against the PDF by the API. */
const annotationField = z.unknown().optional().meta({
  description:
    '{ annotations: [{ formFieldName, bbox, pageIndex, customData: { type } }], formFieldValues } (JSON text in multipart).',
  type: 'object',
});

/** The annotation as sent: text is parsed as JSON (else `message`), anything else is taken as it is. */
function parsedAnnotation(value: unknown, ctx: z.RefinementCtx): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: RequestMessages.templateAnnotationNotJson,
      path: ['template_annotation'],
      input: value,
    });
    return z.NEVER;
  }
}

/** What a template call gives the API: the name, and the annotation (parsed JSON; undefined when not sent). */
export interface TemplateInput {
  name: string;
  annotation?: unknown;
}

/** The fields of a template call (multipart text, so each is read by the transform below). */
const templateFields = z.object({
  template_name: z
    .unknown()
    .optional()
    .meta({ type: 'string', description: 'The template name (1 to 200 characters).' }),
  name: z.unknown().optional().meta({ type: 'string', description: 'Another spelling of template_name.' }),
  template_annotation: annotationField,
});

/** The template's name as given (template_name, or name): the checked text, or the issue added. */
function templateName(given: unknown, ctx: z.RefinementCtx): string | typeof z.NEVER {
  const checked = name.safeParse(given);
  if (checked.success) return checked.data;
  ctx.addIssue({
    code: 'custom',
    message: RequestMessages.templateNameRequired,
    path: ['template_name'],
    input: given,
  });
  return z.NEVER;
}

/**
 * POST /v1/templates and /api/templates (multipart, beside the PDF in `file`): template_name (or name) and an optional
 * template_annotation; without one the PDF's own form fields are read.
 */
export const templateCreateSchema = templateFields
  .transform((body, ctx): TemplateInput => {
    const checked = templateName(body.template_name ?? body.name, ctx);
    if (checked === z.NEVER) return z.NEVER;
    const raw = body.template_annotation;
    if (raw === undefined || raw === '') return { name: checked };
    const annotation = parsedAnnotation(raw, ctx);
    return annotation === z.NEVER ? z.NEVER : { name: checked, annotation };
  })
  .meta({ examples: [{ template_name: 'Rental agreement' }] });

/** PUT /v1/templates/{id} and /api/templates/{id}: a new name, a new annotation, or both. */
export const templateUpdateSchema = templateFields
  .transform((body, ctx): Partial<TemplateInput> => {
    const given = body.template_name ?? body.name;
    let newName: string | undefined;
    if (given !== undefined) {
      const checked = templateName(given, ctx);
      if (checked === z.NEVER) return z.NEVER;
      newName = checked;
    }
    if (body.template_annotation === undefined) return { name: newName };
    const annotation = parsedAnnotation(body.template_annotation, ctx);
    return annotation === z.NEVER ? z.NEVER : { name: newName, annotation };
  })
  .meta({ examples: [{ template_name: 'Rental agreement (2026)' }] });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A template's id in a path (`/v1/templates/{id}`): anything but a UUID is no template (404). */
export const templateIdParamSchema = z
  .string()
  .refine((id) => UUID.test(id), { error: RequestMessages.templateNotFound, params: withCode('NOT_FOUND') })
  .meta({ description: "The template's id (a UUID).", format: 'uuid' });

/**
 * GET /api/templates: newest first, ten rows unless asked; `q` the name contains it, `timestamp_gte` / `timestamp_lte`
 * created at or after / at or before an ISO 8601 time.
 */
export const templateListQuerySchema = listQueryFor({
  sortable: TEMPLATE_SORT_FIELDS,
  sort: ['timestamp', 'DESC'],
  range: [0, 9],
  filters: { q: 'text', timestamp_gte: 'time', timestamp_lte: 'time' },
});
export type TemplateListQuery = z.output<typeof templateListQuerySchema>;
