import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { AppSecretEntity } from '../../src/modules/secrets/app-secret.entity';
import { OutboxMessageEntity } from '../../src/modules/notifications/outbox-message.entity';
import { SealKeyEntity } from '../../src/modules/signing/pki/seal-key.entity';
import { drain, sendForSigning, signAs, tokensOf } from '../support/signing';
import { createOrgWithUser, startTestApp, type TestApp } from '../support/test-app';

/**
 * A whole flow at LOG_LEVEL=debug with every log line kept: sign-in with a password (and a wrong one), an API key, a
 * webhook and its secret (delivered to a local receiver), an upload, OTPs sent and verified, a signature, the seal and
 * the sign links (header and ?token=). No line may carry the password, a key, a link token, an OTP, a signer session,
 * the webhook secret, an installation secret, a private key or the seal keys. Error answers never carry a stack trace.
 */

const PASSWORD = 'Alice-S3cret-passphrase';
const WRONG_PASSWORD = 'Wr0ng-guess-passphrase';
const ASHA = {
  name: 'Asha Rao',
  email: 'asha.logs@example.in',
  phoneNumber: '9876543210',
  observer: false,
  signature_type: 'e-Signature',
};
const VIKRAM = { ...ASHA, name: 'Vikram Shah', email: 'vikram.logs@example.in', phoneNumber: '9123456789' };

/** Pieces of a PEM body long enough to be unmistakable (the whole base64 body, line by line). */
const pemPieces = (pem: string): string[] =>
  pem
    .split('\n')
    .filter((l) => l && !l.startsWith('-----'))
    .map((l) => l.trim().slice(0, 40))
    .filter((l) => l.length >= 24);

