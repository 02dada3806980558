import { Messages } from '@esign/contract';
import { SIGNER_LINK_ROUTES } from './support/routes';
import { call, fill, PUBLIC_ROUTES, registeredRoutes, type Route } from './support/route-walk';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * Walks every route the application registers (so routes added in later steps are covered without touching this
 * test) and proves that a key of organisation A gets 403, and never data, whenever the call names organisation B:
 * in the path, the query, a JSON or multipart body, or a header. Routes that take no organisation key at all must be
 * listed in PUBLIC_ROUTES (support/route-walk.ts), so that a new unguarded route fails this test until someone decides it is public.
 */

const forbidden = {
  code: 403,
  error: 'FORBIDDEN_ORGANISATION',
  message: Messages.cannotConsume,
  status: { statusMessage: Messages.cannotConsume },
};

describe('tenant isolation on every registered route', () => {
  let t: TestApp;
  let keyA: string;
  let orgKeyA: string;
  let routes: Route[];

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'org-a', 'alice', 'alice-password');
    await createOrgWithUser(t, 'org-b', 'bob', 'bob-password');
    keyA = await signIn(t, 'alice', 'alice-password');
    const created = await t.http.post('/api/api-keys').set('apikey', keyA).send({ name: 'ci' }).expect(201);
    orgKeyA = created.body.key;
    routes = registeredRoutes(t);
  });
  afterAll(() => t.close());

  it('finds the routes (the walk would prove nothing on an empty list)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(PUBLIC_ROUTES.length + 6);
    expect(routes).toContainEqual({ method: 'GET', path: '/api/organisations/:orgId' });
  });

  it('answers 401 NO_API_KEY without a key on every route not listed as public, and the public list is exact', async () => {
    const open: string[] = [];
    for (const route of routes) {
      const res = await call(t, route, fill(route.path, 'org-a'));
      if (res.status !== 401 || res.body.error !== 'NO_API_KEY') open.push(`${route.method} ${route.path}`);
    }
    expect(open.sort()).toEqual(PUBLIC_ROUTES);
  });

  it('answers 401 INVALID_LINK on every recipient route without a link token, even with an apikey', async () => {
    for (const route of routes.filter((r) => SIGNER_LINK_ROUTES.includes(`${r.method} ${r.path}`))) {
      for (const withKey of [false, true]) {
        const attempt = call(t, route, fill(route.path, 'org-a'));
        const res = await (withKey ? attempt.set('apikey', keyA) : attempt);
        expect({ route: `${route.method} ${route.path}`, status: res.status, error: res.body.error }).toEqual({
          route: `${route.method} ${route.path}`,
          status: 401,
          error: 'INVALID_LINK',
        });
      }
    }
  });

  it.each([
    ['a session key', () => keyA],
    ['an organisation API key', () => orgKeyA],
  ])('answers 403 with %s of A on every guarded route that names organisation B anywhere', async (_kind, key) => {
    const guarded = routes.filter((r) => !PUBLIC_ROUTES.includes(`${r.method} ${r.path}`));
    expect(guarded.length).toBeGreaterThan(0);
    let checks = 0;
    for (const route of guarded) {
      const hasOrgParam = /:(org_?id|client_orgid)\b/i.test(route.path);
      const own = fill(route.path, 'org-a');
      const attempts = [
        ...(hasOrgParam ? [call(t, route, fill(route.path, 'org-b')).set('apikey', key())] : []),
        call(t, route, `${own}?orgId=org-b`).set('apikey', key()),
        call(t, route, own).set('apikey', key()).set('org-id', 'org-b'),
        ...(route.method === 'GET' || route.method === 'HEAD'
          ? []
          : [
              call(t, route, own).set('apikey', key()).send({ orgId: 'org-b' }),
              call(t, route, own).set('apikey', key()).send({ org_id: 'org-b' }),
              call(t, route, own)
                .set('apikey', key())
                .field('orgId', 'org-b')
                .attach('file', Buffer.from('%PDF-1.4\n'), 'a.pdf'),
            ]),
      ];
      for (const attempt of attempts) {
        const res = await attempt;
        expect({ route: `${route.method} ${route.path}`, status: res.status, body: res.body }).toEqual({
          route: `${route.method} ${route.path}`,
          status: 403,
          body: forbidden,
        });
        checks++;
      }
    }
    expect(checks).toBeGreaterThanOrEqual(guarded.length * 2);
  });

  it('lets A reach its own organisation and nothing of B', async () => {
    const own = await t.http.get('/api/organisations/org-a').set('apikey', keyA).expect(200);
    expect(own.body.id).toBe('org-a');
    const other = await t.http
      .put('/api/organisations/org-b')
      .set('apikey', keyA)
      .send({ name: 'hijacked' })
      .expect(403);
    expect(other.body).toEqual(forbidden);
    const keyB = await signIn(t, 'bob', 'bob-password');
    const b = await t.http.get('/api/organisations/org-b').set('apikey', keyB).expect(200);
    expect(b.body.name).toBe('Org org-b');
  });
});
