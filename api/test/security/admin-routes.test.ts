import { AdminMessages } from '@esign/contract';
import { makePng } from '@esign/test-support';
import { JobsRunner } from '../../src/modules/jobs/jobs.runner';
import { WebhooksService } from '../../src/modules/webhooks/webhooks.service';
import { inviteAndSignIn } from '../support/admin';
import {
  ADMIN_ROUTES,
  call,
  fillWith,
  isAdministration,
  routeName,
  staffRoutes,
  type Route,
} from '../support/route-walk';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from '../support/test-app';

/**
 * The organisation's administration (issue 22) with a staff user's session key: every administrator's route (users,
 * API keys, webhooks, deliveries, the organisation's settings, logo and seal; ADMIN_ROUTES) answers 403 FORBIDDEN with
 * AdminMessages.adminOnly, whatever the body (a plausible one: the refusal is about the role, not the input), on the
 * organisation's own objects, the staff user's own record included; and nothing changes. Every other staff route
 * stays open to staff (none of them answers adminOnly).
 */

const TABLES = [
  'organisations',
  'users',
  'api_keys',
  'password_links',
  'webhooks',
  'webhook_deliveries',
  'seal_keys',
  'outbox_messages',
  'jobs',
];

describe("a staff user's session key on the administration's routes", () => {
  let t: TestApp;
  let admin: string;
  let staff: { id: string; key: string };
  let routes: Route[];
  let ids: Record<string, string>;
  let before: string;

  const snapshot = async (): Promise<string> => {
    const out: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const rows = (await t.db.query(`SELECT * FROM ${table}`)) as Record<string, unknown>[];
      // The guard writes a valid key's last use; that is not a change made by the call.
      out[table] = rows
        .map((r) => (table === 'api_keys' ? { ...r, last_used_at: undefined } : r))
        .map((r) => JSON.stringify(r))
        .sort();
    }
    return JSON.stringify(out);
  };

  /** The route's path on the organisation's own objects (the staff user's own record for /api/users/:id). */
  const pathFor = (route: Route): string => {
    const id = route.path.startsWith('/api/users')
      ? staff.id
      : route.path.startsWith('/api/api-keys')
        ? ids.apiKey
        : route.path.startsWith('/api/webhooks')
          ? ids.webhook
          : route.path.startsWith('/api/deliveries')
            ? ids.delivery
            : 'x1';
    return fillWith(route.path, { orgId: 'acme', id });
  };

  /** What an administrator would send to each route: the staff user promoting themselves, a key of their own… */
  const BODIES: Record<string, object> = {
    'POST /api/users': { username: 'accomplice', email: 'accomplice@example.in', role: 'admin' },
    'PUT /api/users/:id': { role: 'admin' },
    'POST /api/api-keys': { name: 'my own key' },
    'POST /api/webhooks': { url: 'https://attacker.example.com/hook', events: ['*'] },
    'PUT /api/webhooks/:id': { url: 'https://attacker.example.com/hook' },
    'PUT /api/organisations/:orgId': { name: 'Taken over', mode: 'live' },
  };

  const attempt = (route: Route, key: string) => {
    const name = routeName(route);
    const req = call(t, route, pathFor(route)).set('apikey', key);
    if (name === 'PUT /api/organisations/:orgId/logo')
      return req.attach(
        'file',
        makePng(8, 8, () => [255, 0, 0, 255]),
        'logo.png',
      );
    if (name === 'PUT /api/organisations/:orgId/seal')
      return req.field('password', 'x').attach('file', Buffer.from('not a p12'), 'seal.p12');
    return route.method === 'GET' || route.method === 'DELETE' ? req : req.send(BODIES[name] ?? {});
  };

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    admin = await signIn(t, 'alice', 'alice-password');
    staff = await inviteAndSignIn(t, admin, { username: 'sam', email: 'sam@example.in' });
    const hook = await t.http
      .post('/api/webhooks')
      .set('apikey', admin)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['*'] })
      .expect(201);
    const apiKey = await t.http.post('/api/api-keys').set('apikey', admin).send({ name: 'ci' }).expect(201);
    await t.db.transaction((m) => t.app.get(WebhooksService).emit(m, 'acme', 'request.completed', { refId: 1 }));
    await t.app.get(JobsRunner).drain();
    const [delivery] = (await t.db.query('SELECT id FROM webhook_deliveries')) as { id: number }[];
    ids = { webhook: hook.body.id, apiKey: apiKey.body.id, delivery: String(delivery.id) };
    // The seal exists before the walk (GET would otherwise make the development one).
    await t.http.get('/api/organisations/acme/seal').set('apikey', admin).expect(200);
    routes = staffRoutes(t);
    before = await snapshot();
  });
  afterAll(() => t.close());

  it('lists every registered route of the administration, and only those', () => {
    expect(routes.filter(isAdministration).map(routeName).sort()).toEqual(ADMIN_ROUTES);
  });

  it('answers 403 FORBIDDEN (adminOnly) on each, and an administrator gets through', async () => {
    const problems: unknown[] = [];
    for (const route of routes.filter((r) => ADMIN_ROUTES.includes(routeName(r)))) {
      const res = await attempt(route, staff.key);
      if (res.status !== 403 || res.body.error !== 'FORBIDDEN' || res.body.message !== AdminMessages.adminOnly)
        problems.push({ route: routeName(route), status: res.status, body: res.body });
    }
    expect(problems).toEqual([]);
    // The same calls' reads with an administrator's key (so the 403 above is the role's, not a wrong path).
    for (const route of routes.filter((r) => ADMIN_ROUTES.includes(routeName(r)) && r.method === 'GET'))
      expect({ route: routeName(route), status: (await attempt(route, admin)).status }).toEqual({
        route: routeName(route),
        status: 200,
      });
  });

  it('changed nothing: users, keys, links, webhooks, deliveries, the organisation, its seal, messages, jobs', async () => {
    expect(await snapshot()).toEqual(before);
    expect((await t.http.get('/api/whoami').set('apikey', staff.key).expect(200)).body.role).toBe('staff');
  });

  it("leaves every other staff route to staff (none answers the administrator's refusal)", async () => {
    const others = routes.filter((r) => !ADMIN_ROUTES.includes(routeName(r)));
    expect(others.length).toBeGreaterThan(25);
    const refused: string[] = [];
    for (const route of others) {
      // Sign-out ends the session the walk uses: its own test (auth.test.ts) covers it.
      if (routeName(route) === 'DELETE /consumers/:username/key-auth') continue;
      const res = await attempt(route, staff.key);
      if (res.body?.message === AdminMessages.adminOnly) refused.push(routeName(route));
    }
    expect(refused).toEqual([]);
  });
});
