import 'reflect-metadata';
import {
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  pbkdf2Sync,
  randomBytes,
  timingSafeEqual,
  webcrypto,
} from 'node:crypto';
import { CryptoKeySigner, type Signer } from '@libpdf/core';
import { ContentInfo, EncryptedContentInfo, id_data, id_encryptedData } from '@peculiar/asn1-cms';
import {
  AuthenticatedSafe,
  CertBag,
  id_certBag,
  id_keyBag,
  id_pkcs8ShroudedKeyBag,
  PFX,
  SafeContents,
} from '@peculiar/asn1-pfx';
import { EncryptedPrivateKeyInfo } from '@peculiar/asn1-pkcs8';
import { AsnConvert, AsnProp, AsnPropTypes, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { derElement, publicKeyBitsOf, RSA_SHA256_ALGORITHM, subjectOf } from '../pdf/cms-der';
import { parsedCertificate, perCertificate, rememberCertificate } from './parsed-certificates';

// @peculiar/x509 signs and hashes through whatever WebCrypto it is given; Node's can do everything needed here.
x509.cryptoProvider.set(webcrypto);
const subtle = webcrypto.subtle;
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** A certificate with its private key, as stored (the key is PKCS#8 PEM, unencrypted: the caller encrypts at rest). */
export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** What a CA needs to issue; `chain` (up to the root, without the issuer) is embedded in every signature it enables. */
export interface IssuerMaterial {
  cert: x509.X509Certificate;
  key: CryptoKey;
  chain: x509.X509Certificate[];
}

/** The contents of an organisation's uploaded PKCS#12, normalised so it can be stored like a generated pair. */
export interface Pkcs12Material {
  certPem: string;
  keyPem: string;
  chainPems: string[];
  isCa: boolean;
  subject: string;
  notAfter: Date;
}

/**
 * Where a certificate's status and its issuer's certificate can be had, as a public CA's certificates say (RFC 5280
 * 4.2.2.1 Authority Information Access, 4.2.1.13 CRL distribution points): this installation's OCSP responder and the
 * issuing CA's certificate and CRL, at PUBLIC_URL. See `pkiLinks`.
 */
export interface PkiLinks {
  ocspUrl: string;
  caIssuersUrl: string;
  crlUrl: string;
}

type Org = { id: string; name: string };
type NameParts = [type: string, value: string][];

const HOUR = 3_600_000;
const RSA: webcrypto.RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};
const CA_USAGE = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign;
// CAs issued from now on also sign their own OCSP responses (RFC 6960 4.2.2.2: the CA itself may sign them).
const ISSUING_CA_USAGE = CA_USAGE | x509.KeyUsageFlags.digitalSignature;
const LEAF_USAGE = x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation;
const DN_SERIAL_NUMBER = '2.5.4.5';

/** The development trust anchor: generated once per installation, and what verifiers are told to trust. */
export function generateRootCa(now: Date): Promise<KeyPairPem> {
  return generateCa({ organisation: 'e-Sign (development)', commonName: 'e-Sign Development Root CA' }, now);
}

/** Each organisation gets its own issuing CA, so its signers' certificates chain to the organisation's own name. */
export async function issueOrganisationCa(
  root: KeyPairPem,
  org: Org,
  now: Date,
  links?: PkiLinks,
): Promise<KeyPairPem> {
  const issuer = await loadIssuer(root, []);
  const keys = await newRsaKeys();
  const cert = await issue(issuer, keys.publicKey, orgName(org, `${org.name} e-Sign Seal CA`), now, 10, [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(ISSUING_CA_USAGE, true),
    ...linkExtensions(links),
  ]);
  return { certPem: pem(cert), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * The built-in development timestamp authority's certificate (RFC 3161 section 2.3: extended key usage
 * id-kp-timeStamping only, and critical), RSA, under the development root, like the sandbox ESP stands in for a
 * licensed ESP. 10 years, capped by the root.
 */
export async function issueTsaCertificate(root: KeyPairPem, now: Date, links?: PkiLinks): Promise<KeyPairPem> {
  const issuer = await loadIssuer(root, []);
  const keys = await newRsaKeys();
  const cert = await issue(
    issuer,
    keys.publicKey,
    dn([
      ['O', 'e-Sign (development)'],
      ['CN', 'e-Sign Development Timestamp Authority'],
    ]),
    now,
    10,
    [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.timeStamping], true),
      ...linkExtensions(links),
    ],
  );
  return { certPem: pem(cert), keyPem: await privateKeyPem(keys.privateKey) };
}

