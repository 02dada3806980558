import { createHash } from 'node:crypto';
import { Messages } from '@esign/contract';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

const invalid = {
  code: 401,
  error: 'INVALID_CREDENTIALS',
  message: Messages.invalidCredentials,
  status: { statusMessage: Messages.invalidCredentials },
};

describe('staff sign-in through /consumers', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
  });
  afterEach(() => t.close());

  it('issues a fresh session key for the right Basic credentials, and it works on staff calls', async () => {
    const res = await t.http
      .get('/consumers/alice/key-auth')
      .auth('alice', 'alice-password')
      .expect(200)
      .expect('Cache-Control', 'no-store');
    expect(res.body.next).toBeNull();
    expect(res.body.data).toHaveLength(1);
    const { key, idle_timeout, expires_at, created_at } = res.body.data[0];
    expect(key).toMatch(/^ess_[A-Za-z0-9_-]{43}$/); // 256 random bits
    expect(idle_timeout).toBe(3600);
    expect(expires_at - created_at).toBe(12 * 3600);
    const second = await signIn(t, 'alice', 'alice-password');
    expect(second).not.toBe(key);
    const org = await t.http.get('/api/organisations/acme').set('apikey', key).expect(200);
    expect(org.body).toMatchObject({ id: 'acme', name: 'Org acme', mode: 'test', tag: 'acme-tag' });
  });

  it('returns the consumer record with tags [orgId, tag, mode]', async () => {
    const res = await t.http.get('/consumers/alice').auth('alice', 'alice-password').expect(200);
    expect(res.body).toMatchObject({ username: 'alice', custom_id: 'acme', tags: ['acme', 'acme-tag', 'test'] });
    await t.http
      .put('/api/organisations/acme')
      .set('apikey', await signIn(t, 'alice', 'alice-password'))
      .send({ mode: 'live' })
      .expect(200);
    const live = await t.http.get('/consumers/alice').auth('alice', 'alice-password').expect(200);
    expect(live.body.tags).toEqual(['acme', 'acme-tag', 'live']);
  });

  it.each([
    ['a wrong password', (h: TestApp['http']) => h.get('/consumers/alice/key-auth').auth('alice', 'wrong-password')],
    ['an unknown user', (h: TestApp['http']) => h.get('/consumers/nobody/key-auth').auth('nobody', 'alice-password')],
    ['no Authorization header', (h: TestApp['http']) => h.get('/consumers/alice/key-auth')],
    [
      'a Basic user other than the path',
      (h: TestApp['http']) => h.get('/consumers/alice/key-auth').auth('bob', 'alice-password'),
    ],
    [
      'a malformed header',
      (h: TestApp['http']) => h.get('/consumers/alice/key-auth').set('Authorization', 'Basic !!!'),
    ],
    [
      'the consumer call with a wrong password',
      (h: TestApp['http']) => h.get('/consumers/alice').auth('alice', 'nope-nope'),
    ],
  ])('answers 401 with the message the console maps to "User doesn\'t exist !" for %s', async (_name, call) => {
    const res = await call(t.http).expect(401);
    expect(res.body).toEqual(invalid);
  });

  it('stores passwords as argon2id and keys only as SHA-256 hashes', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    const [user] = await t.db.query("SELECT password_hash FROM users WHERE username = 'alice'");
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    const rows: Record<string, unknown>[] = await t.db.query('SELECT * FROM api_keys');
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('throttles repeated failures for a username, even with the right password, until the window passes', async () => {
    for (let i = 0; i < 5; i++) {
      await t.http.get('/consumers/alice/key-auth').auth('alice', `wrong-${i}`).expect(401);
    }
    const blocked = await t.http.get('/consumers/alice/key-auth').auth('alice', 'alice-password').expect(429);
    expect(blocked.body).toMatchObject({
      code: 429,
      error: 'TOO_MANY_ATTEMPTS',
      message: Messages.tooManyLoginFailures,
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
    await t.http.get('/consumers/alice').auth('alice', 'alice-password').expect(429);
    t.clock.advance(901);
    await t.http.get('/consumers/alice/key-auth').auth('alice', 'alice-password').expect(200);
  });

  it('a successful sign-in clears the failures; another username is not blocked by them', async () => {
    await createOrgWithUser(t, 'other', 'bob', 'bob-password');
    for (let i = 0; i < 4; i++) await t.http.get('/consumers/alice/key-auth').auth('alice', 'bad-password').expect(401);
    await signIn(t, 'alice', 'alice-password');
    for (let i = 0; i < 4; i++) await t.http.get('/consumers/alice/key-auth').auth('alice', 'bad-password').expect(401);
    await signIn(t, 'alice', 'alice-password');
    for (let i = 0; i < 5; i++) await t.http.get('/consumers/alice/key-auth').auth('alice', 'bad-password').expect(401);
    await t.http.get('/consumers/alice/key-auth').auth('alice', 'alice-password').expect(429);
    await signIn(t, 'bob', 'bob-password');
  });

  it('throttles one client address that guesses across many usernames', async () => {
    for (let i = 0; i < 20; i++)
      await t.http.get(`/consumers/user${i}/key-auth`).auth(`user${i}`, 'guess-guess').expect(401);
    await t.http.get('/consumers/alice/key-auth').auth('alice', 'alice-password').expect(429);
  });

  it('expires a session key after 3600 s without use, and keeps it alive while it is used', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    for (let i = 0; i < 5; i++) {
      t.clock.advance(3000);
      await t.http.get('/api/organisations/acme').set('apikey', key).expect(200);
    }
    t.clock.advance(3601);
    const res = await t.http.get('/api/organisations/acme').set('apikey', key).expect(401);
    expect(res.body).toMatchObject({ code: 401, error: 'SESSION_EXPIRED', message: Messages.sessionExpired });
  });

  it('ends a session key 12 hours after sign-in however busy it is', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    for (let elapsed = 0; elapsed + 3000 < 12 * 3600; elapsed += 3000) {
      t.clock.advance(3000);
      await t.http.get('/api/organisations/acme').set('apikey', key).expect(200);
    }
    t.clock.advance(3000);
    await t.http.get('/api/organisations/acme').set('apikey', key).expect(401);
  });

  it('sign-out revokes the key it is called with, and only for its own user', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    const other = await signIn(t, 'alice', 'alice-password');
    await t.http.delete('/consumers/bob/key-auth').set('apikey', key).expect(403);
    await t.http.delete('/consumers/alice/key-auth').set('apikey', key).expect(204);
    const after = await t.http.get('/api/organisations/acme').set('apikey', key).expect(401);
    expect(after.body).toEqual(invalid);
    await t.http.delete('/consumers/alice/key-auth').set('apikey', key).expect(401);
    await t.http.get('/api/organisations/acme').set('apikey', other).expect(200);
  });

  it('rejects calls without a key or with an unknown one', async () => {
    const none = await t.http.get('/api/organisations/acme').expect(401);
    expect(none.body).toMatchObject({ code: 401, error: 'NO_API_KEY', message: Messages.noApiKey });
    const unknown = await t.http.get('/api/organisations/acme').set('apikey', 'ess_not-a-real-key').expect(401);
    expect(unknown.body).toEqual(invalid);
  });
});

