import { Writable } from 'node:stream';
import { AdminMessages, PASSWORD_LINK_HOURS, StaffRoutes } from '@esign/contract';
import { OutboxMessageEntity, type MessageKind } from '../src/modules/notifications/outbox-message.entity';
import { inviteAndSignIn, latestPasswordToken } from './support/admin';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * The organisation's users (issue 22): an administrator invites by e-mail, the invited user sets a password with the
 * link from the outbox and signs in; resets, disabling, roles, the last administrator (also under parallel calls),
 * and what a staff user may not do.
 */
describe('staff users and their set-password links', () => {
  let t: TestApp;
  let admin: string;
  const logs: string[] = [];

  const users = (key: string) => t.http.get('/api/users').set('apikey', key);
  const put = (key: string, id: string, body: object) => t.http.put(`/api/users/${id}`).set('apikey', key).send(body);
  const linkFor = (key: string, id: string) => t.http.post(`/api/users/${id}/password-link`).set('apikey', key);
  const view = (token: string) => t.http.get('/consumers/password').query({ token });
  const setPassword = (token: string, password: string) => t.http.post('/consumers/password').send({ token, password });
  const whoami = (key: string) => t.http.get('/api/whoami').set('apikey', key);
  const outbox = (to: string, kind: MessageKind) =>
    t.db.getRepository(OutboxMessageEntity).find({ where: { to, kind }, order: { id: 'ASC' } });

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await startTestApp({ LOG_LEVEL: 'info' }, { logDestination: sink });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'bob', 'bob-password');
    admin = await signIn(t, 'alice', 'alice-password');
  });
  afterAll(() => t.close());

  it('invites a user by e-mail; the link from the outbox sets the password once; the user signs in as staff', async () => {
    const invited = await t.http
      .post('/api/users')
      .set('apikey', admin)
      .send({ username: ' Ravi ', email: 'Ravi@Example.in' })
      .expect(201);
    expect(invited.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'ravi',
      email: 'ravi@example.in',
      role: 'staff',
      status: 'invited',
      disabled: false,
      link_sent_at: t.clock.now().toISOString(),
      last_login_at: null,
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });

    // The invitation: one e-mail through the outbox, the link to the console's set-password page in its body only.
    const [mail] = await outbox('ravi@example.in', 'user-invitation');
    expect(mail).toMatchObject({ channel: 'email', subject: 'Invitation to Org acme on e-Sign' });
    expect(mail.text).toContain('alice of Org acme has invited you');
    const token = await latestPasswordToken(t, 'ravi@example.in');
    expect(token).toMatch(/^pwl_[A-Za-z0-9_-]{43}$/);
    expect(mail.text).toContain(`${t.config.publicUrl}${StaffRoutes.setPassword}?token=${token}`);
    expect(mail.subject).not.toContain(token);
    // Only its SHA-256 is kept.
    expect(JSON.stringify(await t.db.query('SELECT * FROM password_links'))).not.toContain(token);

    // No password signs in before the link is used.
    for (const password of ['', 'anything-at-all'])
      await t.http.get('/consumers/ravi/key-auth').auth('ravi', password).expect(401);

    // The page checks the link without using it.
    const expires = new Date(t.clock.now().getTime() + PASSWORD_LINK_HOURS * 3_600_000).toISOString();
    const shown = { username: 'ravi', organisation: 'Org acme', purpose: 'invite', expires_at: expires };
    expect((await view(token).expect(200)).body).toEqual(shown);
    expect((await view(token).expect(200)).body).toEqual(shown);
    const short = await setPassword(token, 'short').expect(400);
    expect(short.body.message).toBe(AdminMessages.passwordTooShort);

    expect((await setPassword(token, 'ravi-passphrase').expect(200)).body).toEqual(shown);
    // Used up: the same answer as any unknown token.
    for (const res of [await view(token), await setPassword(token, 'another-passphrase')])
      expect([res.status, res.body.message]).toEqual([400, AdminMessages.passwordLinkInvalid]);

    t.clock.advance(60);
    const key = await signIn(t, 'ravi', 'ravi-passphrase');
    expect((await whoami(key).expect(200)).body).toEqual({
      kind: 'session',
      orgId: 'acme',
      username: 'ravi',
      keyName: null,
      role: 'staff',
    });
    const one = await t.http.get(`/api/users/${invited.body.id}`).set('apikey', admin).expect(200);
    expect(one.body).toMatchObject({ status: 'active', last_login_at: t.clock.now().toISOString() });

    // The token never reaches a log line (the GET carried it in its query).
    expect(logs.join('')).not.toContain(token);
    expect(logs.join('')).toContain('token=[redacted]');
  });

  it('lets staff send and read the organisation, and refuses them the administration (403)', async () => {
    const staff = await signIn(t, 'ravi', 'ravi-passphrase');
    await t.http.get('/api/requests').set('apikey', staff).expect(200);
    await t.http.get('/api/drafts').set('apikey', staff).expect(200);
    await t.http.get('/api/organisations/acme').set('apikey', staff).expect(200);
    const refusals = [
      await users(staff),
      await t.http.post('/api/users').set('apikey', staff).send({ username: 'sneaky', email: 'sneaky@example.in' }),
      await t.http.get('/api/api-keys').set('apikey', staff),
      await t.http.post('/api/api-keys').set('apikey', staff).send({ name: 'mine' }),
      await t.http.get('/api/webhooks').set('apikey', staff),
      await t.http.get('/api/deliveries').set('apikey', staff),
      await t.http.put('/api/organisations/acme').set('apikey', staff).send({ name: 'Mine now' }),
      await t.http.get('/api/organisations/acme/seal').set('apikey', staff),
    ];
    for (const res of refusals)
      expect([res.status, res.body.error, res.body.message]).toEqual([403, 'FORBIDDEN', AdminMessages.adminOnly]);
    expect(await t.db.query("SELECT username FROM users WHERE username = 'sneaky'")).toEqual([]);
    expect((await t.http.get('/api/organisations/acme').set('apikey', admin)).body.name).toBe('Org acme');
    // An organisation API key is the organisation's own credential: it acts as an administrator.
    const orgKey = await orgApiKey(t, 'acme', 'ci');
    expect((await whoami(orgKey).expect(200)).body).toMatchObject({ kind: 'org', role: 'admin' });
    await users(orgKey).expect(200);
  });

  it('lists users the ra-data-simple-rest way, in its own organisation only', async () => {
    const all = await users(admin).expect(200);
    expect(all.headers['content-range']).toBe('users 0-1/2');
    expect(all.body.map((u: { username: string }) => u.username)).toEqual(['alice', 'ravi']);
    const staff = await users(admin)
      .query({ filter: JSON.stringify({ role: 'staff' }), sort: JSON.stringify(['created_at', 'DESC']) })
      .expect(200);
    expect(staff.body.map((u: { username: string }) => u.username)).toEqual(['ravi']);
    const found = await users(admin)
      .query({ filter: JSON.stringify({ q: 'EXAMPLE.IN' }) })
      .expect(200);
    expect(found.body.map((u: { username: string }) => u.username)).toEqual(['ravi']);
    const bad = await users(admin)
      .query({ sort: JSON.stringify(['password_hash', 'ASC']) })
      .expect(400);
    expect(bad.body.message).toMatch(/^sort must be \[field, "ASC" or "DESC"\] with field one of username/);
    for (const u of all.body) expect(Object.keys(u)).not.toContain('password_hash');

    // Another organisation's administrator sees none of them, and cannot reach one by its id.
    const bob = await signIn(t, 'bob', 'bob-password');
    expect((await users(bob).expect(200)).body.map((u: { username: string }) => u.username)).toEqual(['bob']);
    const ravi = all.body[1].id as string;
    await t.http.get(`/api/users/${ravi}`).set('apikey', bob).expect(404);
    await put(bob, ravi, { disabled: true }).expect(404);
    await linkFor(bob, ravi).expect(404);
    await t.http.get(`/api/users/${ravi}`).set('apikey', bob).set('org-id', 'acme').expect(403);
    expect((await t.http.get(`/api/users/${ravi}`).set('apikey', admin)).body.disabled).toBe(false);
  });

  it('refuses a bad or taken username, a missing e-mail, and a name that is a route', async () => {
    const invite = (body: object) => t.http.post('/api/users').set('apikey', admin).send(body);
    const cases: [object, number, string][] = [
      [{ username: 'ra', email: 'x@example.in' }, 400, 'A username is 3 to 64 characters'],
      [{ username: 'ravi', email: 'other@example.in' }, 409, AdminMessages.usernameTaken],
      [{ username: 'bob', email: 'bob2@example.in' }, 409, AdminMessages.usernameTaken],
      [{ username: 'password', email: 'p@example.in' }, 409, AdminMessages.usernameTaken],
      [{ username: 'nomail' }, 400, 'email must be a string'],
      [{ username: 'badmail', email: 'not-an-address' }, 400, 'email'],
      [{ username: 'boss', email: 'boss@example.in', role: 'owner' }, 400, 'role must be one of'],
    ];
    for (const [body, status, message] of cases) {
      const res = await invite(body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(res.body.message).toContain(message);
    }
    expect((await users(admin)).headers['content-range']).toBe('users 0-1/2');
  });

  it('resets a password by a new link: earlier links die, and the new password signs the user out everywhere', async () => {
    const ravi = (await users(admin)).body.find((u: { username: string }) => u.username === 'ravi').id as string;
    const session = await signIn(t, 'ravi', 'ravi-passphrase');
    const first = await linkFor(admin, ravi).expect(200);
    expect(first.body).toEqual({
      message: 'A link to set a new password was sent to ravi@example.in.',
      user: expect.objectContaining({ id: ravi, status: 'active', link_sent_at: t.clock.now().toISOString() }),
    });
    const firstToken = await latestPasswordToken(t, 'ravi@example.in', 'password-reset');
    t.clock.advance(5);
    await linkFor(admin, ravi).expect(200);
    const token = await latestPasswordToken(t, 'ravi@example.in', 'password-reset');
    expect(token).not.toBe(firstToken);
    expect((await view(firstToken)).body.message).toBe(AdminMessages.passwordLinkInvalid);
    expect((await view(token).expect(200)).body.purpose).toBe('reset');
    const [mail] = await outbox('ravi@example.in', 'password-reset');
    expect(mail.subject).toBe('Set a new password for e-Sign (Org acme)');

    // Until the link is used, nothing changes.
    await whoami(session).expect(200);
    await setPassword(token, 'ravi-new-passphrase').expect(200);
    const after = await whoami(session).expect(401);
    expect(after.body.error).toBe('INVALID_CREDENTIALS');
    await t.http.get('/consumers/ravi/key-auth').auth('ravi', 'ravi-passphrase').expect(401);
    await signIn(t, 'ravi', 'ravi-new-passphrase');
  });

  it('lets a link expire after PASSWORD_LINK_HOURS', async () => {
    const created = await t.http
      .post('/api/users')
      .set('apikey', admin)
      .send({ username: 'late', email: 'late@example.in' })
      .expect(201);
    const token = await latestPasswordToken(t, 'late@example.in');
    t.clock.advance(PASSWORD_LINK_HOURS * 3600 - 1);
    await view(token).expect(200);
    t.clock.advance(1);
    expect((await view(token).expect(400)).body.message).toBe(AdminMessages.passwordLinkInvalid);
    expect((await setPassword(token, 'late-passphrase').expect(400)).body.message).toBe(
      AdminMessages.passwordLinkInvalid,
    );
    // The administrator sends another: an invitation again, since no password was ever set.
    const again = await linkFor(await signIn(t, 'alice', 'alice-password'), created.body.id).expect(200);
    expect(again.body.message).toBe('Invitation sent to late@example.in.');
    admin = await signIn(t, 'alice', 'alice-password');
  });

  it('disables a user: their sessions stop at once and stay revoked when the user is enabled again', async () => {
    const ravi = (await users(admin)).body.find((u: { username: string }) => u.username === 'ravi').id as string;
    const session = await signIn(t, 'ravi', 'ravi-new-passphrase');
    await whoami(session).expect(200);
    const disabled = await put(admin, ravi, { disabled: true }).expect(200);
    expect(disabled.body).toMatchObject({ disabled: true, status: 'disabled' });
    expect((await whoami(session).expect(401)).body.error).toBe('INVALID_CREDENTIALS');
    await t.http.get('/consumers/ravi/key-auth').auth('ravi', 'ravi-new-passphrase').expect(401);
    expect((await linkFor(admin, ravi).expect(409)).body.message).toBe(AdminMessages.userDisabled);

    await put(admin, ravi, { disabled: false }).expect(200);
    await whoami(session).expect(401);
    await signIn(t, 'ravi', 'ravi-new-passphrase');
  });

  it('changes roles at once, and never leaves the organisation without an active administrator', async () => {
    const list = (await users(admin)).body as { id: string; username: string }[];
    const alice = list.find((u) => u.username === 'alice')!.id;
    const ravi = list.find((u) => u.username === 'ravi')!.id;
    const late = list.find((u) => u.username === 'late')!.id;
    for (const body of [{ role: 'staff' }, { disabled: true }]) {
      const res = await put(admin, alice, body).expect(409);
      expect([res.body.error, res.body.message]).toEqual(['CONFLICT', AdminMessages.lastAdmin]);
    }
    // An invited administrator (no password yet) does not count: they cannot act.
    await put(admin, late, { role: 'admin' }).expect(200);
    await put(admin, alice, { role: 'staff' }).expect(409);

    const raviKey = await signIn(t, 'ravi', 'ravi-new-passphrase');
    await users(raviKey).expect(403);
    await put(admin, ravi, { role: 'admin' }).expect(200);
    // The same session key, the new role: no sign-in again.
    await users(raviKey).expect(200);
    expect((await whoami(raviKey)).body.role).toBe('admin');

    // Both administrators demoted at the same moment (an organisation key: an administrator whatever happens to the
    // users): one call wins, the other finds the last administrator and is refused.
    const orgKey = await orgApiKey(t, 'acme', 'parallel');
    const admins = async () =>
      (
        (await t.db.query(
          "SELECT username FROM users WHERE org_id = 'acme' AND role = 'admin' AND disabled = ? AND password_hash IS NOT NULL",
          [false],
        )) as { username: string }[]
      ).map((u) => u.username);
    const both = await Promise.all([put(orgKey, ravi, { role: 'staff' }), put(orgKey, alice, { role: 'staff' })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await admins()).toHaveLength(1);

    // The same with disabling both at once.
    await put(orgKey, ravi, { role: 'admin' }).expect(200);
    await put(orgKey, alice, { role: 'admin' }).expect(200);
    expect((await admins()).sort()).toEqual(['alice', 'ravi']);
    const disabling = await Promise.all([
      put(orgKey, alice, { disabled: true }),
      put(orgKey, ravi, { disabled: true }),
    ]);
    expect(disabling.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await admins()).toHaveLength(1);
  });
});

describe('a fresh installation: the support the other tests use, and the throttle on guessed links', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
  });
  afterAll(() => t.close());

  it('gives a signed-in staff user', async () => {
    const admin = await signIn(t, 'alice', 'alice-password');
    const staff = await inviteAndSignIn(t, admin, { username: 'sam', email: 'sam@example.in' });
    expect((await t.http.get('/api/whoami').set('apikey', staff.key).expect(200)).body.role).toBe('staff');
  });

  it('throttles guessed links like sign-in: after the failures allowed, 429 whatever the token', async () => {
    const max = t.config.loginThrottle.maxFailures;
    for (let i = 0; i < max; i++) {
      const res = await t.http.get('/consumers/password').query({ token: `pwl_${'x'.repeat(43)}${i}` });
      expect([res.status, res.body.message]).toEqual([400, AdminMessages.passwordLinkInvalid]);
    }
    await t.http
      .get('/consumers/password')
      .query({ token: `pwl_${'y'.repeat(43)}` })
      .expect(429);
    await t.http
      .post('/consumers/password')
      .send({ token: `pwl_${'y'.repeat(43)}`, password: 'whatever-passphrase' })
      .expect(429);
  });
});
