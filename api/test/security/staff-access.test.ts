import { WebhooksService } from '../../src/modules/webhooks/webhooks.service';
import { readFixture } from '../support/fixtures';
import { uploadOk } from '../support/requests';
import { call, fillWith, routeName, staffRoutes, type Route } from '../support/route-walk';
import { sendForSigning } from '../support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from '../support/test-app';

/**
 * Every staff route (the registered routes not listed as public, support/route-walk.ts) called against organisation
 * B's data with the wrong credentials: A's session key and A's organisation key, no key, B's session key after
 * sign-out, B's revoked organisation key, and B's session keys past their absolute (12 h) and idle (3600 s) limits.
 * Each call answers 401, 403 or 404 (never 2xx, never 5xx), carries none of B's data, and the tables hold exactly
 * what they held before.
 */

const VICTIM = {
  name: 'Bharati Victim',
  email: 'bharati.victim@example.in',
  phoneNumber: '9811122233',
  observer: false,
  signature_type: 'e-Signature',
};
const FILE_NAME = 'victim-contract-b.pdf';
const HOOK_URL = 'https://hooks.victim-b.example.in/esign';
const TABLES = [
  'organisations',
  'users',
  'api_keys',
  'requests',
  'parties',
  'templates',
  'webhooks',
  'webhook_deliveries',
  'password_links',
  'audit_events',
];

