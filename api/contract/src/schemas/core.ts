/**
 * Typed input at the edge (issue 20): every body, query and path parameter of the API is a zod schema of this folder.
 * Each check carries the message the API answers with (the specification's text where it has one), so the API, the
 * console, the signer app and the CLI refuse the same input with the same words. The API validates with them before a
 * controller runs (`api/src/common/validation`) and documents them in OpenAPI with `z.toJSONSchema`.
 */
import { z } from 'zod';
import type { ErrorCode } from '../errors';
import { Messages } from '../messages';

/**
 * Every check of these schemas names its own message; this is the answer for one that does not (a field of the wrong
 * type where no text was written), so no library wording ever reaches a user.
 */
z.config({
  customError: (issue) =>
    Messages.fieldInvalid.replace(
      '{field}',
      issue.path?.length ? issue.path.map(String).join('.') : 'The request body',
    ),
});

/** What a refused input answers: the error code (VALIDATION_FAILED unless a check says otherwise) and the message. */
export interface InputProblem {
  code: ErrorCode;
  message: string;
  /** Where in the input the first problem is (['data', 0, 'email']). */
  path: PropertyKey[];
}

/** A schema of an input, and the value it gives (what a controller or a form receives). */
export type InputSchema = z.ZodType;
export type InputOf<S extends z.ZodType> = z.output<S>;

export type InputResult<T> = { ok: true; value: T } | { ok: false; problem: InputProblem };

/** The error code a check may carry in its params (`{ params: { code: 'NOT_FOUND' } }`): a Ref ID that cannot exist. */
export const withCode = (code: ErrorCode) => ({ code });

/**
 * Schemas whose refusal names every problem, joined with '; ' (the /api resources' settings-style bodies, which
 * answered so before). Any other schema answers its first problem, as a form says one thing at a time.
 */
const everyIssue = new WeakSet<z.ZodType>();

/** Marks a schema as answering every problem at once (see everyIssue). */
export function reportsEveryIssue<T extends z.ZodType>(schema: T): T {
  everyIssue.add(schema);
  return schema;
}

function codeOf(issue: z.core.$ZodIssue): ErrorCode {
  const params = (issue as { params?: { code?: unknown } }).params;
  return typeof params?.code === 'string' ? (params.code as ErrorCode) : 'VALIDATION_FAILED';
}

/** The answer to a refused input: the first problem's code, and its message (or every message, see everyIssue). */
export function problemOf(schema: z.ZodType, error: z.ZodError): InputProblem {
  const [first] = error.issues;
  // Every issue: fields that should not be there first, then each field's problems in order.
  const all = [...error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  const message = everyIssue.has(schema) ? [...new Set(all.map((issue) => issue.message))].join('; ') : first.message;
  return { code: codeOf(first), message, path: first.path };
}

/** Checks an input against its schema: the typed value, or the problem the API would answer. */
export function checkInput<S extends z.ZodType>(schema: S, input: unknown): InputResult<z.output<S>> {
  const result = schema.safeParse(input);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: problemOf(schema, result.error) };
}

/** The message of the first problem of an input, or null when it is valid (what a form shows under a field). */
export function inputMessage(schema: z.ZodType, input: unknown): string | null {
  const result = checkInput(schema, input);
  return result.ok ? null : result.problem.message;
}

/** The examples a schema carries (`.meta({ examples })`), for OpenAPI and the tests. */
export function examplesOf(schema: z.ZodType): unknown[] {
  const examples = schema.meta()?.examples;
  return Array.isArray(examples) ? examples : [];
}

/** The JSON Schema of what a client sends (OpenAPI 3.0 dialect), for the API's documentation. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return openApiExamples(
    z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }),
  ) as Record<string, unknown>;
}

/** OpenAPI 3.0 schemas carry one `example`, where JSON Schema has a list of `examples`. */
function openApiExamples(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openApiExamples);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'examples' && Array.isArray(v)) {
      if (v.length) out.example = v[0];
    } else out[key] = openApiExamples(v);
  }
  return out;
}

/**
 * An object of named fields that refuses any other, as `property {name} should not exist` (the /api resources'
 * answer since their first version).
 */
export function strictFields<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `property ${key} should not exist`).join('; ')
        : undefined,
  });
}

/** An optional field that may also be sent as null, read as absent (class-validator's @IsOptional). */
export const absentable = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value) => (value === null ? undefined : value) as z.output<T> | undefined);

/** JSON sent as text (a multipart field, a query parameter): the parsed value, or `message`. */
export const jsonText = (message: string) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message, input: text });
      return z.NEVER;
    }
  });

/**
 * A yes/no field as forms and JSON send it: true/false, 'true'/'false', '1'/'0', 1/0; absent, null or '' is the
 * default. Anything else: `{field} must be true or false.`
 */
export const flag = (field: string, fallback: boolean) =>
  z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', '']), z.literal(1), z.literal(0), z.null()], {
      error: `${field} must be true or false.`,
    })
    .optional()
    .transform((value): boolean =>
      value === undefined || value === null || value === ''
        ? fallback
        : value === true || value === 'true' || value === '1' || value === 1,
    );

/** A message that names the recipient when the check runs inside a list of them (`Recipient 2: …`). */
export const perRecipient =
  (message: string) =>
  (issue: { path?: PropertyKey[] }): string => {
    const index = issue.path?.find((p): p is number => typeof p === 'number');
    return index === undefined ? message : `Recipient ${index + 1}: ${message}`;
  };

/** Removes control characters and spaces at either end; null when nothing is left (free texts kept on a record). */
export function cleanText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text ? text.slice(0, max) : null;
}
