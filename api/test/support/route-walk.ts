import { CONSOLE_ROUTES } from '@esign/contract';
import { RECIPIENT_LIST_ROUTES, SIGNER_LINK_ROUTES } from './routes';
import type { TestApp } from './test-app';

/**
 * The walk over every route the application registers, shared by tenancy.test.ts and the security suite
 * (test/security/*.test.ts): the routes that take no organisation key (PUBLIC_ROUTES, exact: tenancy.test.ts fails
 * on a new unguarded route until it is listed here), the registered routes read from Express, a path filled with an
 * organisation, and a call by method.
 */

export const PUBLIC_ROUTES = [
  ...SIGNER_LINK_ROUTES,
  'GET /',
  'GET /health',
  // Readiness for load balancers; Prometheus metrics (no tenant data; METRICS_TOKEN asks for a bearer token).
  'GET /health/ready',
  'GET /metrics',
  'GET /consumers/:username/key-auth',
  'GET /consumers/:username',
  // Issue 22: the set-password page's calls; the link's token is the permission (test/users.test.ts), throttled like
  // sign-in.
  'GET /consumers/password',
  'POST /consumers/password',
  'GET /docs/logos/:orgId.png',
  // Document links carry their own expiry and HMAC (checked by the route), as they open in a new tab.
  'GET /docs/files/:orgId/:id/:kind.pdf',
  // A request's verification report as a page: the same expiry and HMAC in the link, checked by the route.
  'GET /docs/reports/:orgId/:refId/verification.html',
  // The ESP's answer comes through the signer's browser from the ESP's page: its XML signature, txn and hash are the
  // proof (test/aadhaar.test.ts). The sandbox ESP's pages stand in for an outside service.
  'POST /v1/aadhaar/response/:orgId/:requestId',
  'POST /esp-sandbox/esign',
  'POST /esp-sandbox/session/:id/aadhaar',
  'POST /esp-sandbox/session/:id/otp',
  'POST /esp-sandbox/session/:id/cancel',
  // The built-in development TSA (RFC 3161 over HTTP, like any public TSA): it signs a hash and the time, holds no
  // tenant data, and is throttled per address (test/timestamps.test.ts); 404 when TSA_URLS names real TSAs.
  'POST /tsa',
  // The desktop signer agent logs in with the e-mail or phone of a request and an OTP sent there (test/dsc.test.ts).
  'POST /v1/dsc/agent/login',
  'POST /v1/dsc/agent/verify',
  // The development PKI as a public CA publishes it (issue 19): its OCSP responder, CRLs and CA certificates are named
  // in every certificate it issues and read by PDF verifiers (pdfsig, Acrobat, esign-cli) with no credentials. They
  // hold nothing secret (the status of certificates that are in the signed documents anyway) and take no organisation.
  'POST /pki/ocsp',
  'GET /pki/ocsp/*request',
  'GET /pki/crl/:ca.crl',
  'GET /pki/ca/:ca.crt',
  // The recipient's own list (/list): an OTP sent to the e-mail or phone, then a short-lived list token.
  ...RECIPIENT_LIST_ROUTES,
  // The console's pages (every StaffRoutes entry, the resources' routes of issue 22 among them): the same HTML shell
  // for anyone; the data behind them comes from the guarded API with the session key the console keeps.
  ...CONSOLE_ROUTES.map((route) => `GET ${route}`),
  'GET /esign/:orgId/:refId/:order',
  'GET /success/:orgId/:requestId',
  'GET /failed/:orgId/:requestId',
  'GET /retry-mail-sent',
  // The dev outbox (invitations and OTPs for developers and the e2e tests); 404 under NODE_ENV=production.
  'GET /dev/outbox',
  // OpenAPI documentation (served by @nestjs/swagger).
  'GET /api-docs',
  'GET /api-docs-json',
  'GET /api-docs-yaml',
  'GET /api-docs/',
  'GET /api-docs/LICENSE',
  'GET /api-docs/api-docs/swagger-ui-init.js',
  'GET /api-docs/index.html',
  'GET /api-docs/swagger-ui-init.js',
].sort();

