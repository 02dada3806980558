import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { OrganisationsService } from '../src/modules/organisations/organisations.service';
import { CertificateRevokedError, Revocation, RevocationRecord } from '../src/modules/signing/evidence/revocation';
import { issueSignerCertificate, loadIssuer } from '../src/modules/signing/pki/certificates';
import { PkiRegistry } from '../src/modules/signing/pki/pki-registry.service';
import { SealKeyEntity } from '../src/modules/signing/pki/seal-key.entity';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { freePort } from './support/mariadb-server';
import { run, runOk, startProcess } from './support/processes';
import { createOrgWithUser, startTestApp, type TestApp } from './support/test-app';

/**
 * The Revocation implementation (issue 19) against an OCSP responder and CRLs this project did not write: a test CA made
 * with `openssl req`/`openssl ca`, OpenSSL's own responder (`openssl ocsp -index`) and CRLs (`openssl ca -gencrl`)
 * started by the test; then the development PKI's answers in process, with no HTTP to itself.
 */

const der = (pem: string) => new Uint8Array(new x509.X509Certificate(pem).rawData);
const serialHex = (pem: string) => new x509.X509Certificate(pem).serialNumber.toLowerCase().replace(/^0+/, '');

describe('revocation of other CAs: OpenSSL as the OCSP responder and the CRL issuer', () => {
  let t: TestApp;
  let dir: string;
  let revocation: Revocation;
  let ocspPort: number;
  let crlPort: number;
  let deadPort: number;
  let silentPort: number;
  let responder: Awaited<ReturnType<typeof startProcess>> | null = null;
  let crlServer: Server;
  let silent: TcpServer;
  const sockets: Socket[] = [];
  const path = (name: string) => join(dir, name);
  const pem = (name: string) => readFileSync(path(name), 'utf8');

  const ca = (...args: string[]) => runOk('openssl', ['ca', '-batch', '-config', path('ca.cnf'), ...args]);
  async function issue(name: string, extensions: string): Promise<string> {
    await runOk('openssl', [
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.csr`),
    ]);
    await ca('-in', path(`${name}.csr`), '-out', path(`${name}.pem`), '-extensions', extensions);
    return pem(`${name}.pem`);
  }
  async function startResponder(signer = 'responder') {
    await responder?.stop();
    responder = await startProcess(
      'openssl',
      [
        'ocsp',
        '-index',
        path('index.txt'),
        '-port',
        String(ocspPort),
        '-rsigner',
        path(`${signer}.pem`),
        '-rkey',
        path(`${signer}.key`),
        '-CA',
        path('ca.pem'),
        '-nmin',
        '10',
      ],
      /waiting for OCSP client connections/,
    );
  }
  async function gencrl() {
    await ca('-gencrl', '-out', path('crl.pem'));
    await runOk('openssl', ['crl', '-in', path('crl.pem'), '-outform', 'DER', '-out', path('crl.der')]);
  }

  beforeAll(async () => {
    t = await startTestApp();
    revocation = t.app.get(Revocation);
    dir = mkdtempSync(join(tmpdir(), 'esign-revocation-'));
    [ocspPort, crlPort, deadPort, silentPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    writeFileSync(path('index.txt'), '');
    writeFileSync(path('serial'), '1000\n');
    writeFileSync(path('crlnumber'), '1000\n');
    const leaf = (aia: string) =>
      `basicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature,nonRepudiation\n` +
      `subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n${aia}\n`;
    writeFileSync(
      path('ca.cnf'),
      `[ca]\ndefault_ca = test_ca\n[test_ca]\ndir = ${dir}\ndatabase = ${dir}/index.txt\nnew_certs_dir = ${dir}\n` +
        `serial = ${dir}/serial\ncrlnumber = ${dir}/crlnumber\ncertificate = ${dir}/ca.pem\nprivate_key = ${dir}/ca.key\n` +
        `default_md = sha256\ndefault_days = 365\ndefault_crl_days = 1\npolicy = any\ncopy_extensions = none\n` +
        `unique_subject = no\n[any]\ncommonName = supplied\n` +
        `[ocsp_leaf]\n${leaf(`authorityInfoAccess = OCSP;URI:http://127.0.0.1:${ocspPort}`)}` +
        `[crl_leaf]\n${leaf(`crlDistributionPoints = URI:http://127.0.0.1:${crlPort}/test-ca.crl`)}` +
        `[nowhere_leaf]\n${leaf(`authorityInfoAccess = OCSP;URI:http://127.0.0.1:${deadPort}/ocsp\ncrlDistributionPoints = URI:http://127.0.0.1:${deadPort}/ca.crl`)}` +
        `[silent_leaf]\n${leaf(`authorityInfoAccess = OCSP;URI:http://127.0.0.1:${silentPort}/ocsp`)}` +
        `[bare_leaf]\n${leaf('')}` +
        `[responder]\nbasicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\n` +
        `extendedKeyUsage = OCSPSigning\nnoCheck = ignored\n`,
    );
    await runOk('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      '/O=Test Trust Services/CN=Test Issuing CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      path('ca.key'),
      '-out',
      path('ca.pem'),
    ]);
    await issue('responder', 'responder');
    await startResponder();
    await gencrl();
    crlServer = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/pkix-crl' });
      res.end(readFileSync(path('crl.der')));
    });
    await new Promise<void>((resolve) => crlServer.listen(crlPort, '127.0.0.1', resolve));
    // Accepts connections and never answers: a responder that hangs.
    silent = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await responder?.stop();
    sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => crlServer.close(resolve));
    await new Promise((resolve) => silent.close(resolve));
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it("gets OpenSSL's OCSP response through the certificate's AIA; after openssl ca -revoke, signing is refused", async () => {
    const leaf = await issue('Ocsp Leaf', 'ocsp_leaf');
    // OpenSSL's responder reads its index when it starts.
    await startResponder();
    const record = new RevocationRecord();
    const response = await revocation.provider(record).getOCSP!(der(leaf), der(pem('ca.pem')));
    expect(record.gaps).toEqual([]);
    expect(response).not.toBeNull();
    writeFileSync(path('good.der'), response!);
    const good = await run('openssl', [
      'ocsp',
      '-respin',
      path('good.der'),
      '-issuer',
      path('ca.pem'),
      '-cert',
      path('Ocsp Leaf.pem'),
      '-CAfile',
      path('ca.pem'),
      '-no_nonce',
    ]);
    expect(good.out).toContain('Ocsp Leaf.pem: good');
    expect(good.out).toContain('Response verify OK');
    await expect(revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))])).resolves.toBeUndefined();

    await ca('-revoke', path('Ocsp Leaf.pem'), '-crl_reason', 'keyCompromise');
    await startResponder();
    const revoked = await revocation.provider(new RevocationRecord()).getOCSP!(der(leaf), der(pem('ca.pem')));
    writeFileSync(path('revoked.der'), revoked!);
    expect(
      (
        await run('openssl', [
          'ocsp',
          '-respin',
          path('revoked.der'),
          '-issuer',
          path('ca.pem'),
          '-cert',
          path('Ocsp Leaf.pem'),
          '-CAfile',
          path('ca.pem'),
          '-no_nonce',
        ])
      ).out,
    ).toContain('Ocsp Leaf.pem: revoked');
    const refused = revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))]);
    await expect(refused).rejects.toBeInstanceOf(CertificateRevokedError);
    await expect(refused).rejects.toMatchObject({
      subject: 'CN=Ocsp Leaf',
      serial: serialHex(leaf),
      message: `The certificate "CN=Ocsp Leaf" (serial ${serialHex(leaf)}) has been revoked; nothing was signed with it.`,
    });
  });

  it('refuses an OCSP answer signed by a responder the issuer did not authorise: a recorded gap, no throw', async () => {
    const leaf = await issue('Misanswered Leaf', 'ocsp_leaf');
    // The responder signs with the CA's TLS-style leaf: no id-kp-OCSPSigning.
    await issue('Not A Responder', 'bare_leaf');
    await startResponder('Not A Responder');
    try {
      const record = new RevocationRecord();
      const provider = revocation.provider(record);
      expect(await provider.getOCSP!(der(leaf), der(pem('ca.pem')))).toBeNull();
      expect(await provider.getCRL!(der(leaf))).toBeNull();
      expect(record.gaps).toEqual([
        {
          subject: 'CN=Misanswered Leaf',
          serial: serialHex(leaf),
          reason: `OCSP: http://127.0.0.1:${ocspPort}: the response is not signed by the issuer or a responder it authorised; CRL: the certificate names no CRL distribution point`,
        },
      ]);
      await expect(revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))])).resolves.toBeUndefined();
    } finally {
      await startResponder();
    }
  });

  it('falls back to the CRL distribution point (signature and dates checked); a listed serial refuses signing', async () => {
    const leaf = await issue('Crl Leaf', 'crl_leaf');
    const record = new RevocationRecord();
    const provider = revocation.provider(record);
    expect(await provider.getOCSP!(der(leaf), der(pem('ca.pem')))).toBeNull();
    expect(record.gaps.map((g) => g.reason)).toEqual(['OCSP: the certificate names no OCSP responder']);
    const crl = await provider.getCRL!(der(leaf));
    expect(crl).not.toBeNull();
    // The CRL answered: the gap is withdrawn.
    expect(record.gaps).toEqual([]);
    writeFileSync(path('fetched.crl'), crl!);
    expect(
      (await run('openssl', ['crl', '-inform', 'DER', '-in', path('fetched.crl'), '-CAfile', path('ca.pem'), '-noout']))
        .out,
    ).toContain('verify OK');
    await expect(revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))])).resolves.toBeUndefined();

    await ca('-revoke', path('Crl Leaf.pem'), '-crl_reason', 'superseded');
    await gencrl();
    await expect(revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))])).rejects.toMatchObject({
      name: 'CertificateRevokedError',
      subject: 'CN=Crl Leaf',
    });
  });

  it('records a gap, and does not block, when the AIA and CRL point nowhere', async () => {
    const leaf = await issue('Nowhere Leaf', 'nowhere_leaf');
    const record = new RevocationRecord();
    const provider = revocation.provider(record);
    expect(await provider.getOCSP!(der(leaf), der(pem('ca.pem')))).toBeNull();
    expect(await provider.getCRL!(der(leaf))).toBeNull();
    expect(record.gaps).toEqual([
      {
        subject: 'CN=Nowhere Leaf',
        serial: serialHex(leaf),
        reason: `OCSP: http://127.0.0.1:${deadPort}/ocsp: ECONNREFUSED; CRL: http://127.0.0.1:${deadPort}/ca.crl: ECONNREFUSED`,
      },
    ]);
    await expect(revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))])).resolves.toBeUndefined();
  });

  it('gives a responder that does not answer 5 seconds, then records the gap', async () => {
    const leaf = await issue('Silent Leaf', 'silent_leaf');
    const record = new RevocationRecord();
    const started = Date.now();
    expect(await revocation.provider(record).getOCSP!(der(leaf), der(pem('ca.pem')))).toBeNull();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(8_000);
    expect(record.gaps).toEqual([
      {
        subject: 'CN=Silent Leaf',
        serial: serialHex(leaf),
        reason: `OCSP: http://127.0.0.1:${silentPort}/ocsp: no answer within 5 s`,
      },
    ]);
    // Before a signature the same wait is not paid again for a minute.
    const first = Date.now();
    await revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))]);
    expect(Date.now() - first).toBeGreaterThanOrEqual(4_900);
    const second = Date.now();
    await revocation.assertNotRevoked([der(leaf), der(pem('ca.pem'))]);
    expect(Date.now() - second).toBeLessThan(1_000);
  }, 30_000);
});

