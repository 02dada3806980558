import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import {
  checkInput,
  ErrorStatus,
  examplesOf,
  jsonSchemaOf,
  type InputProblem,
  type InputSchema,
} from '@esign/contract';
import { declaredInputs, type DeclaredInput } from '../src/common/validation/input';
import { PUBLIC_ROUTES, fillWith } from './support/route-walk';
import { SIGNER_LINK_ROUTES } from './support/routes';
import { sendForSigning } from './support/signing';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * Typed input at the edge (issue 20). The routes and their schemas are read from the application itself (each
 * handler's @InputBody, @InputQuery and @InputParam), never listed here: every route that takes a body documents its
 * schema and an example in the OpenAPI document, and for every route, bodies (and queries and path parameters) made
 * from its schema to break it are answered with the status and message the contract's own schema gives for them.
 */

/** Routes with a request body that is not JSON, a form or multipart fields (so no schema of fields), and why. */
const NOT_FIELDS: Record<string, string> = {
  'POST /tsa': 'an RFC 3161 TimeStampReq (DER, application/timestamp-query)',
  'POST /pki/ocsp': 'an RFC 6960 OCSPRequest (DER, application/ocsp-request)',
  'POST /esp-sandbox/session/:id/cancel': 'no body: the signer cancels on the sandbox ESP page',
};

const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** A route as the application registers it, with the inputs its handler declares. */
interface HandlerRoute {
  method: string;
  /** Express style, as the router and PUBLIC_ROUTES write it: /v1/esign/reject/:orgId/:refId/:orderNo */
  path: string;
  /** OpenAPI style: /v1/esign/reject/{orgId}/{refId}/{orderNo} */
  docPath: string;
  inputs: DeclaredInput[];
}

const join = (...parts: string[]) =>
  `/${parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/')}`;

/** Every controller method of the application with its route and declared inputs (Nest's own metadata). */
function handlerRoutes(t: TestApp): HandlerRoute[] {
  const routes: HandlerRoute[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!type) continue;
      const base = Reflect.getMetadata('path', type) as string | undefined;
      const proto = type.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const sub = Reflect.getMetadata('path', handler) as string | string[] | undefined;
        const verb = Reflect.getMetadata('method', handler) as RequestMethod | undefined;
        if (sub === undefined || verb === undefined) continue;
        for (const p of Array.isArray(sub) ? sub : [sub]) {
          const path = join(base ?? '', p);
          routes.push({
            method: RequestMethod[verb],
            path,
            docPath: path.replace(/:([A-Za-z_]\w*)/g, '{$1}'),
            inputs: declaredInputs(handler),
          });
        }
      }
    }
  }
  return routes;
}

type OpenApi = { paths: Record<string, Record<string, { requestBody?: RequestBody }>> };
type RequestBody = {
  content?: Record<string, { schema?: { type?: string; properties?: object }; example?: unknown; examples?: object }>;
};

/** What is wrong with the document's bodies: a route with a body but no schema or example, or the reverse. */
function undocumentedBodies(doc: OpenApi, routes: HandlerRoute[]): string[] {
  const problems: string[] = [];
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const body = route.inputs.find((i) => i.place === 'body');
    const operation = doc.paths[route.docPath]?.[route.method.toLowerCase()];
    const takesBody = BODY_METHODS.includes(route.method) && !NOT_FIELDS[name];
    if (takesBody && !body) problems.push(`${name}: takes a body but declares no schema for it (@InputBody)`);
    if (!operation) {
      // The web apps' pages are left out of the API's document; nothing with an input may be.
      if (takesBody || route.inputs.length) problems.push(`${name}: not in the OpenAPI document`);
      continue;
    }
    if (!body) continue;
    const content = Object.entries(operation.requestBody?.content ?? {});
    if (!content.length) problems.push(`${name}: no requestBody in the OpenAPI document`);
    for (const [type, media] of content) {
      if (media.schema?.type !== 'object' || !media.schema.properties)
        problems.push(`${name}: ${type} has no schema of its fields`);
      if (media.example === undefined && !Object.keys(media.examples ?? {}).length)
        problems.push(`${name}: ${type} has no example`);
    }
    if (!examplesOf(body.schema).length) problems.push(`${name}: its schema carries no example`);
  }
  return problems;
}