describe('organisation API keys', () => {
  let t: TestApp;
  let session: string;
  beforeEach(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    session = await signIn(t, 'alice', 'alice-password');
  });
  afterEach(() => t.close());

  it('are named, shown once, hashed at rest, long-lived and revocable', async () => {
    const created = await t.http
      .post('/api/api-keys')
      .set('apikey', session)
      .send({ name: 'nightly bulk' })
      .expect(201);
    expect(created.body.key).toMatch(/^eso_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({
      name: 'nightly bulk',
      revoked_at: null,
      prefix: created.body.key.slice(0, 10),
    });
    const key: string = created.body.key;

    const list = await t.http.get('/api/api-keys').set('apikey', key).expect(200);
    expect(list.headers['content-range']).toBe('api-keys 0-0/1');
    expect(JSON.stringify(list.body)).not.toContain(key);
    const rows: Record<string, unknown>[] = await t.db.query("SELECT * FROM api_keys WHERE kind = 'org'");
    expect(JSON.stringify(rows)).not.toContain(key);

    t.clock.advance(30 * 86_400);
    await t.http.get('/api/organisations/acme').set('apikey', key).expect(200);

    // The session idled out meanwhile; the organisation key did not.
    await t.http.get('/api/api-keys').set('apikey', session).expect(401);
    const fresh = await signIn(t, 'alice', 'alice-password');
    const revoked = await t.http.delete(`/api/api-keys/${created.body.id}`).set('apikey', fresh).expect(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    await t.http.get('/api/organisations/acme').set('apikey', key).expect(401);
  });

  it("validates the name and cannot revoke another organisation's key", async () => {
    const bad = await t.http.post('/api/api-keys').set('apikey', session).send({ name: '   ' }).expect(400);
    expect(bad.body.error).toBe('VALIDATION_FAILED');
    await t.http.post('/api/api-keys').set('apikey', session).send({ name: 'x', extra: 1 }).expect(400);
    await createOrgWithUser(t, 'other', 'bob', 'bob-password');
    const bobs = await signIn(t, 'bob', 'bob-password');
    const created = await t.http.post('/api/api-keys').set('apikey', bobs).send({ name: 'bob key' }).expect(201);
    await t.http.delete(`/api/api-keys/${created.body.id}`).set('apikey', session).expect(404);
    await t.http.get('/api/organisations/other').set('apikey', created.body.key).expect(200);
  });
});

describe('GET /api/whoami', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
  });
  afterAll(() => t.close());

  it('names the user and organisation of a session key', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    const res = await t.http.get('/api/whoami').set('apikey', key).expect(200);
    expect(res.body).toEqual({ kind: 'session', orgId: 'acme', username: 'alice', keyName: null, role: 'admin' });
  });

  it('names the organisation and key name of an organisation API key', async () => {
    const key = await orgApiKey(t, 'acme', 'ci-runner');
    const res = await t.http.get('/api/whoami').set('apikey', key).expect(200);
    // An organisation key is the organisation's own credential: it acts as an administrator (issue 22).
    expect(res.body).toEqual({ kind: 'org', orgId: 'acme', username: null, keyName: 'ci-runner', role: 'admin' });
  });

  it('answers 401 without a key or with an unknown one', async () => {
    await t.http.get('/api/whoami').expect(401);
    await t.http.get('/api/whoami').set('apikey', 'ess_not-a-key').expect(401);
  });
});