describe("revocation of the development PKI's certificates: answered in process, from the registry", () => {
  let t: TestApp;
  let revocation: Revocation;
  let dir: string;
  const chain: Record<string, string> = {};

  beforeAll(async () => {
    // Nothing listens at this PUBLIC_URL: every answer below comes from the registry, in process.
    t = await startTestApp({ PUBLIC_URL: `http://127.0.0.1:${await freePort()}` });
    revocation = t.app.get(Revocation);
    dir = mkdtempSync(join(tmpdir(), 'esign-revocation-dev-'));
    await createOrgWithUser(t, 'acme');
    await t.app.get(SealPkiService).sealSigner(await t.app.get(OrganisationsService).get('acme'));
    for (const row of await t.db.getRepository(SealKeyEntity).find()) chain[row.id] = row.certPem;
    for (const [id, certPem] of Object.entries(chain)) writeFileSync(join(dir, `${id.replace(':', '-')}.pem`), certPem);
    // OpenSSL checks the answers' dates against the real time; the test's clock starts a few days back.
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  const checkResponse = async (response: Uint8Array, cert: string, issuer: string) => {
    writeFileSync(join(dir, 'answer.der'), response);
    return (
      await run('openssl', [
        'ocsp',
        '-respin',
        join(dir, 'answer.der'),
        '-issuer',
        join(dir, `${issuer}.pem`),
        '-cert',
        join(dir, `${cert}.pem`),
        '-CAfile',
        join(dir, 'root.pem'),
        '-no_nonce',
      ])
    ).out;
  };

  it('answers OCSP and CRLs for its certificates without a network, and a revocation at once', async () => {
    const record = new RevocationRecord();
    const provider = revocation.provider(record);
    const seal = der(chain['acme:seal']);
    const orgCa = der(chain['acme:issuer']);
    const root = der(chain.root);

    const forSeal = await provider.getOCSP!(seal, orgCa);
    const good = await checkResponse(forSeal!, 'acme-seal', 'acme-issuer');
    expect(good).toContain('acme-seal.pem: good');
    expect(good).toContain('Response verify OK');
    expect(good).not.toMatch(/WARNING/);
    const forCa = await provider.getOCSP!(orgCa, root);
    expect(await checkResponse(forCa!, 'acme-issuer', 'root')).toContain('acme-issuer.pem: good');
    // A trust anchor needs no revocation data, and it is not a gap.
    expect(await provider.getCRL!(root)).toBeNull();
    expect(record.gaps).toEqual([]);
    await expect(revocation.assertNotRevoked([seal, orgCa, root])).resolves.toBeUndefined();

    await t.app.get(PkiRegistry).revoke(serialHex(chain['acme:seal']), 'cessationOfOperation');
    const after = await revocation.provider(new RevocationRecord()).getOCSP!(seal, orgCa);
    const text = await checkResponse(after!, 'acme-seal', 'acme-issuer');
    expect(text).toContain('acme-seal.pem: revoked');
    expect(text).toContain('Reason: cessationOfOperation');
    writeFileSync(join(dir, 'dev.crl'), (await provider.getCRL!(seal))!);
    const crl = await run('openssl', ['crl', '-inform', 'DER', '-in', join(dir, 'dev.crl'), '-noout', '-text']);
    expect(crl.out).toMatch(new RegExp(`Serial Number: ${serialHex(chain['acme:seal']).toUpperCase()}`));
    await expect(revocation.assertNotRevoked([seal, orgCa, root])).rejects.toMatchObject({
      name: 'CertificateRevokedError',
      serial: serialHex(chain['acme:seal']),
    });
  });

  it("a certificate its registry does not know (made before it kept one): no OCSP, the CA's CRL instead", async () => {
    const issuer = await loadIssuer(
      {
        certPem: chain['acme:issuer'],
        keyPem: (await t.db.getRepository(SealKeyEntity).findOneByOrFail({ id: 'acme:issuer' })).keyPem,
      },
      [chain.root],
    );
    const { certificatePem } = await issueSignerCertificate(
      issuer,
      { name: 'Old Signer', organisation: 'Org acme' },
      t.clock.now(),
    );
    const record = new RevocationRecord();
    const provider = revocation.provider(record);
    expect(await provider.getOCSP!(der(certificatePem), der(chain['acme:issuer']))).toBeNull();
    expect(record.gaps.map((g) => g.reason)).toEqual([
      "OCSP: not in the development PKI's registry (issued before it kept one)",
    ]);
    expect(await provider.getCRL!(der(certificatePem))).not.toBeNull();
    expect(record.gaps).toEqual([]);
  });
});
