import { Body, Param, Query, type PipeTransform } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiParam, ApiQuery } from '@nestjs/swagger';
import { checkInput, examplesOf, jsonSchemaOf, type InputOf, type InputSchema } from '@esign/contract';
import { AppError } from '../app-error';

/**
 * Typed input at the edge (issue 20). A route declares each body, query and path parameter it reads with one of these
 * parameter decorators and a schema of `@esign/contract`:
 *
 *   create(@Auth() auth: AuthContext, @InputBody(createWebhookSchema) body: CreateWebhookInput)
 *
 * The input is checked before the controller runs; a refused one answers AppError(code, message) with the first
 * problem's code (VALIDATION_FAILED unless the check says another, e.g. NOT_FOUND for a Ref ID) and the schema's
 * message, as the services did by hand. The controller receives the schema's output. The same decorator writes the
 * OpenAPI description (the JSON Schema of what is sent, and the schema's examples), so a route cannot check an input
 * it does not document, nor document one it does not check.
 */

export type InputPlace = 'body' | 'query' | 'param';

/** One input a handler declares: where, its name (a path or query parameter), and its schema. */
export interface DeclaredInput {
  place: InputPlace;
  name?: string;
  schema: InputSchema;
  /** The media types of a body (JSON unless said). */
  consumes: string[];
}

const DECLARED = 'esign:declared-inputs';

/** The inputs a handler (a controller method) declares, in parameter order. */
export function declaredInputs(handler: object): DeclaredInput[] {
  return (Reflect.getMetadata(DECLARED, handler) as DeclaredInput[] | undefined) ?? [];
}

function declare(handler: object, input: DeclaredInput): void {
  Reflect.defineMetadata(DECLARED, [input, ...declaredInputs(handler)], handler);
}

/** Checks a value against its schema: the typed value, or the AppError the schema's message makes. */
export class InputPipe<S extends InputSchema> implements PipeTransform<unknown, InputOf<S>> {
  constructor(
    readonly schema: S,
    readonly place: InputPlace,
  ) {}

  transform(value: unknown): InputOf<S> {
    // A body-less POST leaves req.body undefined: read as no fields.
    return parseInput(this.schema, this.place === 'body' ? (value ?? {}) : value);
  }
}

/**
 * A value checked against its schema where a decorator cannot: the typed value, or the AppError the schema's message
 * makes (a header standing in for a field, a placement's pages checked when it is applied).
 */
export function parseInput<S extends InputSchema>(schema: S, value: unknown): InputOf<S> {
  const result = checkInput(schema, value);
  if (!result.ok) throw new AppError(result.problem.code, result.problem.message);
  return result.value;
}

const methodOf = (target: object, key: string | symbol | undefined): PropertyDescriptor => {
  const descriptor = key === undefined ? undefined : Object.getOwnPropertyDescriptor(target, key);
  if (!descriptor || typeof descriptor.value !== 'function')
    throw new Error('An input decorator goes on a parameter of a controller method.');
  return descriptor;
};

const examplesObject = (schema: InputSchema) => {
  const examples = examplesOf(schema);
  return examples.length
    ? Object.fromEntries(examples.map((value, i) => [i === 0 ? 'example' : `example${i + 1}`, { value }]))
    : undefined;
};

export interface InputBodyOptions {
  /** The media types the body may come as; JSON when not said. Multipart adds its file parts (`files`). */
  consumes?: Array<'application/json' | 'multipart/form-data' | 'application/x-www-form-urlencoded'>;
  /** Multipart file parts, by field name, with what they hold (documented; the files are read from the request). */
  files?: Record<string, string>;
}

/** The request body, checked against `schema` (JSON, a form, or a multipart body's fields). */
export function InputBody(schema: InputSchema, options: InputBodyOptions = {}): ParameterDecorator {
  return (target, key, index) => {
    Body(new InputPipe(schema, 'body'))(target, key as string, index);
    const descriptor = methodOf(target, key);
    const consumes = options.consumes ?? ['application/json'];
    declare(descriptor.value as object, { place: 'body', schema, consumes });
    const json = jsonSchemaOf(schema);
    if (options.files) {
      json.properties = {
        ...(json.properties as Record<string, unknown>),
        ...Object.fromEntries(
          Object.entries(options.files).map(([name, description]) => [
            name,
            { type: 'string', format: 'binary', description },
          ]),
        ),
      };
    }
    ApiBody({ schema: json, required: true, examples: examplesObject(schema) })(target, key as string, descriptor);
    ApiConsumes(...consumes)(target, key as string, descriptor);
  };
}

/** The query string, checked against `schema` (an object schema: each property is a query parameter). */
export function InputQuery(schema: InputSchema): ParameterDecorator {
  return (target, key, index) => {
    Query(new InputPipe(schema, 'query'))(target, key as string, index);
    const descriptor = methodOf(target, key);
    declare(descriptor.value as object, { place: 'query', schema, consumes: [] });
    const json = jsonSchemaOf(schema);
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((json.properties ?? {}) as Record<string, Record<string, unknown>>)) {
      ApiQuery({
        name,
        required: required.has(name),
        schema: property,
        description: property.description as string | undefined,
      })(target, key as string, descriptor);
    }
  };
}

/** One path parameter, checked against `schema`. */
export function InputParam(name: string, schema: InputSchema): ParameterDecorator {
  return (target, key, index) => {
    Param(name, new InputPipe(schema, 'param'))(target, key as string, index);
    const descriptor = methodOf(target, key);
    declare(descriptor.value as object, { place: 'param', name, schema, consumes: [] });
    const json = jsonSchemaOf(schema);
    ApiParam({ name, required: true, schema: json, description: json.description as string | undefined })(
      target,
      key as string,
      descriptor,
    );
  };
}