/** Names the guards read from bodies and queries (the organisation, and a signer link's own party). */
const BOUND = /^(org_?id|client_orgid|refId|refID|order|orderNo|requestId|token)$/i;

const WRONG_VALUES: unknown[] = [{ not: 'this' }, 12345, true, 'not-this', [], null, ''];

/** Inputs made from a schema and its example that the schema refuses, each with the problem it answers. */
function brokenInputs(
  schema: InputSchema,
  example: Record<string, unknown>,
  properties: string[],
  values: unknown[],
): Array<{ input: unknown; problem: InputProblem; what: string }> {
  const out: Array<{ input: unknown; problem: InputProblem; what: string }> = [];
  const refused = (input: unknown, what: string) => {
    const result = checkInput(schema, input);
    if (result.ok) return false;
    out.push({ input, problem: result.problem, what });
    return true;
  };
  for (const property of properties) {
    if (BOUND.test(property)) continue;
    if (property in example) {
      const without = { ...example };
      delete without[property];
      refused(without, `without ${property}`);
    }
    for (const value of values)
      if (refused({ ...example, [property]: value }, `${property}: ${JSON.stringify(value)}`)) break;
  }
  refused({ ...example, not_a_field_of_this_call: 'x' }, 'an unknown field');
  return out;
}

const propertiesOf = (doc: unknown): string[] =>
  Object.keys(((doc as { properties?: object } | undefined)?.properties ?? {}) as object);

