import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import {
  generateCa,
  generateRootCa,
  issueOcspResponder,
  issueOrganisationCa,
  issueSealCertificate,
  pkiLinks,
  privateKeyOf,
  type KeyPairPem,
} from './certificates';
import {
  certIdFor,
  MalformedOcspRequest,
  normaliseSerial,
  ocspErrorResponse,
  ocspRequestFor,
  parseOcspRequest,
  readCrl,
  readOcspResponse,
  signCrl,
  signOcspResponse,
  type CertStatus,
  type SigningKey,
} from './ocsp';
import { ocspCertificatesOf } from '../pdf/cms-der';

const ORG = { id: 'acme', name: 'Acme' };
const DAY = 24 * 3_600_000;
const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const der = (pem: string) => new Uint8Array(new x509.X509Certificate(pem).rawData);

let ca: KeyPairPem;
let otherCa: KeyPairPem;
let seal: KeyPairPem;
let sibling: KeyPairPem;
let responder: SigningKey;
let foreignResponder: SigningKey;

const signingKey = async (pair: KeyPairPem): Promise<SigningKey> => ({
  certDer: der(pair.certPem),
  key: await privateKeyOf(pair),
});

async function answer(
  status: CertStatus,
  options: { signer?: SigningKey; about?: KeyPairPem; at?: Date; nonce?: Uint8Array } = {},
): Promise<Uint8Array> {
  const certId = await certIdFor(der((options.about ?? seal).certPem), ca.certPem);
  const request =
    options.nonce && parseOcspRequest(await ocspRequestFor(der(seal.certPem), der(ca.certPem), options.nonce));
  return signOcspResponse({
    signer: options.signer ?? responder,
    answers: [{ certId, status }],
    nonce: request ? request.nonce : null,
    now: options.at ?? now,
    validityMs: DAY,
  });
}
const read = (bytes: Uint8Array, options: { at?: Date; nonce?: Uint8Array } = {}) =>
  readOcspResponse(bytes, {
    certDer: der(seal.certPem),
    issuerDer: der(ca.certPem),
    now: options.at ?? now,
    nonce: options.nonce,
  });

beforeAll(async () => {
  const root = await generateRootCa(now);
  ca = await issueOrganisationCa(root, ORG, now, pkiLinks('http://x.test', 'dev-root-000000000000'));
  otherCa = await generateCa({ organisation: 'Other', commonName: 'Other CA' }, now);
  seal = await issueSealCertificate(ca, ORG, now, pkiLinks('http://x.test', 'org-acme-000000000000'));
  sibling = await issueSealCertificate(ca, ORG, now);
  responder = await signingKey(await issueOcspResponder(ca, now));
  foreignResponder = await signingKey(await issueOcspResponder(otherCa, now));
});

describe('OCSP requests', () => {
  it('reads the certificates asked about and the nonce', async () => {
    const nonce = randomBytes(32);
    const parsed = parseOcspRequest(await ocspRequestFor(der(seal.certPem), der(ca.certPem), nonce));
    expect(parsed.queries).toHaveLength(1);
    expect(parsed.queries[0]).toMatchObject({
      hashAlgorithm: 'SHA-1',
      serial: normaliseSerial(new x509.X509Certificate(seal.certPem).serialNumber),
    });
    expect(parsed.nonce).not.toBeNull();
  });

  it.each([
    ['nothing', new Uint8Array(0)],
    ['a truncated sequence', new Uint8Array([0x30, 0x05, 0x02, 0x01])],
    ['a certificate', new Uint8Array(0)],
    ['trailing bytes', new Uint8Array(0)],
  ])('refuses %s as malformed', async (what, bytes) => {
    let input = bytes;
    if (what === 'a certificate') input = der(seal.certPem);
    if (what === 'trailing bytes') {
      const request = await ocspRequestFor(der(seal.certPem), der(ca.certPem), randomBytes(8));
      input = new Uint8Array([...request, 0x00]);
    }
    expect(() => parseOcspRequest(input)).toThrow(MalformedOcspRequest);
  });
});

describe('OCSP responses: what is accepted', () => {
  it("lists the responder's certificate it carries as its very bytes, read from the DER (cms-der.ts)", async () => {
    const response = await answer({ status: 'good' });
    expect(ocspCertificatesOf(response).map((c) => Buffer.from(c).toString('hex'))).toEqual([
      Buffer.from(responder.certDer).toString('hex'),
    ]);
    expect(() => ocspCertificatesOf(Uint8Array.from([0x30, 0x80, 0, 0]))).toThrow();
  });

  it('reads good, revoked (time in whole seconds, reason) and unknown answers of the delegated responder', async () => {
    expect((await read(await answer({ status: 'good' }))).status).toEqual({ status: 'good' });
    const revokedAt = new Date(now.getTime() - 3_600_000 + 123);
    expect((await read(await answer({ status: 'revoked', revokedAt, reason: 'keyCompromise' }))).status).toEqual({
      status: 'revoked',
      revokedAt: new Date(Math.floor(revokedAt.getTime() / 1000) * 1000),
      reason: 'keyCompromise',
    });
    expect((await read(await answer({ status: 'unknown' }))).status).toEqual({ status: 'unknown' });
  });

  it("accepts the CA's own signature, and the nonce echoed", async () => {
    const nonce = randomBytes(32);
    const signed = await answer({ status: 'good' }, { signer: await signingKey(ca), nonce });
    const read1 = await read(signed, { nonce });
    expect(read1.thisUpdate).toEqual(now);
    expect(read1.nextUpdate).toEqual(new Date(now.getTime() + DAY));
  });
});