/** id-pkix-ocsp-nocheck (RFC 6960 4.2.2.2.1): clients need not check the responder's own revocation. */
const ID_PKIX_OCSP_NOCHECK = '1.3.6.1.5.5.7.48.1.5';

/**
 * A CA's delegated OCSP responder (RFC 6960 4.2.2.2): issued by the CA, extended key usage id-kp-OCSPSigning,
 * id-pkix-ocsp-nocheck, one year (capped by the CA). The CA's OCSP answers are signed with it rather than with the CA's
 * own key: NSS (pdfsig, Firefox) refuses the second and later CA-signed answers one process reads from an intermediate
 * CA, and a responder key that signs answers all day is better not the key that issues certificates.
 */
export async function issueOcspResponder(ca: KeyPairPem, now: Date): Promise<KeyPairPem> {
  const issuer = await loadIssuer(ca, []);
  const keys = await newRsaKeys();
  const organisation = issuer.cert.subjectName.getField('O')[0];
  const commonName = issuer.cert.subjectName.getField('CN')[0] ?? 'CA';
  const parts: NameParts = organisation ? [['O', organisation]] : [];
  parts.push(['CN', `${commonName} OCSP Responder`]);
  const cert = await issue(issuer, keys.publicKey, dn(parts), now, 1, [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.ocspSigning], false),
    new x509.Extension(ID_PKIX_OCSP_NOCHECK, false, new asn1js.Null().toBER(false)),
  ]);
  return { certPem: pem(cert), keyPem: await privateKeyPem(keys.privateKey) };
}

/** The seal closes a completed document once, so a long-lived RSA key of the organisation's own is fine for it. */
export async function issueSealCertificate(
  issuer: KeyPairPem,
  org: Org,
  now: Date,
  links?: PkiLinks,
): Promise<KeyPairPem> {
  const material = await loadIssuer(issuer, []);
  const keys = await newRsaKeys();
  const cert = await issue(material, keys.publicKey, orgName(org, `${org.name} Document Seal`), now, 5, [
    ...leafExtensions(),
    ...linkExtensions(links),
  ]);
  return { certPem: pem(cert), keyPem: await privateKeyPem(keys.privateKey) };
}

/** A certificate authority of its own, RSA, self-signed (the development root; the sandbox ESP's test CA). */
export async function generateCa(
  subject: { organisation: string; commonName: string },
  now: Date,
  years = 20,
): Promise<KeyPairPem> {
  const keys = await newRsaKeys();
  const name = dn([
    ['O', subject.organisation],
    ['CN', subject.commonName],
  ]);
  const notBefore = skewed(now);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: newSerialNumber(),
    subject: name,
    issuer: name,
    notBefore,
    notAfter: addYears(notBefore, years),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(ISSUING_CA_USAGE, true),
      ...(await keyIdentifiers(keys.publicKey, keys.publicKey)),
    ],
  });
  return { certPem: pem(cert), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * An RSA leaf certificate (signing and non-repudiation) with its key: the ASP's and the sandbox ESP's XML signers,
 * and the short-lived certificate the sandbox ESP issues to a resident for one eSign. `validity` is from now; the
 * start is an hour back for clock skew, as for the other certificates.
 */
export async function issueRsaLeaf(
  issuer: KeyPairPem,
  subject: { commonName: string; organisation?: string; organisationalUnit?: string; state?: string; country?: string },
  now: Date,
  validity: { minutes: number } | { years: number },
  links?: PkiLinks,
): Promise<KeyPairPem> {
  const material = await loadIssuer(issuer, []);
  const keys = await newRsaKeys();
  const parts: NameParts = [];
  if (subject.country) parts.push(['C', subject.country]);
  if (subject.state) parts.push(['ST', subject.state]);
  if (subject.organisation) parts.push(['O', subject.organisation]);
  if (subject.organisationalUnit) parts.push(['OU', subject.organisationalUnit]);
  parts.push(['CN', subject.commonName]);
  const notBefore = skewed(now);
  const until =
    'years' in validity ? addYears(now, validity.years) : new Date(now.getTime() + validity.minutes * 60_000);
  const notAfter = until.getTime() < material.cert.notAfter.getTime() ? until : material.cert.notAfter;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: newSerialNumber(),
    subject: dn(parts),
    issuer: material.cert.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: material.key,
    extensions: [
      ...leafExtensions(),
      ...linkExtensions(links),
      ...(await keyIdentifiers(keys.publicKey, material.cert)),
    ],
  });
  return { certPem: pem(cert), keyPem: await privateKeyPem(keys.privateKey) };
}