describe('OpenAPI bodies and the contract schemas at the edge', () => {
  let t: TestApp;
  let key: string;
  let doc: OpenApi;
  let routes: HandlerRoute[];
  const values: Record<string, string> = { orgId: 'acme', order: '1', orderNo: '1', userId: 'x1', id: 'x1' };
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await signIn(t, 'alice', 'alice-password');
    const sent = await sendForSigning(t, key, 'acme', { otpRequired: false }, [{ order: 1 }, { order: 2 }]);
    token = sent.tokens[1];
    values.refId = String(sent.refId);
    const reference = await t.http.get(`/v1/reference/acme/${sent.refId}/1`).set('x-sign-token', token).expect(200);
    values.requestId = reference.body.request.requestId as string;
    doc = (await t.http.get('/api-docs-json').expect(200)).body as OpenApi;
    routes = handlerRoutes(t);
  }, 60_000);

  afterAll(() => t?.close());

  it('finds the routes through Nest, as Express registers them', () => {
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.filter((r) => r.inputs.some((i) => i.place === 'body')).length).toBeGreaterThan(25);
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'POST /v1/upload',
        'POST /v1/esign/reject/:orgId/:refId/:orderNo',
        'PUT /api/organisations/:orgId',
      ]),
    );
  });

  it('documents every body: its schema of fields and an example, for each media type it takes', () => {
    expect(undocumentedBodies(doc, routes)).toEqual([]);
    const upload = doc.paths['/v1/upload'].post.requestBody?.content ?? {};
    expect(Object.keys(upload).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(upload['multipart/form-data'].schema?.properties).toEqual(
      expect.objectContaining({ data: expect.any(Object), file: expect.objectContaining({ format: 'binary' }) }),
    );
  });

  it('fails a route with a body and no schema, and a schema missing from the document', () => {
    const withoutSchema = routes.map((r) =>
      r.method === 'POST' && r.path === '/v1/get_location' ? { ...r, inputs: [] } : r,
    );
    expect(undocumentedBodies(doc, withoutSchema)).toEqual([
      'POST /v1/get_location: takes a body but declares no schema for it (@InputBody)',
    ]);
    const stripped = JSON.parse(JSON.stringify(doc)) as OpenApi;
    delete stripped.paths['/v1/esign/reject/{orgId}/{refId}/{orderNo}'].post.requestBody;
    expect(undocumentedBodies(stripped, routes)).toEqual([
      'POST /v1/esign/reject/:orgId/:refId/:orderNo: no requestBody in the OpenAPI document',
    ]);
  });

  /** The call as its guards want it: the organisation's key, or the first signer's link token. */
  const send = (route: HandlerRoute, url: string) => {
    const name = `${route.method} ${route.path}`;
    const agent = t.http as unknown as Record<string, (u: string) => ReturnType<TestApp['http']['get']>>;
    const req = agent[route.method.toLowerCase()](url);
    if (SIGNER_LINK_ROUTES.includes(name)) return req.set('x-sign-token', token);
    return PUBLIC_ROUTES.includes(name) ? req : req.set('apikey', key);
  };

  const expectAnswer = (res: { status: number; body: { error?: string; message?: string } }, problem: InputProblem) =>
    expect({ status: res.status, error: res.body.error, message: res.body.message }).toEqual({
      status: ErrorStatus[problem.code],
      error: problem.code,
      message: problem.message,
    });

  it('answers every body that breaks its route schema with the status and message of that schema', async () => {
    let checked = 0;
    for (const route of routes) {
      const body = route.inputs.find((i) => i.place === 'body');
      if (!body) continue;
      const example = examplesOf(body.schema)[0] as Record<string, unknown>;
      const media = Object.values(doc.paths[route.docPath][route.method.toLowerCase()].requestBody?.content ?? {})[0];
      const broken = [
        ...brokenInputs(body.schema, example, propertiesOf(media?.schema), WRONG_VALUES),
        // Not an object at all.
        ...[[1, 2]].flatMap((input) => {
          const result = checkInput(body.schema, input);
          return result.ok ? [] : [{ input, problem: result.problem, what: `the body ${JSON.stringify(input)}` }];
        }),
      ];
      expect({ route: route.path, broken: broken.length > 0 }).toEqual({ route: route.path, broken: true });
      for (const { input, problem, what } of broken) {
        const url = fillWith(route.path, values);
        const req = send(route, url).set('content-type', 'application/json');
        const res = await req.send(JSON.stringify(input));
        expect({ route: `${route.method} ${route.path}`, what, ...pick(res) }).toEqual({
          route: `${route.method} ${route.path}`,
          what,
          status: ErrorStatus[problem.code],
          error: problem.code,
          message: problem.message,
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  }, 120_000);

  it('answers every query and path parameter that breaks its schema with that schema’s status and message', async () => {
    let checked = 0;
    for (const route of routes) {
      for (const input of route.inputs) {
        if (input.place === 'query') {
          const properties = propertiesOf(jsonSchemaOf(input.schema));
          for (const { input: query, problem } of brokenInputs(input.schema, {}, properties, ['', 'not-this'])) {
            const res = await send(route, fillWith(route.path, values)).query(query as Record<string, string>);
            expectAnswer(res, problem);
            checked++;
          }
        }
        if (input.place === 'param' && input.name) {
          // The first of these values the parameter's schema refuses (every path parameter schema refuses one).
          const refused = ['not-this', 'x'.repeat(100)]
            .map((value) => ({ value, result: checkInput(input.schema, value) }))
            .find(({ result }) => !result.ok);
          expect({ route: route.path, param: input.name, refused: Boolean(refused) }).toEqual({
            route: route.path,
            param: input.name,
            refused: true,
          });
          if (!refused || refused.result.ok) continue;
          const res = await send(route, fillWith(route.path, { ...values, [input.name]: refused.value }));
          expectAnswer(res, refused.result.problem);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

const pick = (res: { status: number; body: { error?: string; message?: string } }) => ({
  status: res.status,
  error: res.body.error,
  message: res.body.message,
});
