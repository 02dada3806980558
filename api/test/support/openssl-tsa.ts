import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { answerTimestampQuery, newTokenSerial, tsaSigner } from '../../src/modules/signing/evidence/tsa-answer';
import { oidText } from '../../src/modules/signing/evidence/tsp';

const run = promisify(execFile);

/** The policies the OpenSSL TSA answers with: its default, and one more it accepts when asked. */
export const OPENSSL_TSA_POLICY = '1.2.3.4.1';
export const OPENSSL_TSA_OTHER_POLICY = '1.2.3.4.5';

/**
 * How each path of the wrapper answers. OpenSSL's own TSA (`openssl ts -reply`) makes every answer it can:
 * - good: the query as sent; good-ess-v1: the same from a TSA naming its certificate by ESSCertID (v1, SHA-1);
 * - wrong-nonce, wrong-imprint: the query altered on the way, so OpenSSL answers another nonce or imprint;
 * - ignore-policy: the query's reqPolicy dropped, so OpenSSL answers its default policy;
 * - reject: the query's policy replaced by one OpenSSL does not accept, so it answers status rejection;
 * OpenSSL refuses to sign with a certificate that is not a TSA's, so:
 * - not-tsa: a token over the query signed by a certificate of the same CA without extended key usage (our encoder);
 * - skewed: a token from the right TSA key whose genTime is an hour behind (our encoder);
 * and plain HTTP misbehaviour:
 * - garbage: random bytes as application/timestamp-reply; html: a 200 page in text/html;
 * - slow: OpenSSL's good answer after `slowMs`;
 * - auth: the good answer only with `Authorization: Basic base64(AUTH_USER:AUTH_PASSWORD)`, else 401.
 */
export type TsaBehaviour =
  | 'good'
  | 'good-ess-v1'
  | 'wrong-nonce'
  | 'wrong-imprint'
  | 'ignore-policy'
  | 'reject'
  | 'not-tsa'
  | 'skewed'
  | 'garbage'
  | 'html'
  | 'slow'
  | 'auth';

export const AUTH_USER = 'tsa-client';
export const AUTH_PASSWORD = 'S3cr3t:with@signs';

export interface OpenSslTsa {
  /** The wrapper's base URL (http://127.0.0.1:PORT). */
  base: string;
  url(behaviour: TsaBehaviour): string;
  /** An address on loopback where nothing listens (connection refused). */
  downUrl: string;
  dir: string;
  /** The test CA (trust anchor), the TSA's certificate, and the CA-issued certificate without EKU, as PEM files. */
  caPem: string;
  tsaPem: string;
  notTsaPem: string;
  /** Every request received: its path and Authorization header, in order. */
  requests: { path: string; authorization: string | undefined }[];
  /** `openssl ts -verify` of a DER TimeStampToken against a SHA-256 digest: its output, exit code 0 or throws. */
  verify(token: Uint8Array, digestHex: string, caPem?: string, untrustedPem?: string): string;
  close(): Promise<void>;
}

const EXTENSIONS = `
[req]
distinguished_name = dn
[dn]
[ca_ext]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[tsa_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[leaf_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A test CA, a TSA certificate under it (EKU timeStamping, critical), a leaf without EKU, and OpenSSL's TSA config. */
function makePki(dir: string): void {
  writeFileSync(join(dir, 'ext.cnf'), EXTENSIONS);
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '3650',
    '-subj',
    '/O=OpenSSL test/CN=OpenSSL Test TSA Root',
    '-config',
    'ext.cnf',
    '-extensions',
    'ca_ext',
  ]);
  for (const [name, cn, ext] of [
    ['tsa', 'OpenSSL Test TSA', 'tsa_ext'],
    ['not-tsa', 'OpenSSL Test Signer (no timeStamping)', 'leaf_ext'],
  ]) {
    openssl(dir, [
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/O=OpenSSL test/CN=${cn}`,
    ]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '365',
      '-extfile',
      'ext.cnf',
      '-extensions',
      ext,
    ]);
  }
  writeFileSync(join(dir, 'serial'), '01\n');
  const config = (essAlgorithm: string) =>
    [
      '[tsa]',
      'default_tsa = tsa_config',
      '[tsa_config]',
      `serial = ${join(dir, 'serial')}`,
      `signer_cert = ${join(dir, 'tsa.pem')}`,
      `signer_key = ${join(dir, 'tsa.key')}`,
      `certs = ${join(dir, 'ca.pem')}`,
      'signer_digest = sha256',
      `default_policy = ${OPENSSL_TSA_POLICY}`,
      `other_policies = ${OPENSSL_TSA_OTHER_POLICY}`,
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      `ess_cert_id_alg = ${essAlgorithm}`,
      'ordering = no',
      'tsa_name = yes',
      '',
    ].join('\n');
  writeFileSync(join(dir, 'tsa.cnf'), config('sha256'));
  // OpenSSL's default, and what many TSAs still answer: signing-certificate (v1), an ESSCertID with a SHA-1 hash.
  writeFileSync(join(dir, 'tsa-ess-v1.cnf'), config('sha1'));
}

const read = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** The query changed by `change` (pkijs, re-encoded). */
function altered(query: Buffer, change: (req: pkijs.TimeStampReq) => void): Buffer {
  const req = pkijs.TimeStampReq.fromBER(query);
  change(req);
  return Buffer.from(req.toSchema().toBER(false));
}