/** Stored PEMs become usable keys here; a key that is not the certificate's, or a non-CA certificate, is refused. */
export async function loadIssuer(pair: KeyPairPem, chainPems: string[]): Promise<IssuerMaterial> {
  const cert = new x509.X509Certificate(pair.certPem);
  if (!isCa(cert))
    throw new Error(`Certificate "${cert.subject}" is not a CA certificate and cannot issue certificates`);
  const { key } = await importPrivateKey(pair.keyPem, cert);
  return { cert, key, chain: chainPems.map((pem) => new x509.X509Certificate(pem)) };
}

/** The private key of a stored pair, usable for signing (refused when it is not the certificate's key). */
export async function privateKeyOf(pair: KeyPairPem): Promise<CryptoKey> {
  return (await importPrivateKey(pair.keyPem, new x509.X509Certificate(pair.certPem))).key;
}

/** For certificates that sign PDFs themselves (the seal, an organisation's own leaf); verifiers get the chain. */
export async function pdfSignerFromPem(pair: KeyPairPem, chainPems: string[]): Promise<Signer> {
  const cert = new x509.X509Certificate(pair.certPem);
  const { key, keyType } = await importPrivateKey(pair.keyPem, cert);
  const chain = chainPems.map((pem) => der(new x509.X509Certificate(pem)));
  return new CryptoKeySigner(key, der(cert), keyType, keyType === 'EC' ? 'ECDSA' : 'RSASSA-PKCS1-v1_5', chain);
}

/**
 * Verifiers (poppler/NSS) reject a second signature made with the same certificate in one PDF, so every electronic
 * signature gets its own certificate and throwaway P-256 key (non-extractable, gone when the Signer is). It is valid
 * for 10 years, capped by the issuer's own expiry, so that the signature keeps verifying long after it was made.
 * `facts`: what the seal records and shows of it (subject, serial, validity), known without parsing it back.
 */
