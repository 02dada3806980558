import 'reflect-metadata';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createVerify, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, type Signer } from '@libpdf/core';
import * as x509 from '@peculiar/x509';
import {
  caIdOf,
  certificateInfo,
  generateCa,
  generateRootCa,
  issueOcspResponder,
  issueRsaLeaf,
  issueOrganisationCa,
  issueSealCertificate,
  issueSignerCertificate,
  issueTsaCertificate,
  loadIssuer,
  pdfSignerFromPem,
  pkiLinks,
  readPkcs12,
  type IssuerMaterial,
  type KeyPairPem,
  type PkiLinks,
} from './certificates';
import { fixturePath, sharedDir } from '../../../../test/support/fixtures';

const OPENSSL = '/usr/bin/openssl';
const PDF_VERIFY = join(sharedDir(), 'tools', 'pdf-verify');
const NORMAL_PDF = fixturePath('pdfs', 'normal.pdf');
const HOUR = 3_600_000;
const LEGACY_3DES = ['-keypbe', 'PBE-SHA1-3DES', '-certpbe', 'PBE-SHA1-3DES', '-macalg', 'sha1'];
const ORG = { id: 'org-42', name: 'Ramesh & Sons, "Tools" Ltd.' };
const TRICKY_NAMES = ['Ramesh Kumar, Jr.', 'श्रीनिवास', `Zoë "Zed" O'Brien + Co; <x> \\ =#`];

const now = new Date();
const notBefore = new Date(Math.floor((now.getTime() - HOUR) / 1000) * 1000);
let dir: string;
let root: KeyPairPem;
let orgCa: KeyPairPem;
let seal: KeyPairPem;
let issuer: IssuerMaterial;

const cert = (pem: string) => new x509.X509Certificate(pem);
const file = (name: string, content: string | Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { encoding: 'utf8', stdio: 'pipe' });
const sameKey = (a: string, b: string) => normalisePem(a) === normalisePem(b);
const normalisePem = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
const addYears = (date: Date, years: number) => {
  const result = new Date(date);
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
};

function p12(name: string, pair: KeyPairPem, chainPems: string[], password: string, extra: string[] = []): Uint8Array {
  const args = [
    'pkcs12',
    '-export',
    '-in',
    file(`${name}.pem`, pair.certPem),
    '-inkey',
    file(`${name}.key`, pair.keyPem),
  ];
  // openssl takes only the last -certfile, so the chain goes in as one file.
  if (chainPems.length) args.push('-certfile', file(`${name}-chain.pem`, chainPems.join('')));
  openssl(...args, '-passout', `pass:${password}`, '-out', join(dir, `${name}.p12`), ...extra);
  return readFileSync(join(dir, `${name}.p12`));
}

function extensions(c: x509.X509Certificate) {
  return {
    basic: c.getExtension(x509.BasicConstraintsExtension),
    usage: c.getExtension(x509.KeyUsagesExtension),
    ski: c.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
    aki: c.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId,
    san: c.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON(),
  };
}

/**
 * `hand` issued again through x509's generator: the same serial, validity, key and issuer key (RSA PKCS#1 v1.5
 * signatures are deterministic), the extensions in the order issue() gives them.
 */
async function throughX509(hand: x509.X509Certificate, by: IssuerMaterial, email: string | null, links?: PkiLinks) {
  return x509.X509CertificateGenerator.create({
    serialNumber: hand.serialNumber,
    subject: hand.subjectName,
    issuer: by.cert.subjectName,
    notBefore: hand.notBefore,
    notAfter: hand.notAfter,
    publicKey: hand.publicKey,
    signingKey: by.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
      ...(email ? [new x509.SubjectAlternativeNameExtension([{ type: 'email', value: email }])] : []),
      ...(links
        ? [
            new x509.AuthorityInfoAccessExtension({ ocsp: [links.ocspUrl], caIssuers: [links.caIssuersUrl] }),
            new x509.CRLDistributionPointsExtension([links.crlUrl]),
          ]
        : []),
      await x509.SubjectKeyIdentifierExtension.create(hand.publicKey),
      new x509.AuthorityKeyIdentifierExtension(extensions(by.cert).ski!),
    ],
  });
}