/** The policy the query asks for, else OpenSSL's default (what our encoder answers with in its place). */
const requestedPolicy = (query: Buffer): string => {
  const policy = pkijs.TimeStampReq.fromBER(query).reqPolicy;
  return policy ? oidText(policy) : OPENSSL_TSA_POLICY;
};

/** OpenSSL's TSA on loopback behind a minimal HTTP wrapper (one `openssl ts -reply` per query). */
export async function startOpenSslTsa(options: { slowMs?: number } = {}): Promise<OpenSslTsa> {
  const dir = mkdtempSync(join(tmpdir(), 'esign-openssl-tsa-'));
  makePki(dir);
  const notTsa = await tsaSigner(
    readFileSync(join(dir, 'not-tsa.pem'), 'utf8'),
    readFileSync(join(dir, 'not-tsa.key'), 'utf8'),
  );
  const goodKey = await tsaSigner(
    readFileSync(join(dir, 'tsa.pem'), 'utf8'),
    readFileSync(join(dir, 'tsa.key'), 'utf8'),
  );
  const requests: OpenSslTsa['requests'] = [];
  let sequence = 0;
  // OpenSSL updates its serial file on each answer: one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const opensslReply = (query: Buffer, config = 'tsa.cnf'): Promise<Buffer> => {
    const next = queue.then(async () => {
      const n = ++sequence;
      const q = join(dir, `q${n}.tsq`);
      const r = join(dir, `r${n}.tsr`);
      writeFileSync(q, query);
      await run('openssl', ['ts', '-reply', '-config', join(dir, config), '-queryfile', q, '-out', r], { cwd: dir });
      return readFileSync(r);
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const answer = async (behaviour: string, query: Buffer, req: IncomingMessage, res: ServerResponse) => {
    const reply = (body: Buffer | Uint8Array, type = 'application/timestamp-reply') => {
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.byteLength });
      res.end(body);
    };
    switch (behaviour) {
      case 'good':
        return reply(await opensslReply(query));
      case 'good-ess-v1':
        return reply(await opensslReply(query, 'tsa-ess-v1.cnf'));
      case 'wrong-nonce':
        return reply(
          await opensslReply(
            altered(query, (r) => (r.nonce = asn1js.Integer.fromBigInt((r.nonce?.toBigInt() ?? 0n) + 1n))),
          ),
        );
      case 'wrong-imprint':
        return reply(
          await opensslReply(
            altered(query, (r) => {
              const bytes = new Uint8Array(r.messageImprint.hashedMessage.valueBlock.valueHexView);
              bytes[0] ^= 0xff;
              r.messageImprint.hashedMessage = new asn1js.OctetString({ valueHex: bytes });
            }),
          ),
        );
      case 'ignore-policy':
        return reply(await opensslReply(altered(query, (r) => delete r.reqPolicy)));
      case 'reject':
        return reply(await opensslReply(altered(query, (r) => (r.reqPolicy = '1.2.3.4.99'))));
      case 'not-tsa':
        return reply(
          await answerTimestampQuery(query, notTsa, {
            now: new Date(),
            policy: requestedPolicy(query),
            serial: newTokenSerial(),
            accuracySeconds: 1,
          }),
        );
      case 'skewed':
        return reply(
          await answerTimestampQuery(query, goodKey, {
            now: new Date(Date.now() - 3600_000),
            policy: requestedPolicy(query),
            serial: newTokenSerial(),
            accuracySeconds: 1,
          }),
        );
      case 'garbage':
        return reply(Buffer.from('\x30\x82\xff\xffthis is not a TimeStampResp at all', 'latin1'));
      case 'html':
        return reply(Buffer.from('<!doctype html><title>Maintenance</title>'), 'text/html; charset=utf-8');
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, options.slowMs ?? 2000));
        if (!res.destroyed) reply(await opensslReply(query));
        return;
      case 'auth': {
        const expected = `Basic ${Buffer.from(`${AUTH_USER}:${AUTH_PASSWORD}`).toString('base64')}`;
        if (req.headers.authorization !== expected) {
          res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="tsa"' });
          return res.end();
        }
        return reply(await opensslReply(query));
      }
      default:
        res.writeHead(404);
        res.end();
    }
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').replace(/^\/+/, '').split('?')[0];
    requests.push({ path, authorization: req.headers.authorization });
    read(req)
      .then((query) => {
        if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
          res.writeHead(415);
          return res.end();
        }
        return answer(path, query, req, res);
      })
      .catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port that was free a moment ago and is closed again: connecting to it is refused.
  const spare = createServer();
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
  const downPort = (spare.address() as AddressInfo).port;
  await new Promise((resolve) => spare.close(resolve));

  return {
    base,
    url: (behaviour) => `${base}/${behaviour}`,
    downUrl: `http://127.0.0.1:${downPort}/tsr`,
    dir,
    caPem: join(dir, 'ca.pem'),
    tsaPem: join(dir, 'tsa.pem'),
    notTsaPem: join(dir, 'not-tsa.pem'),
    requests,
    verify(token, digestHex, caPem = join(dir, 'ca.pem'), untrustedPem = join(dir, 'tsa.pem')) {
      const file = join(dir, `token-${++sequence}.der`);
      writeFileSync(file, token);
      return execFileSync(
        'openssl',
        ['ts', '-verify', '-digest', digestHex, '-token_in', '-in', file, '-CAfile', caPem, '-untrusted', untrustedPem],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