export async function issueSignerCertificate(
  issuer: IssuerMaterial,
  person: { name: string; email?: string | null; organisation: string },
  now: Date,
  links?: PkiLinks,
): Promise<{ signer: Signer; certificatePem: string; facts: CertificateFacts }> {
  const keys = (await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const email = person.email?.trim() || undefined;
  const parts: NameParts = [
    ['O', person.organisation],
    ['CN', person.name],
  ];
  if (email) parts.push(['E', email]);
  const chain = [issuer.cert, ...issuer.chain].map(der);
  const byHand = await issueLeafDer(issuer, keys.publicKey, dn(parts), now, email, links);
  if (byHand) {
    const signer = new CryptoKeySigner(keys.privateKey, byHand.rawData, 'EC', 'ECDSA', chain);
    return { signer, certificatePem: pemOfDer(byHand.rawData), facts: byHand };
  }
  const cert = await issue(issuer, keys.publicKey, dn(parts), now, LEAF_YEARS, [
    ...leafExtensions(email),
    ...linkExtensions(links),
  ]);
  const signer = new CryptoKeySigner(keys.privateKey, der(cert), 'EC', 'ECDSA', chain);
  const certificatePem = pem(cert);
  rememberCertificate(certificatePem, cert);
  return { signer, certificatePem, facts: cert };
}

/** The facts of a certificate the seal records and shows (an x509 certificate has them; so does one made by hand). */
export interface CertificateFacts {
  rawData: ArrayBuffer | Uint8Array;
  serialNumber: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
}

const LEAF_YEARS = 10;
const VERSION_3 = Uint8Array.from([0xa0, 0x03, 0x02, 0x01, 0x02]);
const derOid = (...bytes: number[]) => Uint8Array.from([0x06, bytes.length, ...bytes]);
const OID_SUBJECT_KEY_IDENTIFIER = derOid(0x55, 0x1d, 0x0e);
const OID_SUBJECT_ALT_NAME = derOid(0x55, 0x1d, 0x11);
const OID_AUTHORITY_KEY_IDENTIFIER = derOid(0x55, 0x1d, 0x23);
/** An issuer's subject Name (DER, from its certificate) and key identifier, read once per issuer certificate. */
const issuerFacts = new WeakMap<x509.X509Certificate, Promise<{ subject: Uint8Array; keyId: Uint8Array }>>();

/**
 * The one-time certificate written as DER here (issue 23): through @peculiar/x509's schemas a certificate took about
 * 6 ms, once per signer in every seal; written here it is the key's, the signature's and a few copies' time. The
 * bytes are those x509 writes for the same input (a test compares them): version 3, the serial, sha256WithRSA, the
 * issuer's subject as its certificate has it, the validity to the second, the subject, the key, and the extensions in
 * issue()'s order (basic constraints, key usage, the e-mail, AIA, CRL distribution point, SKI, AKI). Only for an RSA
 * issuer (the generated organisation CAs, most imported ones) and an ASCII e-mail; null otherwise (x509 writes it).
 */
async function issueLeafDer(
  issuer: IssuerMaterial,
  publicKey: CryptoKey,
  subject: x509.Name,
  now: Date,
  email: string | undefined,
  links: PkiLinks | undefined,
): Promise<(CertificateFacts & { rawData: Uint8Array }) | null> {
  const algorithm = issuer.key.algorithm as webcrypto.RsaHashedKeyAlgorithm;
  if (algorithm.name !== 'RSASSA-PKCS1-v1_5' || algorithm.hash?.name !== 'SHA-256') return null;
  if (email !== undefined && !/^[\x20-\x7e]{1,127}$/.test(email)) return null;
  let known = issuerFacts.get(issuer.cert);
  if (!known) {
    known = issuerKeyFacts(issuer.cert);
    // A failure is not remembered: the next signature asks again (as SealPkiService's caches do).
    known.catch(() => issuerFacts.delete(issuer.cert));
    issuerFacts.set(issuer.cert, known);
  }
  const { subject: issuerName, keyId: issuerKeyId } = await known;
  const spki = new Uint8Array(await subtle.exportKey('spki', publicKey));
  const keyId = createHash('sha1').update(publicKeyBitsOf(spki)).digest();
  const serial = newSerialNumber();
  const notBefore = toSecond(skewed(now));
  const wanted = addYears(notBefore, LEAF_YEARS);
  const notAfter = toSecond(wanted < issuer.cert.notAfter ? wanted : issuer.cert.notAfter);
  const extensions: Uint8Array[] = [...leafExtensions(), ...linkExtensions(links)].map(
    (e) => new Uint8Array(e.rawData),
  );
  if (email) {
    const name = derElement(0x30, [derElement(0x81, [Buffer.from(email, 'latin1')])]);
    extensions.splice(2, 0, derElement(0x30, [OID_SUBJECT_ALT_NAME, derElement(0x04, [name])]));
  }
  extensions.push(
    derElement(0x30, [OID_SUBJECT_KEY_IDENTIFIER, derElement(0x04, [derElement(0x04, [keyId])])]),
    derElement(0x30, [
      OID_AUTHORITY_KEY_IDENTIFIER,
      derElement(0x04, [derElement(0x30, [derElement(0x80, [issuerKeyId])])]),
    ]),
  );
  const tbs = derElement(0x30, [
    VERSION_3,
    derElement(0x02, [Buffer.from(serial, 'hex')]),
    RSA_SHA256_ALGORITHM,
    issuerName,
    derElement(0x30, [derTime(notBefore), derTime(notAfter)]),
    new Uint8Array(subject.toArrayBuffer()),
    spki,
    derElement(0xa3, [derElement(0x30, extensions)]),
  ]);
  const signature = new Uint8Array(await subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, issuer.key, tbs));
  const rawData = derElement(0x30, [tbs, RSA_SHA256_ALGORITHM, derElement(0x03, [Uint8Array.of(0), signature])]);
  return {
    rawData,
    serialNumber: serial,
    subject: subject.toString(),
    issuer: issuer.cert.subject,
    notBefore,
    notAfter,
  };
}

async function issuerKeyFacts(cert: x509.X509Certificate): Promise<{ subject: Uint8Array; keyId: Uint8Array }> {
  const keyId =
    cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ??
    (await x509.SubjectKeyIdentifierExtension.create(cert.publicKey)).keyId;
  return { subject: subjectOf(der(cert)), keyId: Buffer.from(keyId, 'hex') };
}

/** A Time (RFC 5280 4.1.2.5): UTCTime through 2049, GeneralizedTime from 2050, to the second. */
function derTime(date: Date): Uint8Array {
  const digits = date.toISOString().replace(/[-:T]|\.\d+/g, '');
  const utc = date.getUTCFullYear() < 2050;
  return derElement(utc ? 0x17 : 0x18, [Buffer.from(utc ? digits.slice(2) : digits, 'latin1')]);
}

const toSecond = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

/**
 * Organisations bring their own certificate as PKCS#12. Node cannot read PKCS#12, so this walks it with the ASN.1
 * classes and decrypts with Node's crypto: PBES2 (PBKDF2 + AES/3DES, OpenSSL 3's default) and the PKCS#12 3DES scheme
 * (older exports). Errors say what is wrong with the file, for the user who uploaded it.
 */
/** Why a PKCS#12 cannot be used, for callers that answer each case in their own words (the console's import). */
export type Pkcs12Problem = 'format' | 'password' | 'no-key' | 'many-keys';
export class Pkcs12Error extends Error {
  constructor(
    readonly problem: Pkcs12Problem,
    message: string,
  ) {
    super(message);
  }
}