describe('staff routes refuse wrong, missing, revoked and expired keys, and leak nothing of the target', () => {
  let t: TestApp;
  let routes: Route[];
  let orgKeyA: string;
  let sessionA: string;
  let signedOutB: string;
  let revokedOrgKeyB: string;
  let maxedOutB: string;
  let idleB: string;
  let ids: Record<string, string>;
  let markers: string[];
  let before: string;

  const snapshot = async (): Promise<string> => {
    const out: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const rows = (await t.db.query(`SELECT * FROM ${table}`)) as Record<string, unknown>[];
      // A valid key's last use is written by the guard; that is not a change made by the call.
      out[table] = rows
        .map((r) => (table === 'api_keys' ? { ...r, last_used_at: undefined } : r))
        .map((r) => JSON.stringify(r))
        .sort();
    }
    return JSON.stringify(out);
  };

  /** The path of a route, naming B and B's own objects wherever the route takes a parameter. */
  const pathFor = (route: Route): string => {
    const id = route.path.startsWith('/api/webhooks')
      ? ids.webhook
      : route.path.startsWith('/api/api-keys')
        ? ids.apiKey
        : route.path.startsWith('/api/users')
          ? ids.user
          : route.path.startsWith('/api/deliveries')
            ? ids.delivery
            : route.path.includes('/templates')
              ? ids.template
              : route.path.startsWith('/api/drafts')
                ? ids.draft
                : ids.refId;
    return fillWith(route.path, {
      orgId: 'org-b',
      refId: ids.refId,
      id,
      username: 'bob',
      order: '1',
      orderNo: '1',
    });
  };

  /**
   * A body that names B's objects (for the calls that take one), without naming the organisation, and that the route's
   * schema takes (so the answer is about B's objects, not about the body).
   */
  const bodyFor = (route: Route) =>
    /\/(secret|redeliver|reseal|password-link|retry)$/.test(route.path)
      ? {}
      : route.path.endsWith('/cancel')
        ? { reason: 'hijacked' }
        : route.path.startsWith('/api/users')
          ? { role: 'admin' }
          : route.path.startsWith('/api/webhooks')
            ? { url: 'https://attacker.example.com/hook', active: false }
            : {
                data: [{ refId: Number(ids.refId), order: 1, pageNo: [1] }],
                refId: Number(ids.refId),
                name: 'hijacked',
              };

  const attempt = (route: Route, key: string | null, nameB: boolean) => {
    let req = call(t, route, pathFor(route));
    if (key) req = req.set('apikey', key);
    if (nameB) req = req.set('org-id', 'org-b');
    return route.method === 'GET' || route.method === 'HEAD' ? req : req.send(bodyFor(route));
  };

  const walk = async (
    key: string | null,
    allowed: number[],
    options: { nameB?: boolean; only?: (r: Route) => boolean; error?: string } = {},
  ): Promise<number> => {
    const problems: unknown[] = [];
    let n = 0;
    for (const route of routes.filter(options.only ?? (() => true))) {
      const res = await attempt(route, key, options.nameB ?? true);
      n++;
      const text = `${res.text ?? ''} ${JSON.stringify(res.headers)}`;
      // What the caller sent (an id in the path) may be echoed in the error; nothing else of B may appear.
      const sent = `${pathFor(route)} ${JSON.stringify(bodyFor(route))}`;
      const leaked = markers.filter((m) => text.includes(m) && !sent.includes(m));
      if (!allowed.includes(res.status) || leaked.length || (options.error && res.body?.error !== options.error))
        problems.push({ route: routeName(route), status: res.status, body: res.body, leaked });
    }
    expect(problems).toEqual([]);
    return n;
  };

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'org-a', 'alice', 'alice-password');
    await createOrgWithUser(t, 'org-b', 'bob', 'bob-password');
    orgKeyA = await orgApiKey(t, 'org-a', 'attacker');
    const keyB = await orgApiKey(t, 'org-b', 'victim');

    // B's data: a sent request, a draft, a template, a webhook and a named API key.
    const sent = await sendForSigning(
      t,
      keyB,
      'org-b',
      { recipients: [VICTIM], otpRequired: false, filename: FILE_NAME },
      [{ order: 1, pageNo: [1] }],
    );
    const draft = await uploadOk(t, keyB, 'org-b', { recipients: [VICTIM], filename: FILE_NAME });
    await t.http
      .post('/v1/templates')
      .set('apikey', keyB)
      .field('template_name', 'Victim template B')
      .attach('file', readFixture('pdfs', 'normal.pdf'), { filename: FILE_NAME, contentType: 'application/pdf' })
      .expect((res) => expect(res.status).toBeLessThan(300));
    const [template] = (await t.db.query(`SELECT template_id AS id FROM templates WHERE org_id = 'org-b'`)) as {
      id: unknown;
    }[];
    const hook = await t.http
      .post('/api/webhooks')
      .set('apikey', keyB)
      .send({ url: HOOK_URL, events: ['*'] })
      .expect(201);
    const named = await t.http.post('/api/api-keys').set('apikey', keyB).send({ name: 'victim-ci' }).expect(201);
    // A delivery of B's webhook (it fails: nothing listens there), and B's user.
    await t.db.transaction((m) => t.app.get(WebhooksService).emit(m, 'org-b', 'request.completed', { refId: 1 }));
    const [delivery] = (await t.db.query("SELECT id FROM webhook_deliveries WHERE org_id = 'org-b'")) as {
      id: number;
    }[];
    const [bob] = (await t.db.query("SELECT id FROM users WHERE username = 'bob'")) as { id: string }[];
    ids = {
      refId: String(sent.refId),
      draft: String(draft.refId),
      template: String(template.id),
      webhook: String(hook.body.id),
      apiKey: String(named.body.id),
      user: bob.id,
      delivery: String(delivery.id),
    };
    markers = [
      ids.refId,
      ids.draft,
      ids.webhook,
      ids.apiKey,
      ids.user,
      FILE_NAME,
      VICTIM.name,
      VICTIM.email,
      '98111',
      HOOK_URL,
      'victim-ci',
      'Victim template B',
      'org-b-tag',
      hook.body.secret,
    ];
    if (ids.template.length > 3) markers.push(ids.template);

    // A session key used every 50 minutes: never idle, but past the 12-hour limit.
    maxedOutB = await signIn(t, 'bob', 'bob-password');
    for (let elapsed = 3000; elapsed < t.config.session.maxSeconds; elapsed += 3000) {
      t.clock.advance(3000);
      await t.http.get('/api/whoami').set('apikey', maxedOutB).expect(200);
    }
    t.clock.advance(3000);

    // Signed out, and an organisation key revoked under /api/api-keys.
    signedOutB = await signIn(t, 'bob', 'bob-password');
    await t.http.delete('/consumers/bob/key-auth').set('apikey', signedOutB).expect(204);
    const revoked = await t.http.post('/api/api-keys').set('apikey', keyB).send({ name: 'revoked' }).expect(201);
    revokedOrgKeyB = revoked.body.key;
    await t.http.delete(`/api/api-keys/${revoked.body.id}`).set('apikey', keyB).expect(200);

    idleB = await signIn(t, 'bob', 'bob-password');
    sessionA = await signIn(t, 'alice', 'alice-password');
    routes = staffRoutes(t);
    before = await snapshot();
  });
  afterAll(() => t.close());

  it('walks the staff routes (the walk would prove nothing on an empty list)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(35);
    expect(routes.map(routeName)).toEqual(expect.arrayContaining(['DELETE /api/webhooks/:id', 'POST /v1/upload']));
  });

  it.each([
    ['session key', () => sessionA],
    ['organisation key', () => orgKeyA],
  ])("A's %s naming B (org-id header, B's ids in the path and body): 403 or 404", async (_kind, key) => {
    expect(await walk(key(), [403, 404])).toBe(routes.length);
  });

  it("A's organisation key with only B's ids in the path (no organisation named): 403 or 404", async () => {
    const withParams = (r: Route) => /[:*]/.test(r.path);
    const n = await walk(orgKeyA, [403, 404], { nameB: false, only: withParams });
    expect(n).toBeGreaterThanOrEqual(15);
  });

  it('no key: 401 NO_API_KEY', async () => {
    await walk(null, [401], { error: 'NO_API_KEY' });
  });

  it("B's signed-out session key and B's revoked organisation key: 401", async () => {
    await walk(signedOutB, [401], { error: 'INVALID_CREDENTIALS' });
    await walk(revokedOrgKeyB, [401], { error: 'INVALID_CREDENTIALS' });
  });

  it("B's session key past SESSION_MAX_SECONDS, then one idle past SESSION_IDLE_SECONDS: 401 SESSION_EXPIRED", async () => {
    await walk(maxedOutB, [401], { error: 'SESSION_EXPIRED', nameB: false });
    t.clock.advance(t.config.session.idleSeconds + 1);
    await walk(idleB, [401], { error: 'SESSION_EXPIRED', nameB: false });
  });

  it('changed nothing in organisations, users, api_keys, requests, parties, templates, webhooks and their deliveries, password links, audit_events', async () => {
    expect(await snapshot()).toEqual(before);
  });
});
