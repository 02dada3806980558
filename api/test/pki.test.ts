import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { manage } from '../src/manage';
import { EspKeys } from '../src/modules/aadhaar/esp-keys.service';
import { OrganisationsService } from '../src/modules/organisations/organisations.service';
import { PkiCertificateEntity } from '../src/modules/signing/pki/pki-certificate.entity';
import { SealKeyEntity } from '../src/modules/signing/pki/seal-key.entity';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { run, runOk } from './support/processes';
import { createOrgWithUser, startTestApp, type TestApp } from './support/test-app';

/**
 * The development PKI answers for its certificates as a public CA does (issue 19), checked with OpenSSL as the
 * independent client: every certificate it issues names its OCSP responder, its issuer's certificate and its CRL; the
 * responder at /pki/ocsp answers good, then revoked after `manage revoke-certificate`, unknown for a serial it never
 * issued, malformedRequest for what is not a request; the CRL at /pki/crl/{ca}.crl is signed by the CA and lists what it
 * revoked.
 */

const pemOfDer = (der: Uint8Array) => `${new x509.X509Certificate(Buffer.from(der)).toString('pem')}\n`;

describe('the development PKI: AIA, OCSP and CRLs, with OpenSSL as the client', () => {
  let t: TestApp;
  let dir: string;
  let base: string;
  const file: Record<string, string> = {};

  const write = (name: string, content: string | Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const manageRun = async (args: string[]) => {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await manage(args, t.env, {
      out: (l) => lines.push(l),
      err: (l) => errors.push(l),
      readStdin: async () => '',
    });
    return { code, lines, errors };
  };
  const ocsp = (issuer: string, cert: string, trust = file.root, extra: string[] = []) =>
    run('openssl', [
      'ocsp',
      '-issuer',
      file[issuer],
      '-cert',
      file[cert],
      '-url',
      `${base}/pki/ocsp`,
      '-CAfile',
      trust,
      '-resp_text',
      ...extra,
    ]);
  const serialOf = async (name: string) =>
    (await runOk('openssl', ['x509', '-in', file[name], '-noout', '-serial'])).stdout.trim().replace(/^serial=/, '');
  /** The URLs `openssl x509 -text` finds in a certificate's AIA and CRL distribution points. */
  const linksOf = async (name: string) => {
    const text = (await runOk('openssl', ['x509', '-in', file[name], '-noout', '-text'])).stdout;
    return {
      text,
      ocsp: /OCSP - URI:(\S+)/.exec(text)?.[1],
      caIssuers: /CA Issuers - URI:(\S+)/.exec(text)?.[1],
      crl: /X509v3 CRL Distribution Points:\s*\n\s*Full Name:\s*\n\s*URI:(\S+)/.exec(text)?.[1],
    };
  };
  const fetchBytes = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, type: res.headers.get('content-type'), body: new Uint8Array(await res.arrayBuffer()) };
  };
  const postOcsp = async (body: Uint8Array | string, type = 'application/ocsp-request') => {
    const res = await fetch(`${base}/pki/ocsp`, { method: 'POST', headers: { 'Content-Type': type }, body });
    return { status: res.status, type: res.headers.get('content-type'), body: new Uint8Array(await res.arrayBuffer()) };
  };
  const responseText = async (der: Uint8Array) =>
    (await run('openssl', ['ocsp', '-respin', write(`r${Date.now()}.der`, der), '-resp_text', '-noverify'])).out;

  beforeAll(async () => {
    t = await startTestApp();
    base = t.config.publicUrl;
    dir = mkdtempSync(join(tmpdir(), 'esign-pki-'));
    await createOrgWithUser(t, 'acme');
    const org = await t.app.get(OrganisationsService).get('acme');
    const pki = t.app.get(SealPkiService);
    await pki.sealSigner(org);
    const once = await pki.signerFor(org, { name: 'Asha Rao', email: 'asha@example.in' });
    file.signer = write('signer.pem', pemOfDer(once.signer.certificate));
    file.tsa = write('tsa.pem', (await pki.devTsa()).certPem);
    const keys = await t.db.getRepository(SealKeyEntity).find();
    const pem = (id: string) => keys.find((k) => k.id === id)!.certPem;
    file.root = write('root.pem', pem('root'));
    file.orgCa = write('org-ca.pem', pem('acme:issuer'));
    file.seal = write('seal.pem', pem('acme:seal'));
    file.orgChain = write('org-chain.pem', pem('acme:issuer') + pem('root'));
    const sandbox = await t.app.get(EspKeys).sandbox();
    file.espCa = write('esp-ca.pem', sandbox.ca.certPem);
    file.esp = write('esp.pem', sandbox.esp.certPem);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it.each([
    ['the seal certificate', 'seal', 'orgCa'],
    ["a signer's one-time certificate", 'signer', 'orgCa'],
    ["the organisation's issuing CA", 'orgCa', 'root'],
    ["the development TSA's certificate", 'tsa', 'root'],
    ["the sandbox ESP's signer", 'esp', 'espCa'],
  ])('%s names its OCSP responder, its issuer and its CRL, and they answer', async (_what, cert, issuer) => {
    const links = await linksOf(cert);
    expect(links.text).toContain('Authority Information Access');
    expect(links.text).toContain('X509v3 CRL Distribution Points');
    expect(links.ocsp).toBe(`${base}/pki/ocsp`);
    const caId = new RegExp(`^${base}/pki/ca/([a-z0-9_-]+)\\.crt$`).exec(links.caIssuers ?? '')?.[1];
    expect(caId).toBeTruthy();
    expect(links.crl).toBe(`${base}/pki/crl/${caId}.crl`);

    // caIssuers: the issuer's certificate, DER.
    const ca = await fetchBytes(links.caIssuers!);
    expect([ca.status, ca.type]).toEqual([200, 'application/pkix-cert']);
    const fingerprint = async (args: string[]) =>
      (await runOk('openssl', ['x509', ...args, '-noout', '-fingerprint', '-sha256'])).stdout;
    expect(await fingerprint(['-inform', 'DER', '-in', write(`${caId}.crt`, ca.body)])).toBe(
      await fingerprint(['-in', file[issuer]]),
    );

    // The OCSP responder it names: good, the response verified up to the trust anchor, our nonce echoed.
    const trust = issuer === 'espCa' ? file.espCa : file.root;
    const answer = await ocsp(issuer, cert, trust);
    expect(answer.code).toBe(0);
    expect(answer.out).toContain(`${file[cert]}: good`);
    expect(answer.out).toContain('Response verify OK');
    expect(answer.out).toMatch(/OCSP Nonce:/);
    expect(answer.out).not.toMatch(/WARNING/);
    expect(answer.out).toMatch(/This Update: .*\n\s*Next Update: /);

    // The CRL it names: DER, signed by the issuer, with a number and a next update.
    const crl = await fetchBytes(links.crl!);
    expect([crl.status, crl.type]).toEqual([200, 'application/pkix-crl']);
    const chain = issuer === 'espCa' ? file.espCa : issuer === 'orgCa' ? file.orgChain : file.root;
    const checked = await run('openssl', [
      'crl',
      '-inform',
      'DER',
      '-in',
      write(`${caId}.crl`, crl.body),
      '-CAfile',
      chain,
      '-noout',
      '-text',
    ]);
    expect(checked.out).toContain('verify OK');
    expect(checked.out).toMatch(/X509v3 CRL Number:/);
    expect(checked.out).toMatch(/Next Update: /);
  });

  it('records every certificate its CAs issue, once, in the registry', async () => {
    const rows = await t.db.getRepository(PkiCertificateEntity).find();
    // (and each CA's delegated OCSP responder, made at its first answer)
    const kinds = rows
      .map((r) => r.kind)
      .filter((k) => k !== 'ocsp')
      .sort();
    expect(kinds).toEqual(['asp', 'ca', 'esp', 'root', 'root', 'seal', 'signer', 'tsa']);
    const signer = rows.find((r) => r.kind === 'signer')!;
    expect(signer.serial).toBe((await serialOf('signer')).toLowerCase());
    expect(signer.subject).toBe('O=Org acme, CN=Asha Rao, E=asha@example.in');
    expect([signer.orgId, signer.revokedAt]).toEqual(['acme', null]);
  });

  it('answers revoked after manage revoke-certificate, with the time and reason, and the CRL lists it', async () => {
    const links = await linksOf('seal');
    const before = await run('openssl', [
      'crl',
      '-inform',
      'DER',
      '-in',
      write('before.crl', (await fetchBytes(links.crl!)).body),
      '-CAfile',
      file.orgChain,
      '-noout',
      '-text',
    ]);
    expect(before.out).toContain('No Revoked Certificates.');

    const serial = await serialOf('seal');
    const revoked = await manageRun(['revoke-certificate', '--serial', serial, '--reason', 'keyCompromise']);
    expect(revoked).toMatchObject({ code: 0, errors: [] });
    expect(revoked.lines[0]).toMatch(
      new RegExp(
        `^Revoked "O=Org acme, 2\\.5\\.4\\.5=acme, CN=Org acme Document Seal" \\(serial ${serial.toLowerCase()}, CA org-acme-[0-9a-f]{12}\\) at \\S+Z: keyCompromise\\.`,
      ),
    );

    const answer = await ocsp('orgCa', 'seal');
    expect(answer.out).toContain(`${file.seal}: revoked`);
    expect(answer.out).toContain('Reason: keyCompromise');
    expect(answer.out).toMatch(/Revocation Time: /);
    expect(answer.out).toContain('Response verify OK');
    // The other certificates of the same CA are still good.
    expect((await ocsp('orgCa', 'signer')).out).toContain(`${file.signer}: good`);

    const after = await run('openssl', [
      'crl',
      '-inform',
      'DER',
      '-in',
      write('after.crl', (await fetchBytes(links.crl!)).body),
      '-CAfile',
      file.orgChain,
      '-noout',
      '-text',
    ]);
    expect(after.out).toContain('verify OK');
    expect(after.out).toContain(`Serial Number: ${serial}`);
    expect(after.out).toContain('Key Compromise');

    // Once is enough; the root cannot be; what was never issued here is not found.
    expect(await manageRun(['revoke-certificate', '--serial', serial])).toMatchObject({
      code: 1,
      errors: [expect.stringMatching(/was already revoked on .*\(keyCompromise\)\.$/)],
    });
    expect(await manageRun(['revoke-certificate', '--serial', await serialOf('root')])).toMatchObject({
      code: 1,
      errors: [expect.stringContaining('is a root CA')],
    });
    expect(await manageRun(['revoke-certificate', '--serial', '0x0123456789abcdef'])).toMatchObject({
      code: 1,
      errors: [
        "No certificate with serial 123456789abcdef was issued by this installation's certification authorities.",
      ],
    });
    expect((await manageRun(['revoke-certificate', '--serial', serial, '--reason', 'lunch'])).code).toBe(2);
    expect((await manageRun(['revoke-certificate', '--serial', 'not-hex'])).code).toBe(1);
  });

  it('replaces a revoked OCSP responder at the next answer', async () => {
    const caId = /\/pki\/ca\/([a-z0-9_-]+)\.crt$/.exec((await linksOf('signer')).caIssuers!)![1];
    const responders = () => t.db.getRepository(PkiCertificateEntity).find({ where: { kind: 'ocsp', caId } });
    const signedBy = async () => {
      const text = (await ocsp('orgCa', 'signer')).out;
      expect(text).toContain(`${file.signer}: good`);
      expect(text).toContain('Response verify OK');
      // The responder's certificate travels in the response: its serial, as OpenSSL prints it.
      return /Certificate:\s+Data:\s+Version: \d+ \(0x\d\)\s+Serial Number:\s+([0-9a-f:]+)/i
        .exec(text)![1]
        .replace(/:/g, '')
        .toLowerCase()
        .replace(/^0+/, '');
    };
    const first = await signedBy();
    const [current] = await responders();
    expect(first).toBe(current.serial);
    expect(await manageRun(['revoke-certificate', '--serial', current.serial, '--reason', 'superseded'])).toMatchObject(
      {
        code: 0,
      },
    );
    const replaced = await signedBy();
    expect(replaced).not.toBe(current.serial);
    const rows = (await responders()).map((r) => [r.serial, r.revokedAt !== null]);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        [current.serial, true],
        [replaced, false],
      ]),
    );
  });

  it('answers unknown for a serial its CA never issued, and unauthorized for a CA it does not hold', async () => {
    const unknown = await run('openssl', [
      'ocsp',
      '-issuer',
      file.orgCa,
      '-serial',
      '0x0123456789ABCDEF',
      '-url',
      `${base}/pki/ocsp`,
      '-CAfile',
      file.root,
      '-resp_text',
    ]);
    expect(unknown.out).toContain('0x0123456789ABCDEF: unknown');
    expect(unknown.out).toContain('Response verify OK');

    // A CA made by OpenSSL: not ours.
    const otherKey = join(dir, 'other.key');
    const other = join(dir, 'other.pem');
    await runOk('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=Someone Else CA',
      '-keyout',
      otherKey,
      '-out',
      other,
    ]);
    const foreign = await run('openssl', [
      'ocsp',
      '-issuer',
      other,
      '-serial',
      '0x1234',
      '-url',
      `${base}/pki/ocsp`,
      '-resp_text',
    ]);
    expect(foreign.out).toMatch(/Responder Error: unauthorized \(6\)/);
  });

  it('answers malformedRequest (HTTP 200, an OCSP response) to what is not an OCSP request, never an error', async () => {
    const malformed = 'Responder Error: malformedrequest (1)';
    for (const [body, type] of [
      [new Uint8Array([0x30, 0x03, 0x02, 0x01]), 'application/ocsp-request'],
      [new Uint8Array(0), 'application/ocsp-request'],
      ['{"not":"ocsp"}', 'application/json'],
      ['serial=1', 'application/x-www-form-urlencoded'],
      [new Uint8Array(100 * 1024).fill(0x30), 'application/ocsp-request'],
      // A certificate is DER too, but not a request.
      [await derOf(file.root), 'application/ocsp-request'],
    ] as const) {
      const res = await postOcsp(body, type);
      expect({ status: res.status, type: res.type }).toEqual({ status: 200, type: 'application/ocsp-response' });
      expect(await responseText(res.body)).toContain(malformed);
    }
    for (const path of ['bm90IGFuIE9DU1AgcmVxdWVzdA==', '-_-_', 'A'.repeat(12_004)]) {
      const res = await fetchBytes(`${base}/pki/ocsp/${path}`);
      expect({ status: res.status, type: res.type }).toEqual({ status: 200, type: 'application/ocsp-response' });
      expect(await responseText(res.body)).toContain(malformed);
    }
    // A path that is not even percent-encoding never reaches the responder: the router's 400, not an error.
    const undecodable = await t.http.get('/pki/ocsp/%%%');
    expect([undecodable.status, undecodable.body.error]).toEqual([400, 'BAD_REQUEST']);
  });

  it('answers the GET form (RFC 6960 A.1) as pdfsig sends it: the base64 request in the path, percent-encoded', async () => {
    const req = join(dir, 'get.req');
    await runOk('openssl', ['ocsp', '-issuer', file.orgCa, '-cert', file.signer, '-reqout', req, '-no_nonce']);
    const encoded = encodeURIComponent(readFileSync(req).toString('base64'));
    expect(encoded).toMatch(/%2F|%2B|%3D/);
    for (const path of [encoded, readFileSync(req).toString('base64')]) {
      const res = await fetchBytes(`${base}/pki/ocsp/${path}`);
      expect(res.type).toBe('application/ocsp-response');
      const checked = await run('openssl', [
        'ocsp',
        '-respin',
        write('get.der', res.body),
        '-issuer',
        file.orgCa,
        '-cert',
        file.signer,
        '-CAfile',
        file.root,
        '-no_nonce',
      ]);
      expect(checked.out).toContain(`${file.signer}: good`);
      expect(checked.out).toContain('Response verify OK');
    }
  });

  it('answers 404 for a CA it does not know', async () => {
    for (const path of ['/pki/crl/org-nobody-000000000000.crl', '/pki/ca/NOT..A..CA.crt']) {
      const res = await t.http.get(path);
      expect([res.status, res.body.error]).toEqual([404, 'NOT_FOUND']);
    }
  });
});

async function derOf(pemFile: string): Promise<Uint8Array> {
  return new Uint8Array(new x509.X509Certificate(readFileSync(pemFile, 'utf8')).rawData);
}