export async function readPkcs12(bytes: Uint8Array, password: string): Promise<Pkcs12Material> {
  let pfx: PFX;
  let safe: AuthenticatedSafe;
  let authSafeBytes: Buffer;
  try {
    pfx = AsnConvert.parse(bytes, PFX);
    if (pfx.authSafe.contentType !== id_data) throw new Error('public-key protected');
    authSafeBytes = octets(pfx.authSafe.content);
    safe = AsnConvert.parse(authSafeBytes, AuthenticatedSafe);
  } catch {
    throw new Pkcs12Error('format', 'The file is not a PKCS#12 (.p12/.pfx) file, or it is damaged');
  }
  const passwords = pfx.macData ? [checkMac(pfx, authSafeBytes, password)] : bmpPasswordCandidates(password);

  const certs: x509.X509Certificate[] = [];
  const keys: KeyObject[] = [];
  for (const info of safe) {
    for (const bag of AsnConvert.parse(safeContents(info, password, passwords), SafeContents)) {
      if (bag.bagId === id_certBag) {
        certs.push(new x509.X509Certificate(octets(AsnConvert.parse(bag.bagValue, CertBag).certValue)));
      } else if (bag.bagId === id_keyBag) {
        keys.push(createPrivateKey({ key: Buffer.from(bag.bagValue), format: 'der', type: 'pkcs8' }));
      } else if (bag.bagId === id_pkcs8ShroudedKeyBag) {
        const info = AsnConvert.parse(bag.bagValue, EncryptedPrivateKeyInfo);
        const plain = decrypt(info.encryptionAlgorithm, Buffer.from(info.encryptedData.buffer), password, passwords);
        keys.push(createPrivateKey({ key: plain, format: 'der', type: 'pkcs8' }));
      }
    }
  }
  if (keys.length !== 1)
    throw new Pkcs12Error(
      keys.length ? 'many-keys' : 'no-key',
      `The PKCS#12 file must hold exactly one private key; it holds ${keys.length}`,
    );
  const leaf = certs.find((c) => publicKeyOf(c).equals(createPublicKey(keys[0])));
  if (!leaf) throw new Pkcs12Error('no-key', 'The PKCS#12 file has no certificate for its private key');
  return {
    certPem: pem(leaf),
    keyPem: keys[0].export({ type: 'pkcs8', format: 'pem' }) as string,
    chainPems: chainOf(leaf, certs).map(pem),
    isCa: isCa(leaf),
    subject: leaf.subject,
    notAfter: leaf.notAfter,
  };
}

/** What the console shows and stores about a certificate, without the caller touching ASN.1. */
export interface CertificateInfo {
  subject: string;
  commonName: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  sha256: string;
  isCa: boolean;
}

/** What the product shows and checks of a certificate (each caller gets its own copy; the parse is done once). */
export function certificateInfo(pem: string): CertificateInfo {
  const info = infoOf(pem);
  return { ...info, notBefore: new Date(info.notBefore), notAfter: new Date(info.notAfter) };
}

const infoOf = perCertificate((pem: string): Readonly<CertificateInfo> => {
  const cert = parsedCertificate(pem);
  return Object.freeze({
    subject: cert.subject,
    commonName: cert.subjectName.getField('CN')[0] ?? '',
    issuer: cert.issuer,
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    sha256: createHash('sha256').update(der(cert)).digest('hex'),
    isCa: isCa(cert),
  });
});

// ---- certificate building ----

async function issue(
  issuer: IssuerMaterial,
  publicKey: CryptoKey,
  subject: x509.Name,
  now: Date,
  years: number,
  extensions: x509.Extension[],
): Promise<x509.X509Certificate> {
  const notBefore = skewed(now);
  const wanted = addYears(notBefore, years);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: newSerialNumber(),
    subject,
    issuer: issuer.cert.subjectName,
    notBefore,
    // A certificate that outlives its issuer would only look valid: verification fails once the issuer expires.
    notAfter: wanted < issuer.cert.notAfter ? wanted : issuer.cert.notAfter,
    publicKey,
    signingKey: issuer.key,
    extensions: [...extensions, ...(await keyIdentifiers(publicKey, issuer.cert))],
  });
  return cert;
}

// Made once: the generator only reads an extension (its DER), and every leaf has the same two.
let leafConstraints: x509.Extension[] | null = null;

function leafExtensions(email?: string): x509.Extension[] {
  leafConstraints ??= [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(LEAF_USAGE, true),
  ];
  const extensions = [...leafConstraints];
  if (email) extensions.push(new x509.SubjectAlternativeNameExtension([{ type: 'email', value: email }]));
  return extensions;
}