describe('secrets never reach the logs', () => {
  let t: TestApp;
  let receiver: Server;
  let delivered = 0;
  const lines: string[] = [];
  const secrets: Record<string, string[]> = {};
  const add = (kind: string, ...values: string[]) => (secrets[kind] = [...(secrets[kind] ?? []), ...values]);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    receiver = createServer((req, res) => {
      delivered++;
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t = await startTestApp({ LOG_LEVEL: 'debug' }, { logDestination: sink });
    await createOrgWithUser(t, 'acme', 'alice', PASSWORD);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => receiver.close(r));
  });

  it('runs the flow and finds none of its secrets in any log line', async () => {
    // Sign-in (Basic: the password, and its base64 form), a wrong password.
    await t.http.get('/consumers/alice/key-auth').auth('alice', WRONG_PASSWORD).expect(401);
    const signedIn = await t.http.get('/consumers/alice/key-auth').auth('alice', PASSWORD).expect(200);
    const session = signedIn.body.data[0].key as string;
    add('password', PASSWORD, WRONG_PASSWORD, Buffer.from(`alice:${PASSWORD}`).toString('base64'));
    add('session key', session, session.slice(4));

    const created = await t.http.post('/api/api-keys').set('apikey', session).send({ name: 'ci' }).expect(201);
    const key = created.body.key as string;
    add('API key', key, key.slice(4));

    const port = (receiver.address() as AddressInfo).port;
    const hook = await t.http
      .post('/api/webhooks')
      .set('apikey', key)
      .send({ url: `http://127.0.0.1:${port}/events`, events: ['*'] })
      .expect(201);
    add('webhook secret', hook.body.secret);

    // Upload with OTP, two signers, sequential; both sign with OTPs (sent and verified), links in header and query.
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { recipients: [ASHA, VIKRAM], otpRequired: true, checkOrder: true },
      [
        { order: 1, pageNo: [1] },
        { order: 2, pageNo: [1] },
      ],
    );
    add('link token', ...Object.values(tokens));
    await t.http.get(`/v1/reference/acme/${refId}/1?token=${tokens[1]}`).expect(200);
    const first = await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: ASHA.email, otp: true });
    await drain(t);
    const next = await tokensOf(t, key, 'acme', refId);
    add('link token', ...Object.values(next));
    const second = await signAs(t, { orgId: 'acme', refId, order: 2, token: next[2], email: VIKRAM.email, otp: true });
    // The signer sessions the OTPs opened (sent in x-signer-session with every later call).
    add('signer session', first.session as string, second.session as string);
    expect(first.session).toMatch(/^[\w-]{43}$/);
    await drain(t);
    expect(
      ((await t.db.query('SELECT status FROM requests WHERE ref_id = ?', [refId])) as { status: string }[])[0].status,
    ).toBe('completed');

    // Document links (their HMAC is the permission): the signed document from the download call, opened.
    const download = await t.http
      .get(
        `/v1/download/acme/${(await t.http.get(`/v1/reference/acme/${refId}/2`).set('x-sign-token', next[2])).body.request.requestId}`,
      )
      .set('x-sign-token', next[2])
      .expect(200);
    const documentLink = new URL(download.body.download_url as string);
    await t.http.get(`${documentLink.pathname}${documentLink.search}`).expect(200);
    add('document link signature', documentLink.searchParams.get('sig') as string);

    // The recipient's own list: its OTP (by e-mail) and the list token (a bearer header).
    const listLogin = await t.http.post('/v1/recipient/login').send({ identifier: ASHA.email }).expect(200);
    const listOtp = /\b(\d{6})\b/.exec(
      (
        await t.db
          .getRepository(OutboxMessageEntity)
          .findOneOrFail({ where: { to: ASHA.email }, order: { id: 'DESC' } })
      ).text,
    )![1];
    const listToken = (
      await t.http.post('/v1/recipient/verify').send({ id: listLogin.body.id, otp: listOtp }).expect(200)
    ).body.token as string;
    await t.http.get('/v1/recipient/requests').set('authorization', `Bearer ${listToken}`).expect(200);
    add('list token', listToken);

    // Sign out (the session key in a DELETE).
    await t.http.delete('/consumers/alice/key-auth').set('apikey', session).expect(204);
    await new Promise((r) => setImmediate(r));

    const otps = (await t.db.getRepository(OutboxMessageEntity).find({ where: { kind: 'otp' } }))
      .map((m) => /\b(\d{6})\b/.exec(m.text ?? '')?.[1])
      .filter((c): c is string => Boolean(c));
    expect(otps.length).toBeGreaterThanOrEqual(2);
    add('OTP', ...otps);
    const appSecrets = await t.db.getRepository(AppSecretEntity).find();
    expect(appSecrets.length).toBeGreaterThanOrEqual(2);
    add('app secret', ...appSecrets.map((s) => s.value));
    const sealKeys = await t.db.getRepository(SealKeyEntity).find();
    expect(sealKeys.length).toBeGreaterThan(0);
    add('seal key', ...sealKeys.flatMap((k) => pemPieces(k.keyPem)));
    add('private key marker', 'PRIVATE KEY');

    expect(lines.length).toBeGreaterThan(50);
    const all = lines.join('\n');
    // The flow happened, and was logged (at debug level: everything the app logs).
    expect(t.config.logLevel).toBe('debug');
    expect(all).toContain('/v1/esignature/acme/');
    expect(all).toContain('dev outbox: otp');
    expect(all).toContain('/v1/recipient/requests');
    const found: string[] = [];
    for (const [kind, values] of Object.entries(secrets)) {
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) {
        const line = lines.find((l) => l.includes(value));
        if (line) found.push(`${kind}: ${line.slice(0, 300)}`);
      }
    }
    expect(found).toEqual([]);
    // The webhook was signed with its secret and delivered during the flow.
    expect(delivered).toBeGreaterThan(0);
  });

  it('answers errors without stack traces or internals', async () => {
    const key = (await t.http.get('/consumers/alice/key-auth').auth('alice', PASSWORD).expect(200)).body.data[0]
      .key as string;
    const answers = [
      await t.http.post('/api/webhooks').set('apikey', key).set('content-type', 'application/json').send('{"url": '),
      await t.http.get('/api/requests/not-a-number').set('apikey', key),
      await t.http.get('/api/nothing-here').set('apikey', key),
      await t.http.post('/v1/upload').set('apikey', key).field('data', '[{').field('orgId', 'acme'),
      await t.http
        .post('/v1/upload')
        .set('apikey', key)
        .field('data', '[]')
        .attach('file', Buffer.from('%PDF-1.7\n garbage'), 'broken.pdf'),
      await t.http.post('/v1/verifyotp/x').set('x-sign-token', 'a'.repeat(43)).send({ otp: 'x' }),
      await t.http.get('/consumers/alice/key-auth').set('authorization', 'Basic !!!'),
      await t.http
        .put('/api/organisations/acme')
        .set('apikey', key)
        .send({ settings: { live_video_threshold: 'x' } }),
    ];
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.text).not.toMatch(/\bat .+:\d+:\d+|node_modules|\/src\/|\.ts\b|Error:|stack/);
    }
  });
});