// Signs data with the Signer as libpdf would and checks the result against the certificate with OpenSSL's verifier.
async function expectWorkingSigner(signer: Signer) {
  const data = randomBytes(100);
  const signature = await signer.sign(data, 'SHA-256');
  const publicKey = file(
    'signer-public.pem',
    cert(x509.PemConverter.encode(signer.certificate, 'CERTIFICATE')).publicKey.toString('pem'),
  );
  expect(createVerify('sha256').update(data).verify(readFileSync(publicKey, 'utf8'), Buffer.from(signature))).toBe(
    true,
  );
}

async function signPdf(bytes: Uint8Array, signers: Signer[]): Promise<Uint8Array> {
  for (const [i, signer] of signers.entries()) {
    const pdf = await PDF.load(bytes);
    bytes = (await pdf.sign({ signer, fieldName: `Sig${i + 1}`, level: 'B-B', estimatedSize: 16384 })).bytes;
  }
  return bytes;
}

function pdfVerify(bytes: Uint8Array, ca: string) {
  const run = spawnSync('node', [PDF_VERIFY, file('signed.pdf', bytes), '--ca', file('trust.pem', ca)], {
    encoding: 'utf8',
  });
  const report = JSON.parse(run.stdout) as {
    ok: boolean;
    problems: string[];
    signatures: { signer: string; valid: boolean; trusted: boolean }[];
  };
  return { exitCode: run.status, ...report };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pki-spec-'));
  root = await generateRootCa(now);
  orgCa = await issueOrganisationCa(root, ORG, now);
  seal = await issueSealCertificate(orgCa, ORG, now);
  issuer = await loadIssuer(orgCa, [root.certPem]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated certificates', () => {
  it('makes a self-signed 20-year root CA with CA extensions', async () => {
    const c = cert(root.certPem);
    const ext = extensions(c);
    expect(await c.verify({ publicKey: c.publicKey, date: now })).toBe(true);
    expect(c.subjectName.getField('CN')).toEqual(['e-Sign Development Root CA']);
    expect(c.subjectName.getField('O')).toEqual(['e-Sign (development)']);
    expect(c.issuer).toBe(c.subject);
    expect(c.notBefore).toEqual(notBefore);
    expect(c.notAfter).toEqual(addYears(notBefore, 20));
    expect(ext.basic).toMatchObject({ ca: true, critical: true, pathLength: undefined });
    // digitalSignature too: the CA signs its own OCSP responses (RFC 5280 4.2.1.3, RFC 6960 4.2.2.2).
    expect(ext.usage).toMatchObject({
      usages: x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
      critical: true,
    });
    expect(ext.ski).toMatch(/^[0-9a-f]{40}$/);
    expect(ext.aki).toBe(ext.ski);
    expect(c.publicKey.algorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048 });
    expect(c.signatureAlgorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' } });
    expect(root.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('issues a 10-year organisation CA with pathLen 0 under the root', async () => {
    const c = cert(orgCa.certPem);
    const ext = extensions(c);
    expect(await c.verify({ publicKey: cert(root.certPem).publicKey, date: now })).toBe(true);
    expect(c.subjectName.getField('CN')).toEqual([`${ORG.name} e-Sign Seal CA`]);
    expect(c.subjectName.getField('O')).toEqual([ORG.name]);
    expect(c.subjectName.getField('2.5.4.5')).toEqual([ORG.id]);
    expect(c.issuer).toBe(cert(root.certPem).subject);
    expect(c.notBefore).toEqual(notBefore);
    expect(c.notAfter).toEqual(addYears(notBefore, 10));
    expect(ext.basic).toMatchObject({ ca: true, critical: true, pathLength: 0 });
    // digitalSignature too: the CA signs its own OCSP responses (RFC 5280 4.2.1.3, RFC 6960 4.2.2.2).
    expect(ext.usage).toMatchObject({
      usages: x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
      critical: true,
    });
    expect(ext.aki).toBe(extensions(cert(root.certPem)).ski);
    expect(ext.ski).not.toBe(ext.aki);
  });

  it('issues a 5-year RSA seal certificate under the organisation CA', async () => {
    const c = cert(seal.certPem);
    const ext = extensions(c);
    expect(await c.verify({ publicKey: cert(orgCa.certPem).publicKey, date: now })).toBe(true);
    expect(certificateInfo(seal.certPem).commonName).toBe(`${ORG.name} Document Seal`);
    expect(c.notAfter).toEqual(addYears(notBefore, 5));
    expect(c.publicKey.algorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048 });
    expect(ext.basic).toMatchObject({ ca: false, critical: true });
    expect(ext.usage).toMatchObject({
      usages: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
      critical: true,
    });
    expect(ext.aki).toBe(extensions(cert(orgCa.certPem)).ski);
  });

  it('gives every certificate a fresh positive 16-byte serial number', async () => {
    const serials = [root, orgCa, seal].map((p) => certificateInfo(p.certPem).serialNumber);
    for (let i = 0; i < 3; i++) {
      const { certificatePem } = await issueSignerCertificate(issuer, { name: 'A', organisation: 'O' }, now);
      serials.push(certificateInfo(certificatePem).serialNumber);
    }
    for (const serial of serials) expect(serial).toMatch(/^[4-7][0-9a-f]{31}$/);
    expect(new Set(serials).size).toBe(serials.length);
  });

  it.each(TRICKY_NAMES)(
    'issues a one-time signer certificate for %s that OpenSSL decodes to the same name',
    async (name) => {
      const email = 'ramesh.kumar+test@example.com';
      const { certificatePem, signer } = await issueSignerCertificate(
        issuer,
        { name, email, organisation: 'Kumar, "K" & Co' },
        now,
      );
      const c = cert(certificatePem);
      const ext = extensions(c);
      expect(await c.verify({ publicKey: cert(orgCa.certPem).publicKey, date: now })).toBe(true);
      expect(c.publicKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
      expect(c.signatureAlgorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5' });
      expect(ext.basic).toMatchObject({ ca: false, critical: true });
      expect(ext.usage).toMatchObject({
        usages: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
        critical: true,
      });
      expect(ext.san).toEqual([{ type: 'email', value: email }]);
      expect(ext.aki).toBe(extensions(cert(orgCa.certPem)).ski);
      expect(c.notBefore).toEqual(notBefore);

      // An independent decoder: asn1parse prints each string's type and raw value; the subject's attributes come last.
      const asn1 = openssl('asn1parse', '-in', file('tricky.pem', certificatePem));
      const attribute = (type: string) =>
        [...asn1.matchAll(new RegExp(`:${type}\\n.*prim: (\\w+) +:(.*)\\n`, 'g'))].at(-1)?.slice(1);
      expect(attribute('commonName')).toEqual(['UTF8STRING', name]);
      expect(attribute('organizationName')).toEqual(['UTF8STRING', 'Kumar, "K" & Co']);
      expect(attribute('emailAddress')).toEqual(['IA5STRING', email]);
      expect(asn1).toMatch(/emailAddress\s*\n.*IA5STRING/);

      expect(signer).toMatchObject({ keyType: 'EC', signatureAlgorithm: 'ECDSA' });
      expect(Buffer.from(signer.certificate)).toEqual(Buffer.from(c.rawData));
      expect(signer.certificateChain?.map((d) => Buffer.from(d))).toEqual(
        [orgCa.certPem, root.certPem].map((p) => Buffer.from(cert(p).rawData)),
      );
      await expectWorkingSigner(signer);
    },
  );

  it('leaves the e-mail out when the signer has none', async () => {
    const { certificatePem } = await issueSignerCertificate(
      issuer,
      { name: 'No Mail', email: null, organisation: 'O' },
      now,
    );
    expect(cert(certificatePem).subjectName.getField('E')).toEqual([]);
    expect(extensions(cert(certificatePem)).san).toBeUndefined();
  });

  it.each([
    ['with an e-mail and the links', 'asha.rao@example.com', true],
    ['without an e-mail or links', null, false],
  ])(
    'writes the one-time certificate by hand byte for byte as @peculiar/x509 writes it (%s), and says its facts',
    async (_, email, withLinks) => {
      const links = withLinks ? pkiLinks('https://sign.example.com', 'org-42-abcdef012345') : undefined;
      const person = { name: TRICKY_NAMES[2], email, organisation: 'Kumar, "K" & Co' };
      const { certificatePem, facts } = await issueSignerCertificate(issuer, person, now, links);
      const hand = cert(certificatePem);
      const again = await throughX509(hand, issuer, email, links);
      expect(Buffer.from(hand.rawData).toString('hex')).toBe(Buffer.from(again.rawData).toString('hex'));
      expect(certificatePem).toBe(`${again.toString('pem')}\n`);
      // Written by hand (x509's generator answers its own certificate object), and told without parsing it back.
      expect(facts).not.toBeInstanceOf(x509.X509Certificate);
      expect(Buffer.from(new Uint8Array(facts.rawData))).toEqual(Buffer.from(hand.rawData));
      expect(facts).toMatchObject({
        serialNumber: hand.serialNumber,
        subject: hand.subject,
        issuer: hand.issuer,
        notBefore: hand.notBefore,
        notAfter: hand.notAfter,
      });
      expect(hand.notAfter).toEqual(addYears(notBefore, 10));
      // OpenSSL's verifier takes it under the organisation CA and the root.
      const verified = openssl(
        'verify',
        '-CAfile',
        file('hand-root.pem', root.certPem),
        '-untrusted',
        file('hand-ca.pem', orgCa.certPem),
        '-purpose',
        'any',
        file('hand-leaf.pem', certificatePem),
      );
      expect(verified).toMatch(/: OK/);
    },
  );

  it('writes a validity past 2049 as GeneralizedTime, as @peculiar/x509 does (RFC 5280 4.1.2.5)', async () => {
    const later = new Date('2045-03-01T10:20:30.456Z');
    const ca = await loadIssuer(await generateCa({ organisation: 'Later Org', commonName: 'Later CA' }, later), []);
    const { certificatePem, facts } = await issueSignerCertificate(ca, { name: 'A', organisation: 'O' }, later);
    const hand = cert(certificatePem);
    expect(facts).not.toBeInstanceOf(x509.X509Certificate);
    expect(hand.notAfter).toEqual(new Date('2055-03-01T09:20:30Z'));
    const again = await throughX509(hand, ca, null);
    expect(Buffer.from(hand.rawData).toString('hex')).toBe(Buffer.from(again.rawData).toString('hex'));
    expect(openssl('asn1parse', '-in', file('later.pem', certificatePem))).toMatch(
      /GENERALIZEDTIME\s*:20550301092030Z/,
    );
  });

  it('issues through @peculiar/x509 what it does not write by hand (an ECDSA issuer, a non-ASCII e-mail)', async () => {
    const key = file('ec-ca.key', openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout'));
    const ecCa = openssl(
      ...['req', '-x509', '-new', '-key', key, '-sha256', '-days', '3650', '-subj', '/O=EC Org/CN=EC Org CA'],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    );
    const ecIssuer = await loadIssuer({ certPem: ecCa, keyPem: readFileSync(key, 'utf8') }, []);
    for (const [material, email, ca] of [
      [ecIssuer, 'ec@example.com', ecCa],
      [issuer, 'zoë@example.com', orgCa.certPem],
    ] as const) {
      const { certificatePem, facts } = await issueSignerCertificate(
        material,
        { name: 'A', email, organisation: 'O' },
        now,
      );
      const c = cert(certificatePem);
      expect(await c.verify({ publicKey: cert(ca).publicKey, date: now })).toBe(true);
      expect(extensions(c).san).toEqual([{ type: 'email', value: email }]);
      expect(facts).toBeInstanceOf(x509.X509Certificate);
      expect(facts).toMatchObject({ serialNumber: c.serialNumber, subject: c.subject, notAfter: c.notAfter });
    }
  });

  it('makes signer certificates valid for 10 years, but never beyond their issuer', async () => {
    const fromRoot = await issueSignerCertificate(await loadIssuer(root, []), { name: 'A', organisation: 'O' }, now);
    expect(cert(fromRoot.certificatePem).notAfter).toEqual(addYears(notBefore, 10));

    const olderCa = await issueOrganisationCa(root, ORG, addYears(now, -3));
    const fromOlder = await issueSignerCertificate(
      await loadIssuer(olderCa, [root.certPem]),
      { name: 'A', organisation: 'O' },
      now,
    );
    expect(cert(fromOlder.certificatePem).notAfter).toEqual(cert(olderCa.certPem).notAfter);
  });

  it('builds a chain that openssl verify accepts, and only with the right root', async () => {
    const { certificatePem } = await issueSignerCertificate(issuer, { name: 'श्रीनिवास', organisation: 'O' }, now);
    const args = [
      '-untrusted',
      file('orgca.pem', orgCa.certPem),
      file('signer.pem', certificatePem),
      file('seal.pem', seal.certPem),
    ];
    expect(openssl('verify', '-CAfile', file('root.pem', root.certPem), ...args)).toBe(
      `${join(dir, 'signer.pem')}: OK\n${join(dir, 'seal.pem')}: OK\n`,
    );
    const otherRoot = await generateRootCa(now);
    const run = spawnSync(OPENSSL, ['verify', '-CAfile', file('other-root.pem', otherRoot.certPem), ...args]);
    expect(run.status).not.toBe(0);
  });

  it('makes a CA of its own and RSA leaves under it, short-lived ones included (the sandbox ESP)', async () => {
    const ca = await generateCa({ organisation: 'e-Sign Sandbox ESP', commonName: 'Sandbox ESP Test CA' }, now);
    const resident = await issueRsaLeaf(ca, { commonName: 'Ravi Kumar', state: 'Karnataka', country: 'IN' }, now, {
      minutes: 30,
    });
    expect(openssl('verify', '-CAfile', file('esp-ca.pem', ca.certPem), file('resident.pem', resident.certPem))).toBe(
      `${join(dir, 'resident.pem')}: OK\n`,
    );
    const text = openssl('x509', '-in', join(dir, 'resident.pem'), '-noout', '-subject', '-enddate', '-text');
    expect(text).toMatch(/subject=C ?= ?IN, ST ?= ?Karnataka, CN ?= ?Ravi Kumar/);
    expect(text).toMatch(/Public-Key: \(2048 bit\)/);
    expect(text).toMatch(/Digital Signature, Non Repudiation/);
    const notAfter = new Date(/notAfter=(.+)/.exec(text)![1]);
    expect(Math.abs(notAfter.getTime() - (now.getTime() + 30 * 60_000))).toBeLessThan(1000);
    // A leaf is not a CA: it cannot issue.
    await expect(issueRsaLeaf(resident, { commonName: 'x' }, now, { years: 1 })).rejects.toThrow(/not a CA/);
  });

  it('refuses to use a leaf as an issuer, or a key that is not the certificate’s', async () => {
    await expect(loadIssuer(seal, [])).rejects.toThrow(/not a CA certificate/);
    await expect(loadIssuer({ certPem: orgCa.certPem, keyPem: root.keyPem }, [])).rejects.toThrow(/does not belong/);
    await expect(pdfSignerFromPem({ certPem: seal.certPem, keyPem: orgCa.keyPem }, [])).rejects.toThrow(
      /does not belong/,
    );
  });

  it('makes an RSA PDF signer from stored PEMs, with the chain', async () => {
    const signer = await pdfSignerFromPem(seal, [orgCa.certPem, root.certPem]);
    expect(signer).toMatchObject({ keyType: 'RSA', signatureAlgorithm: 'RSASSA-PKCS1-v1_5' });
    expect(signer.certificateChain).toHaveLength(2);
    await expectWorkingSigner(signer);
  });

  it('describes a certificate the way OpenSSL does', () => {
    const info = certificateInfo(orgCa.certPem);
    const path = file('info.pem', orgCa.certPem);
    const fingerprint = openssl('x509', '-in', path, '-noout', '-fingerprint', '-sha256').split('=')[1].trim();
    const serial = openssl('x509', '-in', path, '-noout', '-serial').split('=')[1].trim();
    expect(info.sha256).toBe(fingerprint.replace(/:/g, '').toLowerCase());
    expect(info.serialNumber).toBe(serial.toLowerCase());
    expect(info).toMatchObject({
      commonName: `${ORG.name} e-Sign Seal CA`,
      issuer: cert(root.certPem).subject,
      notBefore,
      notAfter: addYears(notBefore, 10),
      isCa: true,
    });
    expect(info.subject).toContain('CN=');
  });
});

describe('readPkcs12', () => {
  const kinds = [
    ['OpenSSL 3 default (AES-256/PBKDF2, SHA-256 MAC)', [], /PBES2, PBKDF2, AES-256-CBC/],
    ['legacy 3DES (SHA-1 MAC)', LEGACY_3DES, /pbeWithSHA1And3-KeyTripleDES-CBC/],
  ] as const;

  it.each(kinds)('reads an organisation CA with its root, %s', async (_, extra, encryption) => {
    const bytes = p12('ca', orgCa, [root.certPem], 'pässwörd 1', [...extra]);
    const info = spawnSync(OPENSSL, [
      'pkcs12',
      '-in',
      join(dir, 'ca.p12'),
      '-info',
      '-noout',
      '-passin',
      'pass:pässwörd 1',
    ]);
    expect(info.stderr.toString()).toMatch(encryption);
    const m = await readPkcs12(bytes, 'pässwörd 1');
    expect(m.isCa).toBe(true);
    expect(m.certPem).toBe(orgCa.certPem);
    expect(sameKey(m.keyPem, orgCa.keyPem)).toBe(true);
    expect(m.chainPems.map(normalisePem)).toEqual([normalisePem(root.certPem)]);
    expect(m.subject).toBe(cert(orgCa.certPem).subject);
    expect(m.notAfter).toEqual(cert(orgCa.certPem).notAfter);
    // The uploaded CA can issue: its signer certificates chain to the root.
    const issued = await issueSignerCertificate(
      await loadIssuer(m, m.chainPems),
      { name: 'A', organisation: 'O' },
      now,
    );
    expect(await cert(issued.certificatePem).verify({ publicKey: cert(orgCa.certPem).publicKey, date: now })).toBe(
      true,
    );
  });

  it.each(kinds)('reads a leaf with its chain in order, %s', async (_, extra) => {
    const bytes = p12('leaf', seal, [root.certPem, orgCa.certPem], 'secret', [...extra]);
    const m = await readPkcs12(bytes, 'secret');
    expect(m.isCa).toBe(false);
    expect(normalisePem(m.certPem)).toBe(normalisePem(seal.certPem));
    expect(m.chainPems.map(normalisePem)).toEqual([orgCa.certPem, root.certPem].map(normalisePem));
    await expectWorkingSigner(await pdfSignerFromPem(m, m.chainPems));
  });

  it.each(kinds)('says the password is wrong, %s', async (_, extra) => {
    const bytes = p12('wrong', seal, [], 'right', [...extra]);
    await expect(readPkcs12(bytes, 'wrong')).rejects.toThrow('Wrong password for the PKCS#12 file');
    await expect(readPkcs12(bytes, '')).rejects.toThrow('Wrong password for the PKCS#12 file');
  });

  it('reads a file without a password', async () => {
    const m = await readPkcs12(p12('nopass', seal, [], ''), '');
    expect(normalisePem(m.certPem)).toBe(normalisePem(seal.certPem));
  });

  it('reads an ECDSA key', async () => {
    openssl(
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30'],
      ...['-subj', '/CN=EC Leaf', '-keyout', join(dir, 'ec.key'), '-out', join(dir, 'ec.pem')],
    );
    const pair = {
      certPem: readFileSync(join(dir, 'ec.pem'), 'utf8'),
      keyPem: readFileSync(join(dir, 'ec.key'), 'utf8'),
    };
    const m = await readPkcs12(p12('ec', pair, [], 'secret'), 'secret');
    const signer = await pdfSignerFromPem(m, m.chainPems);
    expect(signer).toMatchObject({ keyType: 'EC', signatureAlgorithm: 'ECDSA' });
    await expectWorkingSigner(signer);
  });

  it('says when a file is not a PKCS#12 file', async () => {
    const notP12 = 'The file is not a PKCS#12 (.p12/.pfx) file, or it is damaged';
    await expect(readPkcs12(randomBytes(2000), 'x')).rejects.toThrow(notP12);
    await expect(readPkcs12(Buffer.from(root.certPem), 'x')).rejects.toThrow(notP12);
    await expect(readPkcs12(Buffer.from(cert(root.certPem).rawData), 'x')).rejects.toThrow(notP12);
    await expect(readPkcs12(new Uint8Array(0), 'x')).rejects.toThrow(notP12);
  });
});

describe('signing PDFs', () => {
  it('signs one PDF for two people and seals it, every signature valid and trusted', async () => {
    const people = ['Ramesh Kumar, Jr.', 'श्रीनिवास'];
    const signers: Signer[] = [];
    for (const name of people) {
      const person = { name, email: 'x@example.com', organisation: ORG.name };
      signers.push((await issueSignerCertificate(issuer, person, now)).signer);
    }
    signers.push(await pdfSignerFromPem(seal, [orgCa.certPem, root.certPem]));

    const report = pdfVerify(await signPdf(readFileSync(NORMAL_PDF), signers), root.certPem);
    expect(report.problems).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect(report.signatures).toEqual([
      expect.objectContaining({ signer: people[0], valid: true, trusted: true }),
      expect.objectContaining({ signer: people[1], valid: true, trusted: true }),
      // pdfsig prints the common name with its quotes escaped.
      expect.objectContaining({ signer: `${ORG.name.replace(/"/g, '\\"')} Document Seal`, valid: true, trusted: true }),
    ]);
  });

  it('signs with an organisation’s own leaf certificate from a PKCS#12, trusted through its own CA', async () => {
    // A CA and leaf made by OpenSSL alone, so the certificates are not shaped by the code under test.
    const cnf = file(
      'ext.cnf',
      '[leaf]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
    );
    openssl(
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/O=Outside/CN=Outside CA'],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
      ...['-keyout', join(dir, 'outside-ca.key'), '-out', join(dir, 'outside-ca.pem')],
    );
    openssl(
      ...[
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/O=Outside/CN=Outside Signer',
      ],
      ...['-keyout', join(dir, 'outside.key'), '-out', join(dir, 'outside.csr')],
    );
    openssl(
      ...['x509', '-req', '-in', join(dir, 'outside.csr'), '-CA', join(dir, 'outside-ca.pem')],
      ...[
        '-CAkey',
        join(dir, 'outside-ca.key'),
        '-days',
        '30',
        '-extfile',
        cnf,
        '-extensions',
        'leaf',
        '-out',
        join(dir, 'outside.pem'),
      ],
    );
    const outsideCa = readFileSync(join(dir, 'outside-ca.pem'), 'utf8');
    const pair = {
      certPem: readFileSync(join(dir, 'outside.pem'), 'utf8'),
      keyPem: readFileSync(join(dir, 'outside.key'), 'utf8'),
    };
    const m = await readPkcs12(p12('outside', pair, [outsideCa], 'secret', LEGACY_3DES), 'secret');
    expect(m.isCa).toBe(false);

    const report = pdfVerify(
      await signPdf(readFileSync(NORMAL_PDF), [await pdfSignerFromPem(m, m.chainPems)]),
      outsideCa,
    );
    expect(report.problems).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect(report.signatures).toEqual([
      expect.objectContaining({ signer: 'Outside Signer', valid: true, trusted: true }),
    ]);
  });
});

describe('where a certificate says its status can be had (issue 19)', () => {
  const links = pkiLinks('https://sign.example.in/', 'org-org-42-0123456789ab');

  it('names the OCSP responder, the issuer certificate and the CRL of the issuing CA, as OpenSSL reads them', async () => {
    const issued = [
      (await issueSealCertificate(orgCa, ORG, now, links)).certPem,
      (await issueSignerCertificate(issuer, { name: 'A', organisation: 'O' }, now, links)).certificatePem,
      (await issueOrganisationCa(root, ORG, now, links)).certPem,
      (await issueTsaCertificate(root, now, links)).certPem,
      (await issueRsaLeaf(orgCa, { commonName: 'R' }, now, { minutes: 30 }, links)).certPem,
    ];
    for (const pem of issued) {
      const text = openssl('x509', '-in', file('linked.pem', pem), '-noout', '-text');
      expect(text).toContain('OCSP - URI:https://sign.example.in/pki/ocsp');
      expect(text).toContain('CA Issuers - URI:https://sign.example.in/pki/ca/org-org-42-0123456789ab.crt');
      expect(text).toMatch(
        /X509v3 CRL Distribution Points:\s+Full Name:\s+URI:https:\/\/sign\.example\.in\/pki\/crl\/org-org-42-0123456789ab\.crl/,
      );
    }
    // Without links (the seal of an earlier version), none.
    expect(openssl('x509', '-in', file('plain.pem', seal.certPem), '-noout', '-text')).not.toContain(
      'Authority Information Access',
    );
  });

  it("issues a CA's delegated OCSP responder: id-kp-OCSPSigning, id-pkix-ocsp-nocheck, a year under the CA", async () => {
    const responder = await issueOcspResponder(orgCa, now);
    const c = cert(responder.certPem);
    expect(await c.verify({ publicKey: cert(orgCa.certPem).publicKey, date: now })).toBe(true);
    expect(c.subjectName.getField('O')).toEqual([ORG.name]);
    expect(c.subjectName.getField('CN')).toEqual([`${ORG.name} e-Sign Seal CA OCSP Responder`]);
    expect(c.notAfter).toEqual(addYears(notBefore, 1));
    expect(extensions(c).basic).toMatchObject({ ca: false, critical: true });
    expect(extensions(c).usage).toMatchObject({ usages: x509.KeyUsageFlags.digitalSignature, critical: true });
    const text = openssl('x509', '-in', file('responder.pem', responder.certPem), '-noout', '-text');
    expect(text).toMatch(/X509v3 Extended Key Usage:\s+OCSP Signing/);
    expect(text).toContain('OCSP No Check');
  });

  it('names a CA by what it is and its certificate, in URL-safe characters', () => {
    const sha = createHash('sha256')
      .update(Buffer.from(cert(orgCa.certPem).rawData))
      .digest('hex');
    expect(caIdOf('org-org-42', orgCa.certPem)).toBe(`org-org-42-${sha.slice(0, 12)}`);
    expect(() => caIdOf('Org 42/..', orgCa.certPem)).toThrow('cannot name a CA in a URL');
  });
});