/** The AIA (OCSP responder, issuer's certificate) and CRL distribution point of a certificate the product issues. */
function linkExtensions(links?: PkiLinks): x509.Extension[] {
  if (!links) return [];
  const key = `${links.ocspUrl}\u0000${links.caIssuersUrl}\u0000${links.crlUrl}`;
  let extensions = linkExtensionsMade.get(key);
  if (!extensions) {
    extensions = [
      new x509.AuthorityInfoAccessExtension({ ocsp: [links.ocspUrl], caIssuers: [links.caIssuersUrl] }),
      new x509.CRLDistributionPointsExtension([links.crlUrl]),
    ];
    if (linkExtensionsMade.size >= 64) linkExtensionsMade.clear();
    linkExtensionsMade.set(key, extensions);
  }
  return extensions;
}
/** One CA's links are the same for every certificate it issues: their extensions are made once. */
const linkExtensionsMade = new Map<string, x509.Extension[]>();

/** The URLs a certificate issued by the CA `caId` names (see PkiLinks): `${PUBLIC_URL}/pki/…`. */
export function pkiLinks(publicUrl: string, caId: string): PkiLinks {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    ocspUrl: `${base}/pki/ocsp`,
    caIssuersUrl: `${base}/pki/ca/${caId}.crt`,
    crlUrl: `${base}/pki/crl/${caId}.crl`,
  };
}

/**
 * A CA's id in URLs: what it is (`dev-root`, `org-<orgId>`, `sandbox-esp`) and the start of its certificate's SHA-256,
 * so an organisation that replaces its CA gets a new id while the old one still answers for what it issued.
 */
export function caIdOf(label: string, certPem: string): string {
  if (!/^[a-z0-9][a-z0-9_-]{0,80}$/.test(label)) throw new Error(`"${label}" cannot name a CA in a URL`);
  return `${label}-${infoOf(certPem).sha256.slice(0, 12)}`;
}

// The authority key identifier must repeat the issuer's own subject key identifier, whichever way that was computed.
async function keyIdentifiers(
  publicKey: CryptoKey,
  issuer: CryptoKey | x509.X509Certificate,
): Promise<x509.Extension[]> {
  const ski = await x509.SubjectKeyIdentifierExtension.create(publicKey);
  const issuerSki =
    issuer instanceof x509.X509Certificate
      ? (issuer.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ??
        (await x509.SubjectKeyIdentifierExtension.create(issuer.publicKey)).keyId)
      : ski.keyId;
  return [ski, new x509.AuthorityKeyIdentifierExtension(issuerSki)];
}

// Values go in as explicit UTF8String/IA5String objects: x509's string and plain-JSON forms unescape and strip quotes.
function dn(parts: NameParts): x509.Name {
  return new x509.Name(
    parts.map(([type, value]) => ({ [type]: [type === 'E' ? { ia5String: value } : { utf8String: value }] })),
  );
}

// The organisation id keeps two organisations with the same name from having CAs with the same name.
function orgName(org: Org, commonName: string): x509.Name {
  return dn([
    ['O', org.name],
    [DN_SERIAL_NUMBER, org.id],
    ['CN', commonName],
  ]);
}

function newSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40; // positive, and exactly 16 bytes once DER-encoded
  return bytes.toString('hex');
}

function skewed(now: Date): Date {
  return new Date(now.getTime() - HOUR);
}

function addYears(date: Date, years: number): Date {
  const result = new Date(date);
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}