describe('OCSP responses: what is refused', () => {
  it.each([
    [
      'about another certificate',
      async () => read(await answer({ status: 'good' }, { about: sibling })),
      'the response is not about this certificate',
    ],
    [
      "signed by another CA's responder",
      async () => read(await answer({ status: 'good' }, { signer: foreignResponder })),
      'the response is not signed by the issuer or a responder it authorised',
    ],
    [
      'signed by a certificate without id-kp-OCSPSigning',
      async () => read(await answer({ status: 'good' }, { signer: await signingKey(sibling) })),
      'the response is not signed by the issuer or a responder it authorised',
    ],
    [
      'past its nextUpdate',
      async () => read(await answer({ status: 'good' }), { at: new Date(now.getTime() + 2 * DAY) }),
      'the response has expired',
    ],
    [
      'from the future',
      async () => read(await answer({ status: 'good' }, { at: new Date(now.getTime() + 3_600_000) })),
      'the response is from the future',
    ],
    [
      'with another nonce',
      async () => read(await answer({ status: 'good' }, { nonce: randomBytes(32) }), { nonce: randomBytes(32) }),
      'the response carries another nonce than the request',
    ],
    ['an error status', async () => read(ocspErrorResponse('unauthorized')), 'the responder answered unauthorized'],
    ['garbage', async () => read(randomBytes(40)), /^not an OCSP response/],
  ])('%s', async (_what, make, reason) => {
    await expect(make()).rejects.toThrow(reason);
  });

  it('refuses a response whose signed data was tampered with', async () => {
    const bytes = await answer({ status: 'revoked', revokedAt: now, reason: 'keyCompromise' });
    // producedAt, a GeneralizedTime (tag 0x18, 15 bytes): one digit of the year changed after signing.
    const at = Buffer.from(bytes).indexOf(Buffer.from([0x18, 0x0f]));
    expect(at).toBeGreaterThan(0);
    const tampered = new Uint8Array(bytes);
    tampered[at + 5] = tampered[at + 5] === 0x39 ? 0x38 : tampered[at + 5] + 1;
    await expect(read(tampered)).rejects.toThrow(
      'the response is not signed by the issuer or a responder it authorised',
    );
    await expect(read(bytes)).resolves.toBeTruthy();
  });
});

describe('CRLs', () => {
  const serial = () => new x509.X509Certificate(seal.certPem).serialNumber;
  const crl = async (entries: { serial: string; revokedAt: Date; reason: string | null }[], key = ca, at = now) =>
    signCrl({ caCertPem: ca.certPem, key: await privateKeyOf(key), entries, number: 7n, now: at, validityMs: DAY });

  it('says good for a serial it does not list, revoked with date and reason for one it does', async () => {
    expect((await readCrl(await crl([]), { issuerDer: der(ca.certPem), serial: serial(), now })).status).toEqual({
      status: 'good',
    });
    const listed = await readCrl(
      await crl([{ serial: normaliseSerial(serial()), revokedAt: now, reason: 'superseded' }]),
      {
        issuerDer: der(ca.certPem),
        serial: serial(),
        now,
      },
    );
    expect(listed.status).toEqual({ status: 'revoked', revokedAt: now, reason: 'superseded' });
    expect(listed.nextUpdate).toEqual(new Date(now.getTime() + DAY));
  });

  it.each([
    [
      'another issuer',
      async () => readCrl(await crl([]), { issuerDer: der(otherCa.certPem), serial: '01', now }),
      /the CRL is issued by/,
    ],
    [
      'a signature by another key',
      async () => readCrl(await crl([], sibling), { issuerDer: der(ca.certPem), serial: '01', now }),
      "the CRL's signature is not the issuer's",
    ],
    [
      'an expired CRL',
      async () =>
        readCrl(await crl([]), { issuerDer: der(ca.certPem), serial: '01', now: new Date(now.getTime() + 2 * DAY) }),
      'the CRL has expired',
    ],
    ['garbage', async () => readCrl(randomBytes(30), { issuerDer: der(ca.certPem), serial: '01', now }), /^not a CRL/],
  ])('refuses %s', async (_what, make, reason) => {
    await expect(make()).rejects.toThrow(reason);
  });
});
