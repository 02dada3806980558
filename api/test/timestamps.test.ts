import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as pkijs from 'pkijs';
import { DEV_TSA_NAME, DevelopmentTsa } from '../src/modules/signing/evidence/development-tsa';
import { Timestamps, TimestampUnavailableError } from '../src/modules/signing/evidence/timestamps';
import { DEV_TSA_POLICY, timestampQuery } from '../src/modules/signing/evidence/tsp';
import { TSA_QUERIES_PER_MINUTE } from '../src/modules/signing/evidence/tsa.controller';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import {
  AUTH_PASSWORD,
  AUTH_USER,
  OPENSSL_TSA_OTHER_POLICY,
  startOpenSslTsa,
  type OpenSslTsa,
  type TsaBehaviour,
} from './support/openssl-tsa';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * RFC 3161 timestamps: the client against OpenSSL's own TSA (`openssl ts -reply` behind a small HTTP wrapper on
 * loopback), its failover and every refusal; the built-in development TSA, in process and at POST /tsa, checked by
 * OpenSSL (`openssl ts -query … | POST /tsa | openssl ts -verify`).
 */

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
const digestOf = (label: string) => new Uint8Array(sha256(label));

/** Captures the app's JSON log lines (LOG_LEVEL debug) as text. */
function logSink(): { sink: PassThrough; text: () => string } {
  const sink = new PassThrough();
  const chunks: string[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  return { sink, text: () => chunks.join('') };
}

/** A TSA_URLS entry for the wrapper's `behaviour` path with Basic credentials in it. */
const withCredentials = (url: string, user: string, password: string) =>
  url.replace('http://', `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`);

describe('timestamps from TSAs this project did not write (OpenSSL)', () => {
  let tsa: OpenSslTsa;
  beforeAll(async () => {
    tsa = await startOpenSslTsa({ slowMs: 2000 });
  });
  afterAll(() => tsa.close());

  it('gets a token OpenSSL verifies, with the policy asked for and the TSA chained to TSA_CA_FILE', async () => {
    const t = await startTestApp({
      TSA_URLS: tsa.url('good'),
      TSA_POLICY: OPENSSL_TSA_OTHER_POLICY,
      TSA_CA_FILE: tsa.caPem,
    });
    try {
      const digest = digestOf('the signature value of one SignerInfo');
      const before = Date.now();
      const token = await t.app.get(Timestamps).timestamp(digest);
      expect(token.tsa).toBe(tsa.url('good'));
      expect(token.policy).toBe(OPENSSL_TSA_OTHER_POLICY);
      expect(token.time.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
      expect(token.time.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
      expect(token.serial).toMatch(/^[0-9a-f]+$/);
      expect(token.certificates).toHaveLength(2); // the TSA's certificate first, then the CA that OpenSSL adds
      expect(
        pkijs.Certificate.fromBER(token.certificates[0]).subject.typesAndValues.at(-1)?.value.valueBlock.value,
      ).toBe('OpenSSL Test TSA');
      expect(tsa.verify(token.token, Buffer.from(digest).toString('hex'))).toContain('Verification: OK');
      // The same token is not a timestamp of anything else.
      expect(() => tsa.verify(token.token, Buffer.from(digestOf('other')).toString('hex'))).toThrow();
      expect(t.app.get(Timestamps).describe()).toEqual({ builtIn: false, tsas: [tsa.url('good')] });
    } finally {
      await t.close();
    }
  });

  it('accepts a TSA naming its certificate by ESSCertID (v1, SHA-1), and with TSA_URLS the development TSA is off', async () => {
    const t = await startTestApp({ TSA_URLS: tsa.url('good-ess-v1'), TSA_CA_FILE: tsa.caPem });
    try {
      const digest = digestOf('v1');
      const token = await t.app.get(Timestamps).timestamp(digest);
      expect(token.tsa).toBe(tsa.url('good-ess-v1'));
      expect(tsa.verify(token.token, Buffer.from(digest).toString('hex'))).toContain('Verification: OK');
      const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(token.token).content });
      const attributes = signed.signerInfos[0].signedAttrs!.attributes.map((a) => a.type);
      expect(attributes).toContain('1.2.840.113549.1.9.16.2.12');
      expect(attributes).not.toContain('1.2.840.113549.1.9.16.2.47');
      await t.http
        .post('/tsa')
        .set('Content-Type', 'application/timestamp-query')
        .send(Buffer.from([0x30, 0x00]))
        .expect(404);
    } finally {
      await t.close();
    }
  });

  it('refuses a TSA whose certificate does not chain to TSA_CA_FILE', async () => {
    const t = await startTestApp({ TSA_URLS: tsa.url('good'), TSA_CA_FILE: tsa.notTsaPem });
    try {
      const err = await t.app
        .get(Timestamps)
        .timestamp(digestOf('x'))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TimestampUnavailableError);
      expect((err as TimestampUnavailableError).attempts).toEqual([
        {
          tsa: tsa.url('good'),
          reason: expect.stringMatching(/^the TSA's certificate "OpenSSL Test TSA" does not chain to TSA_CA_FILE/),
        },
      ]);
    } finally {
      await t.close();
    }
  });

  describe('failover', () => {
    // Every way a TSA can fail, in this order, each URL with credentials that must never show.
    const failing: [TsaBehaviour | 'down', RegExp][] = [
      ['down', /^connection refused$/],
      ['slow', /^no answer within 500 ms$/],
      ['wrong-nonce', /^the nonce differs \(sent [0-9a-f]+, got [0-9a-f]+\)$/],
      ['wrong-imprint', /^the message imprint differs \(sent [0-9a-f]{64}, got [0-9a-f]{64}\)$/],
      [
        'not-tsa',
        /^the TSA's certificate "OpenSSL Test Signer \(no timeStamping\)" has no extended key usage id-kp-timeStamping$/,
      ],
      ['garbage', /^the answer is not a TimeStampResp \(not DER/],
      ['reject', /^the TSA refused: status rejection \(unacceptedPolicy\): "Requested policy is not supported\."$/],
      ['html', /^the answer's content type is "text\/html", not application\/timestamp-reply$/],
      ['skewed', /^genTime \S+ is more than 10 minutes from our clock/],
      ['ignore-policy', /^the policy is 1\.2\.3\.4\.1, not the requested 1\.2\.3\.4\.5$/],
      ['auth', /^HTTP 401 \(the TSA wants credentials: https:\/\/user:password@… in TSA_URLS\)$/],
    ];
    const secrets = [
      'fail-user',
      'never-Logged-pw',
      AUTH_PASSWORD,
      Buffer.from(`fail-user:never-Logged-pw`).toString('base64'),
    ];
    const urlOf = (b: TsaBehaviour | 'down') => (b === 'down' ? tsa.downUrl : tsa.url(b));
    const failingUrls = () => failing.map(([b]) => withCredentials(urlOf(b), 'fail-user', 'never-Logged-pw'));

    it('moves on past each failing TSA to the next, sending each its own credentials, and logs each reason without them', async () => {
      const logs = logSink();
      const good = withCredentials(tsa.url('auth'), AUTH_USER, AUTH_PASSWORD);
      const t = await startTestApp(
        {
          TSA_URLS: [...failingUrls(), good].join(','),
          TSA_POLICY: OPENSSL_TSA_OTHER_POLICY,
          TSA_TIMEOUT_MS: '500',
          LOG_LEVEL: 'debug',
        },
        { logDestination: logs.sink },
      );
      try {
        tsa.requests.length = 0;
        const digest = digestOf('failover');
        const token = await t.app.get(Timestamps).timestamp(digest);
        expect(token.tsa).toBe(tsa.url('auth'));
        expect(tsa.verify(token.token, Buffer.from(digest).toString('hex'))).toContain('Verification: OK');
        // Tried in order (the refused one never arrives), the right credentials sent to each as a Basic header.
        expect(tsa.requests.map((r) => r.path)).toEqual([...failing.slice(1).map(([b]) => b), 'auth']);
        const failBasic = `Basic ${Buffer.from('fail-user:never-Logged-pw').toString('base64')}`;
        expect(tsa.requests.slice(0, -1).every((r) => r.authorization === failBasic)).toBe(true);
        expect(tsa.requests.at(-1)?.authorization).toBe(
          `Basic ${Buffer.from(`${AUTH_USER}:${AUTH_PASSWORD}`).toString('base64')}`,
        );
        await new Promise((r) => setImmediate(r));
        const lines = logs
          .text()
          .split('\n')
          .filter((l) => l.includes('timestamp authority'));
        expect(lines).toHaveLength(failing.length);
        failing.forEach(([behaviour], i) =>
          expect(lines[i]).toContain(`timestamp authority ${urlOf(behaviour)} failed:`),
        );
        for (const secret of secrets) expect(logs.text()).not.toContain(secret);
        expect(logs.text()).not.toContain(AUTH_USER);
      } finally {
        await t.close();
      }
    });

    it('throws TimestampUnavailableError listing every TSA and its reason when none is left, without a credential', async () => {
      const logs = logSink();
      const t = await startTestApp(
        {
          TSA_URLS: failingUrls().join(','),
          TSA_POLICY: OPENSSL_TSA_OTHER_POLICY,
          TSA_TIMEOUT_MS: '500',
          LOG_LEVEL: 'debug',
        },
        { logDestination: logs.sink },
      );
      try {
        expect(t.app.get(Timestamps).describe()).toEqual({ builtIn: false, tsas: failing.map(([b]) => urlOf(b)) });
        const started = Date.now();
        const err = await t.app
          .get(Timestamps)
          .timestamp(digestOf('nobody answers'))
          .catch((e: unknown) => e);
        // Only the slow TSA waited, and only its timeout.
        expect(Date.now() - started).toBeLessThan(2000);
        expect(err).toBeInstanceOf(TimestampUnavailableError);
        const { attempts, message } = err as TimestampUnavailableError;
        expect(attempts.map((a) => a.tsa)).toEqual(failing.map(([b]) => urlOf(b)));
        attempts.forEach((attempt, i) => expect(attempt.reason).toMatch(failing[i][1]));
        expect(message).toMatch(/^No timestamp authority answered with a valid token: /);
        for (const attempt of attempts) expect(message).toContain(`${attempt.tsa}: ${attempt.reason}`);
        await new Promise((r) => setImmediate(r));
        for (const secret of secrets) {
          expect(message).not.toContain(secret);
          expect(JSON.stringify(attempts)).not.toContain(secret);
          expect(logs.text()).not.toContain(secret);
        }
      } finally {
        await t.close();
      }
    });
  });
});

describe('the built-in development TSA', () => {
  let t: TestApp;
  let dir: string;
  let rootPem: string;
  let tsaPem: string;
  beforeAll(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'esign-dev-tsa-'));
    const pki = t.app.get(SealPkiService);
    rootPem = join(dir, 'root.pem');
    tsaPem = join(dir, 'tsa.pem');
    writeFileSync(rootPem, await pki.rootCertificatePem());
    writeFileSync(tsaPem, (await pki.devTsa()).certPem);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const opensslVerify = (file: string, digestHex: string, token = false) =>
    execFileSync(
      'openssl',
      [
        'ts',
        '-verify',
        '-digest',
        digestHex,
        ...(token ? ['-token_in'] : []),
        '-in',
        file,
        '-CAfile',
        rootPem,
        '-untrusted',
        tsaPem,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  const opensslText = (args: string[]) =>
    execFileSync('openssl', ['ts', ...args, '-text'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  /** `openssl ts -query` for a digest: the query file and its nonce as OpenSSL prints it. */
  const query = (name: string, digestHex: string, extra: string[] = ['-cert']) => {
    const file = join(dir, `${name}.tsq`);
    execFileSync('openssl', ['ts', '-query', '-digest', digestHex, '-sha256', ...extra, '-out', file], {
      stdio: 'ignore',
    });
    return file;
  };
  const post = (body: Buffer, type = 'application/timestamp-query') =>
    t.http
      .post('/tsa')
      .set('Content-Type', type)
      .send(body)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
  const field = (text: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1];

  it('stamps in process with the Clock, and OpenSSL verifies the token against the development root', async () => {
    const timestamps = t.app.get(Timestamps);
    expect(timestamps.describe()).toEqual({ builtIn: true, tsas: [DEV_TSA_NAME] });
    const digest = digestOf('a signature value');
    const token = await timestamps.timestamp(digest);
    expect(token).toMatchObject({ tsa: DEV_TSA_NAME, policy: DEV_TSA_POLICY, time: t.clock.now() });
    expect(token.serial).toMatch(/^[0-9a-f]{32}$/);
    expect(token.certificates.map((c) => Buffer.from(c).toString('base64'))).toEqual([
      (await t.app.get(SealPkiService).devTsa()).certPem.replace(/-----[A-Z ]+-----|\s+/g, ''),
    ]);
    const file = join(dir, 'in-process.tst');
    writeFileSync(file, token.token);
    expect(opensslVerify(file, Buffer.from(digest).toString('hex'), true)).toContain('Verification: OK');

    // Tests move time: genTime follows the injected clock; every token has its own serial.
    t.clock.advance(365 * 86_400);
    const later = await timestamps.timestamp(digest);
    expect(later.time).toEqual(t.clock.now());
    expect(later.serial).not.toBe(token.serial);
  });

  it("never answers a token whose last byte is 0x00 (a verifier that strips /Contents' zero padding would cut it)", async () => {
    const tsa = t.app.get(DevelopmentTsa);
    const q = timestampQuery(digestOf('padding'), null).der;
    // Unsigned, 1 in 256 would end with 0x00: 1,500 answers hold one with odds of 1 - (255/256)^1500, about 99.7 %.
    const lastBytes = new Set<number>();
    for (let i = 0; i < 1500; i++) {
      const answer = await tsa.answer(q);
      lastBytes.add(answer[answer.length - 1]);
    }
    expect(lastBytes.has(0)).toBe(false);
    // Every other last byte still occurs: the answers are not bent in any other way.
    expect(lastBytes.size).toBeGreaterThan(200);
  }, 120_000);

  it('answers `openssl ts -query` at POST /tsa: OpenSSL verifies the reply and shows our policy, its nonce and a serial', async () => {
    const digestHex = sha256('a document').toString('hex');
    const q = query('cert', digestHex);
    const nonce = field(opensslText(['-query', '-in', q]), 'Nonce');
    expect(nonce).toMatch(/^0x[0-9A-F]+$/);
    const res = await post(readFileSync(q)).expect(200);
    expect(res.headers['content-type']).toBe('application/timestamp-reply');
    const reply = join(dir, 'cert.tsr');
    writeFileSync(reply, res.body as Buffer);
    expect(opensslVerify(reply, digestHex)).toContain('Verification: OK');
    const text = opensslText(['-reply', '-in', reply]);
    expect(field(text, 'Status')).toBe('Granted.');
    expect(field(text, 'Policy OID')).toBe(DEV_TSA_POLICY);
    expect(field(text, 'Nonce')).toBe(nonce);
    expect(field(text, 'Serial number')).toMatch(/^0x[0-9A-F]{32}$/);
    expect(field(text, 'Accuracy')).toMatch(/^0x01 seconds/);
    expect(field(text, 'TSA')).toBe('DirName:/O=e-Sign (development)/CN=e-Sign Development Timestamp Authority');
    const token = pkijs.SignedData.fromBER(
      pkijs.ContentInfo.fromBER(
        pkijs.TimeStampResp.fromBER(res.body as Buffer)
          .timeStampToken!.toSchema()
          .toBER(),
      ).content.toBER(),
    );
    expect(token.certificates).toHaveLength(1);

    // Without certReq the certificate stays out (OpenSSL still verifies, given it).
    const noCert = await post(readFileSync(query('no-cert', digestHex, []))).expect(200);
    const noCertToken = pkijs.TimeStampResp.fromBER(noCert.body as Buffer).timeStampToken!;
    expect(new pkijs.SignedData({ schema: noCertToken.content }).certificates).toBeUndefined();
    writeFileSync(join(dir, 'no-cert.tsr'), noCert.body as Buffer);
    expect(opensslVerify(join(dir, 'no-cert.tsr'), digestHex)).toContain('Verification: OK');
  });

  it('rejects what it cannot stamp with an RFC 3161 rejection, and anything but a query with 415', async () => {
    const digestHex = sha256('x').toString('hex');
    const cases: [string, Buffer, RegExp][] = [
      ['garbage', randomBytes(40), /the data submitted has the wrong format/],
      [
        'policy',
        readFileSync(query('policy', digestHex, ['-tspolicy', '1.2.3.4.99'])),
        /the requested TSA policy is not supported by the TSA/,
      ],
      [
        'sha1',
        (() => {
          const file = join(dir, 'sha1.tsq');
          execFileSync('openssl', ['ts', '-query', '-digest', 'a'.repeat(40), '-sha1', '-out', file], {
            stdio: 'ignore',
          });
          return readFileSync(file);
        })(),
        /unrecognized or unsupported algorithm identifier/,
      ],
    ];
    for (const [name, body, failure] of cases) {
      const res = await post(body).expect(200);
      const file = join(dir, `${name}.tsr`);
      writeFileSync(file, res.body as Buffer);
      const text = opensslText(['-reply', '-in', file]);
      expect({ name, status: field(text, 'Status') }).toEqual({ name, status: 'Rejected.' });
      expect(field(text, 'Failure info')).toMatch(failure);
    }
    const wrongType = await t.http.post('/tsa').set('Content-Type', 'application/json').send('{}').expect(415);
    expect(wrongType.body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
    await post(randomBytes(17 * 1024)).expect(413);
  });

  it(`answers at most ${TSA_QUERIES_PER_MINUTE} queries a minute per address, then 429 with Retry-After`, async () => {
    t.clock.advance(120);
    const empty = Buffer.alloc(0);
    for (let i = 0; i < TSA_QUERIES_PER_MINUTE; i++) await post(empty).expect(200);
    const refused = await post(empty).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    t.clock.advance(61);
    await post(empty).expect(200);
  });
});