async function newRsaKeys(): Promise<CryptoKeyPair> {
  return (await subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

async function importPrivateKey(
  pem: string,
  cert: x509.X509Certificate,
): Promise<{ key: CryptoKey; keyType: 'RSA' | 'EC' }> {
  const keyObject = createPrivateKey(pem);
  if (!publicKeyOf(cert).equals(createPublicKey(keyObject))) {
    throw new Error(`The private key does not belong to the certificate "${cert.subject}"`);
  }
  const pkcs8 = keyObject.export({ type: 'pkcs8', format: 'der' });
  if (keyObject.asymmetricKeyType === 'rsa') {
    const key = await subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
    return { key, keyType: 'RSA' };
  }
  const namedCurve = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' }[
    keyObject.asymmetricKeyDetails?.namedCurve ?? ''
  ];
  if (keyObject.asymmetricKeyType === 'ec' && namedCurve) {
    return {
      key: await subtle.importKey('pkcs8', pkcs8, { name: 'ECDSA', namedCurve }, false, ['sign']),
      keyType: 'EC',
    };
  }
  throw new Error(`Unsupported key type ${keyObject.asymmetricKeyType}: use an RSA or an ECDSA P-256/384/521 key`);
}

function publicKeyOf(cert: x509.X509Certificate): KeyObject {
  return createPublicKey({ key: Buffer.from(cert.publicKey.rawData), format: 'der', type: 'spki' });
}

function isCa(cert: x509.X509Certificate): boolean {
  return cert.getExtension(x509.BasicConstraintsExtension)?.ca === true;
}

// With the final newline that x509 leaves out, so that PEMs can be concatenated into a chain file.
function pem(cert: x509.X509Certificate): string {
  return `${cert.toString('pem')}\n`;
}

function der(cert: x509.X509Certificate): Uint8Array {
  return new Uint8Array(cert.rawData);
}

/** PEM as x509 writes it (64 characters a line), with the final newline pem() adds. */
function pemOfDer(bytes: Uint8Array): string {
  const lines =
    Buffer.from(bytes)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

// From the leaf up, following issuer names; certificates that are not in the leaf's chain are dropped.
function chainOf(leaf: x509.X509Certificate, certs: x509.X509Certificate[]): x509.X509Certificate[] {
  const pool = certs.filter((c) => c !== leaf);
  const chain: x509.X509Certificate[] = [];
  for (let current = leaf; current.issuer !== current.subject;) {
    const next = pool.find((c) => c.subject === current.issuer);
    if (!next) break;
    chain.push(next);
    pool.splice(pool.indexOf(next), 1);
    current = next;
  }
  return chain;
}

// ---- PKCS#12 ----

class EncryptedData {
  @AsnProp({ type: AsnPropTypes.Integer }) version = 0;
  @AsnProp({ type: EncryptedContentInfo }) encryptedContentInfo = new EncryptedContentInfo();
}
class PbeParams {
  @AsnProp({ type: AsnPropTypes.OctetString }) salt = new ArrayBuffer(0);
  @AsnProp({ type: AsnPropTypes.Integer }) iterations = 0;
}
class Pbes2Params {
  @AsnProp({ type: AlgorithmIdentifier }) keyDerivationFunc = new AlgorithmIdentifier();
  @AsnProp({ type: AlgorithmIdentifier }) encryptionScheme = new AlgorithmIdentifier();
}
class Pbkdf2Params {
  @AsnProp({ type: AsnPropTypes.OctetString }) salt = new ArrayBuffer(0);
  @AsnProp({ type: AsnPropTypes.Integer }) iterationCount = 0;
  @AsnProp({ type: AsnPropTypes.Integer, optional: true }) keyLength?: number;
  @AsnProp({ type: AlgorithmIdentifier, optional: true }) prf?: AlgorithmIdentifier;
}

const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '2.16.840.1.101.3.4.2.4': 'sha224',
};
const HMACS: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
const PBES2_CIPHERS: Record<string, [cipher: string, keyLength: number]> = {
  '2.16.840.1.101.3.4.1.2': ['aes-128-cbc', 16],
  '2.16.840.1.101.3.4.1.22': ['aes-192-cbc', 24],
  '2.16.840.1.101.3.4.1.42': ['aes-256-cbc', 32],
  '1.2.840.113549.3.7': ['des-ede3-cbc', 24],
};
const PKCS12_PBE_CIPHERS: Record<string, [cipher: string, keyLength: number]> = {
  '1.2.840.113549.1.12.1.3': ['des-ede3-cbc', 24],
  '1.2.840.113549.1.12.1.4': ['des-ede-cbc', 16],
};
const ID_PBES2 = '1.2.840.113549.1.5.13';
const ID_PBKDF2 = '1.2.840.113549.1.5.12';
const REEXPORT = 're-export it with OpenSSL 3 (`openssl pkcs12 -export`, default options)';

// The MAC proves the password before anything is decrypted; it also picks the form of an empty password that works.
function checkMac(pfx: PFX, authSafe: Buffer, password: string): Buffer {
  const { mac, macSalt, iterations } = pfx.macData;
  const hash = DIGESTS[mac.digestAlgorithm.algorithm];
  if (!hash) throw new Error(`The PKCS#12 file uses an unsupported integrity check; ${REEXPORT}`);
  const expected = Buffer.from(mac.digest.buffer);
  for (const candidate of bmpPasswordCandidates(password)) {
    const key = pkcs12Kdf(hash, candidate, Buffer.from(macSalt.buffer), iterations || 1, 3, expected.length);
    const actual = createHmac(hash, key).update(authSafe).digest();
    if (actual.length === expected.length && timingSafeEqual(actual, expected)) return candidate;
  }
  throw new Pkcs12Error('password', 'Wrong password for the PKCS#12 file');
}

function safeContents(info: ContentInfo, password: string, bmpPasswords: Buffer[]): Buffer {
  if (info.contentType === id_data) return octets(info.content);
  if (info.contentType !== id_encryptedData)
    throw new Error(`The PKCS#12 file uses public-key encryption; ${REEXPORT}`);
  const { encryptedContentInfo } = AsnConvert.parse(info.content, EncryptedData);
  const content = encryptedContentInfo.encryptedContent;
  const data = content?.value
    ? Buffer.from(content.value.buffer)
    : Buffer.concat((content?.constructedValue ?? []).map((o) => Buffer.from(o.buffer)));
  return decrypt(encryptedContentInfo.contentEncryptionAlgorithm, data, password, bmpPasswords);
}

function decrypt(algorithm: AlgorithmIdentifier, data: Buffer, password: string, bmpPasswords: Buffer[]): Buffer {
  let cipher: string, key: Buffer, iv: Buffer;
  if (algorithm.algorithm === ID_PBES2 && algorithm.parameters) {
    const { keyDerivationFunc, encryptionScheme } = AsnConvert.parse(algorithm.parameters, Pbes2Params);
    const scheme = PBES2_CIPHERS[encryptionScheme.algorithm];
    const kdf = keyDerivationFunc.parameters && AsnConvert.parse(keyDerivationFunc.parameters, Pbkdf2Params);
    const prf = kdf && HMACS[kdf.prf?.algorithm ?? '1.2.840.113549.2.7'];
    if (!scheme || !kdf || !prf || keyDerivationFunc.algorithm !== ID_PBKDF2 || !encryptionScheme.parameters) {
      throw new Error(`The PKCS#12 file uses an unsupported encryption; ${REEXPORT}`);
    }
    cipher = scheme[0];
    key = pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(kdf.salt), kdf.iterationCount, scheme[1], prf);
    iv = octets(encryptionScheme.parameters);
  } else if (PKCS12_PBE_CIPHERS[algorithm.algorithm] && algorithm.parameters) {
    const { salt, iterations } = AsnConvert.parse(algorithm.parameters, PbeParams);
    [cipher] = PKCS12_PBE_CIPHERS[algorithm.algorithm];
    key = pkcs12Kdf(
      'sha1',
      bmpPasswords[0],
      Buffer.from(salt),
      iterations,
      1,
      PKCS12_PBE_CIPHERS[algorithm.algorithm][1],
    );
    iv = pkcs12Kdf('sha1', bmpPasswords[0], Buffer.from(salt), iterations, 2, 8);
  } else {
    throw new Error(
      `The PKCS#12 file uses an obsolete or unsupported encryption (${algorithm.algorithm}); ${REEXPORT}`,
    );
  }
  try {
    const decipher = createDecipheriv(cipher, key, iv);
    return Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    throw new Pkcs12Error('password', 'Wrong password for the PKCS#12 file');
  }
}

