import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  HttpTimestampAuthority,
  P12Signer,
  PDF,
  type PAdESLevel,
  type RevocationProvider,
  type Signer,
  type TimestampAuthority,
} from '@libpdf/core';

/**
 * A test PKI made with OpenSSL, with the timestamp authority and OCSP responder this project did not write: a root
 * CA (10 years), signer certificates of any lifetime, a TSA certificate (EKU timeStamping, critical) answered by
 * `openssl ts -reply` behind a small HTTP server, and an OCSP responder certificate answered by `openssl ocsp -index
 * … -port`. Documents are signed with @libpdf/core at each PAdES level. See ../../../../../shared/notes/signing.md.
 */

const run = promisify(execFile);
const openssl = (cwd: string, ...args: string[]) => run('openssl', args, { cwd, maxBuffer: 16 * 1024 * 1024 });

const CA_CONFIG = `[ca]
default_ca = ca_default
[ca_default]
dir = .
database = ./index.txt
new_certs_dir = .
serial = ./serial
default_md = sha256
policy = any
copy_extensions = none
default_crl_days = 30
unique_subject = no
[any]
commonName = supplied
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
[tsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, timeStamping
[ocsp]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, OCSPSigning
[tsa_config]
dir = .
serial = ./tsaserial
crypto_device = builtin
signer_cert = ./tsa.pem
signer_key = ./tsa.key
certs = ./ca.pem
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface IssuedSigner {
  signer: Signer;
  pem: string;
  certificate: X509Certificate;
}

export interface LtvPki {
  dir: string;
  /** The root CA's PEM file (what --ca trusts). */
  caFile: string;
  ca: X509Certificate;
  tsa: TimestampAuthority;
  /** OCSP from the OpenSSL responder, through `openssl ocsp` as the client. */
  ocsp: RevocationProvider;
  /** CRLs only, made by `openssl ca -gencrl`. */
  crl: RevocationProvider;
  /** A signer certificate in `cn`'s name, valid from now for `minutes`. */
  issue(cn: string, minutes: number): Promise<IssuedSigner>;
  /** Revokes a certificate in the CA's database; the OCSP responder, started again, answers revoked. */
  revoke(pem: string): Promise<void>;
  /** Signs `pdf` at `level` (the TSA and revocation data from this PKI as the level needs them). */
  sign(
    pdf: Uint8Array,
    signer: Signer,
    level: PAdESLevel,
    options?: { reason?: string; fieldName?: string; revocation?: 'ocsp' | 'crl' },
  ): Promise<Buffer>;
  /** The DSS alone (no timestamp): what `addValidationData` adds to a document. */
  addValidationData(pdf: Uint8Array): Promise<Buffer>;
  stop(): Promise<void>;
}

export async function startLtvPki(): Promise<LtvPki> {
  const dir = mkdtempSync(join(tmpdir(), 'esign-ltv-pki-'));
  const ssl = (...args: string[]) => openssl(dir, ...args);
  writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  const caArgs = ['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-notext'];
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-subj',
    '/CN=LTV Test Root CA',
    '-days',
    '3650',
    '-out',
    'ca.pem',
    '-extensions',
    'root',
    '-config',
    'ca.cnf',
  );
  for (const name of ['tsa', 'ocsp']) {
    await ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-subj',
      `/CN=LTV Test ${name.toUpperCase()}`,
      '-out',
      `${name}.csr`,
    );
    await ssl(...caArgs, '-in', `${name}.csr`, '-out', `${name}.pem`, '-extensions', name, '-days', '3000');
  }

  const tsaServer: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const work = mkdtempSync(join(dir, 'tsq-'));
      writeFileSync(join(work, 'q.tsq'), Buffer.concat(chunks));
      ssl(
        'ts',
        '-reply',
        '-config',
        'ca.cnf',
        '-section',
        'tsa_config',
        '-queryfile',
        join(work, 'q.tsq'),
        '-out',
        join(work, 'r.tsr'),
      )
        .then(() => {
          res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
          res.end(readFileSync(join(work, 'r.tsr')));
        })
        .catch((error: Error) => {
          res.writeHead(500);
          res.end(error.message);
        });
    });
  });
  await new Promise<void>((resolve) => tsaServer.listen(0, '127.0.0.1', resolve));
  const tsaUrl = `http://127.0.0.1:${(tsaServer.address() as { port: number }).port}/`;

  let responder: ChildProcess | null = null;
  let ocspPort = 0;
  const startResponder = async () => {
    ocspPort = await freePort();
    responder = spawn(
      'openssl',
      [
        'ocsp',
        '-index',
        'index.txt',
        '-port',
        String(ocspPort),
        '-rsigner',
        'ocsp.pem',
        '-rkey',
        'ocsp.key',
        '-CA',
        'ca.pem',
        '-nmin',
        '60',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Ready once it says so (a probe connection that sends no request would hang the one-at-a-time responder).
    await new Promise<void>((resolve, reject) => {
      let said = '';
      const listen = (chunk: Buffer) => {
        said += chunk.toString();
        if (/waiting for OCSP client connections/.test(said)) resolve();
      };
      responder!.stdout!.on('data', listen);
      responder!.stderr!.on('data', listen);
      responder!.once('exit', (code) => reject(new Error(`openssl ocsp exited (${code}): ${said}`)));
    });
  };
  const stopResponder = async () => {
    const child = responder;
    responder = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill();
    });
  };
  await startResponder();

  const pemOf = (der: Uint8Array) => new X509Certificate(der).toString();
  const ocsp: RevocationProvider = {
    async getOCSP(cert, issuer) {
      const work = mkdtempSync(join(dir, 'ocsp-'));
      writeFileSync(join(work, 'cert.pem'), pemOf(cert));
      writeFileSync(join(work, 'issuer.pem'), pemOf(issuer));
      await ssl(
        'ocsp',
        '-issuer',
        join(work, 'issuer.pem'),
        '-cert',
        join(work, 'cert.pem'),
        '-url',
        `http://127.0.0.1:${ocspPort}`,
        '-respout',
        join(work, 'r.der'),
        '-noverify',
      );
      return new Uint8Array(readFileSync(join(work, 'r.der')));
    },
  };
  const crl: RevocationProvider = {
    async getCRL() {
      const work = mkdtempSync(join(dir, 'crl-'));
      await ssl(
        'ca',
        '-config',
        'ca.cnf',
        '-cert',
        'ca.pem',
        '-keyfile',
        'ca.key',
        '-gencrl',
        '-out',
        join(work, 'ca.crl'),
      );
      await ssl('crl', '-in', join(work, 'ca.crl'), '-outform', 'DER', '-out', join(work, 'ca.der'));
      return new Uint8Array(readFileSync(join(work, 'ca.der')));
    },
  };
  const tsa = new HttpTimestampAuthority(tsaUrl);

  let issued = 0;
  const pki: LtvPki = {
    dir,
    caFile: join(dir, 'ca.pem'),
    ca: new X509Certificate(readFileSync(join(dir, 'ca.pem'))),
    tsa,
    ocsp,
    crl,
    async issue(cn, minutes) {
      const name = `signer${++issued}`;
      const now = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      await ssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-subj',
        `/CN=${cn}`,
        '-out',
        `${name}.csr`,
      );
      await ssl(
        ...caArgs,
        '-in',
        `${name}.csr`,
        '-out',
        `${name}.pem`,
        '-extensions',
        'signer',
        '-startdate',
        stamp(now),
        '-enddate',
        stamp(new Date(now.getTime() + 60_000 + minutes * 60_000)),
      );
      await ssl(
        'pkcs12',
        '-export',
        '-inkey',
        `${name}.key`,
        '-in',
        `${name}.pem`,
        '-certfile',
        'ca.pem',
        '-out',
        `${name}.p12`,
        '-passout',
        'pass:test',
      );
      // The responder notices a changed index only after its next request: start it again to answer for this one.
      await stopResponder();
      await startResponder();
      const pem = join(dir, `${name}.pem`);
      return {
        signer: await P12Signer.create(readFileSync(join(dir, `${name}.p12`)), 'test'),
        pem,
        certificate: new X509Certificate(readFileSync(pem)),
      };
    },
    async revoke(pem) {
      await ssl('ca', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-revoke', pem);
      await stopResponder();
      await startResponder();
    },
    async sign(pdf, signer, level, options = {}) {
      const doc = await PDF.load(pdf);
      const { bytes } = await doc.sign({
        signer,
        fieldName: options.fieldName ?? 'esign_party_1',
        reason: options.reason ?? 'Signed by Asha Verma with Aadhaar eSign (Ref ID 1234567890)',
        level,
        ...(level === 'B-B' ? {} : { timestampAuthority: tsa }),
        ...(level === 'B-LT' || level === 'B-LTA'
          ? { revocationProvider: options.revocation === 'crl' ? crl : ocsp }
          : {}),
      });
      return Buffer.from(bytes);
    },
    async addValidationData(pdf) {
      const doc = await PDF.load(pdf);
      const { bytes } = await doc.addValidationData({ revocationProvider: ocsp });
      return Buffer.from(bytes);
    },
    async stop() {
      await stopResponder();
      await new Promise((resolve) => tsaServer.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return pki;
}

/** A PDF of the shared fixtures (shared/ beside the checkout, or $SHARED_DIR). */
export function fixturePdf(name = 'normal.pdf'): Buffer {
  const repo = join(__dirname, '..', '..', '..', '..');
  const candidates = [process.env.SHARED_DIR, join(repo, '..', 'shared')].filter((d): d is string => Boolean(d));
  for (const dir of candidates) {
    try {
      return readFileSync(join(dir, 'fixtures', 'pdfs', name));
    } catch {
      // the next candidate
    }
  }
  throw new Error(`The shared fixture ${name} was not found (looked in ${candidates.join(', ')})`);
}