/**
 * The routes only an organisation administrator may call (issue 22): users, API keys, webhooks and their deliveries,
 * the organisation's settings, logo and seal. A staff user's session key gets 403 on each
 * (test/security/admin-routes.test.ts, which also fails on a registered route under these prefixes missing here).
 */
export const ADMIN_ROUTES = [
  'GET /api/users',
  'POST /api/users',
  'GET /api/users/:id',
  'PUT /api/users/:id',
  'POST /api/users/:id/password-link',
  'GET /api/api-keys',
  'POST /api/api-keys',
  'GET /api/api-keys/:id',
  'DELETE /api/api-keys/:id',
  'GET /api/webhooks',
  'POST /api/webhooks',
  'GET /api/webhooks/:id',
  'PUT /api/webhooks/:id',
  'DELETE /api/webhooks/:id',
  'POST /api/webhooks/:id/secret',
  'GET /api/webhooks/:id/deliveries',
  'GET /api/deliveries',
  'GET /api/deliveries/:id',
  'POST /api/deliveries/:id/redeliver',
  'PUT /api/organisations/:orgId',
  'PUT /api/organisations/:orgId/logo',
  'GET /api/organisations/:orgId/seal',
  'PUT /api/organisations/:orgId/seal',
  // Issue 24: a signer's data.
  'POST /api/signers/export',
  'POST /api/signers/erase',
].sort();

/** Where the administration's routes live: a registered route here that ADMIN_ROUTES does not list fails the walk. */
export const isAdministration = (r: Route): boolean =>
  /^\/api\/(users|api-keys|webhooks|deliveries|signers)(\/|$)/.test(r.path) ||
  (r.path.startsWith('/api/organisations/') && r.method !== 'GET') ||
  /^\/api\/organisations\/[^/]+\/seal$/.test(r.path);

export const ORG_PARAM = /^(org_?id|client_orgid)$/i;

export interface Route {
  method: string;
  path: string;
}

export function registeredRoutes(t: TestApp): Route[] {
  const express = t.app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string | string[]; methods: Record<string, boolean> } }[] };
  };
  const routes: Route[] = [];
  for (const layer of express.router.stack) {
    if (!layer.route) continue;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    for (const path of paths) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') routes.push({ method: method.toUpperCase(), path });
      }
    }
  }
  return routes;
}

export function fill(path: string, orgId: string): string {
  return path
    .replace(/:([A-Za-z_]+)/g, (_m, name: string) => (ORG_PARAM.test(name) ? orgId : 'x1'))
    .replace(/\*[A-Za-z_]+/g, 'x1');
}

export function call(t: TestApp, route: Route, url: string) {
  const agent = t.http as unknown as Record<string, (u: string) => ReturnType<TestApp['http']['get']>>;
  return agent[route.method.toLowerCase()](url);
}

/** "METHOD /path" of a route, as PUBLIC_ROUTES and SIGNER_LINK_ROUTES list them. */
export const routeName = (r: Route): string => `${r.method} ${r.path}`;

/**
 * A route's path with each parameter taken from `values` (by its name), organisation parameters from `values.orgId`,
 * and any other parameter `fallback`.
 */
export function fillWith(path: string, values: Record<string, string>, fallback = 'x1'): string {
  return path
    .replace(
      /:([A-Za-z_]+)/g,
      (_m, name: string) => values[name] ?? (ORG_PARAM.test(name) ? values.orgId : undefined) ?? fallback,
    )
    .replace(/\*[A-Za-z_]+/g, fallback);
}

/** The routes that need an organisation key (every route not listed in PUBLIC_ROUTES). */
export const staffRoutes = (t: TestApp): Route[] =>
  registeredRoutes(t).filter((r) => !PUBLIC_ROUTES.includes(routeName(r)));