// PKCS#12's own key derivation (RFC 7292 appendix B.2), which it uses for the MAC key and for its 3DES scheme.
function pkcs12Kdf(
  hash: string,
  password: Buffer,
  salt: Buffer,
  iterations: number,
  id: 1 | 2 | 3,
  size: number,
): Buffer {
  const v = hash === 'sha384' || hash === 'sha512' ? 128 : 64;
  const repeat = (b: Buffer, length: number) => Buffer.from(Array.from({ length }, (_, i) => b[i % b.length]));
  const input = Buffer.concat([
    repeat(salt, v * Math.ceil(salt.length / v)),
    repeat(password, v * Math.ceil(password.length / v)),
  ]);
  const diversifier = Buffer.alloc(v, id);
  const out: Buffer[] = [];
  for (let length = 0; length < size;) {
    let a = createHash(hash).update(diversifier).update(input).digest();
    for (let i = 1; i < iterations; i++) a = createHash(hash).update(a).digest();
    out.push(a);
    length += a.length;
    const b = repeat(a, v);
    for (let j = 0; j < input.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        carry += input[j + k] + b[k];
        input[j + k] = carry & 0xff;
        carry >>= 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, size);
}

// PKCS#12 passwords are NUL-terminated UTF-16BE; an empty password is written either as just the NUL or as nothing.
function bmpPasswordCandidates(password: string): Buffer[] {
  const utf16be = Buffer.from(password, 'utf16le').swap16();
  const terminated = Buffer.concat([utf16be, Buffer.alloc(2)]);
  return password ? [terminated] : [terminated, Buffer.alloc(0)];
}

function octets(encoded: ArrayBuffer): Buffer {
  return Buffer.from(AsnConvert.parse(encoded, OctetString).buffer);
}
