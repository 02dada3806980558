import 'reflect-metadata';
import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { readFixture } from '../../../../test/support/fixtures';
import { runPdfVerify } from '../../../../test/support/pdf-verify';
import { renderPage, SIGNATURE_PNG } from '../../../../test/support/signing';
import { inspectPdf } from '../../documents/pdf/inspect';
import { placeBoxes } from '../../documents/pdf/placement';
import {
  generateRootCa,
  issueOrganisationCa,
  issueSignerCertificate,
  loadIssuer,
  type IssuerMaterial,
  type KeyPairPem,
} from '../pki/certificates';
import { DocumentNotSignableError, type StampInput } from './engine';
import {
  assembleCms,
  byteRangeDigestOf,
  embedExternal,
  locateContents,
  messageDigestOf,
  prepareExternal,
  signDigestCms,
  signedAttributesFor,
  SignatureTooLargeError,
} from './external';
import { signParty } from '../../../../test/support/engine';

const subtle = webcrypto.subtle;
const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const spec = (fieldName: string, name?: string) => ({
  fieldName,
  reason: 'Signed with Aadhaar eSign',
  location: 'Pune',
  signingTime: new Date(),
  name,
});

/** A signer's certificate and its extractable private key (PKCS#8 PEM), as a sandbox ESP or a token holds them. */
async function issueLeaf(issuer: IssuerMaterial, name: string, kind: 'RSA' | 'EC'): Promise<KeyPairPem> {
  const keys = (await subtle.generateKey(
    kind === 'RSA'
      ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['sign', 'verify'],
  )) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '4a' + Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex'),
    subject: new x509.Name([{ O: [{ utf8String: 'Acme' }] }, { CN: [{ utf8String: name }] }]),
    issuer: issuer.cert.subjectName,
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 86_400_000),
    publicKey: keys.publicKey,
    signingKey: issuer.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      new x509.AuthorityKeyIdentifierExtension(
        (await x509.SubjectKeyIdentifierExtension.create(issuer.cert.publicKey)).keyId,
      ),
    ],
  });
  const pkcs8 = await subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** A box over the top left of page 1 of normal.pdf, where its text is. */
async function boxesOn(document: Uint8Array): Promise<StampInput['boxes']> {
  const inspected = await inspectPdf({ bytes: Buffer.from(document), filename: 'a.pdf', mimeType: 'application/pdf' });
  return placeBoxes({
    rectangle: '60,60,360,160',
    pageNo: [1],
    applyAll: false,
    totalPages: inspected.totalPages,
    geometry: inspected.geometry,
  });
}

describe('External (deferred) signing: prepare, sign the digest elsewhere, embed the CMS', () => {
  let root: KeyPairPem;
  let orgCa: KeyPairPem;
  let issuer: IssuerMaterial;
  let rsaLeaf: KeyPairPem;
  let ecLeaf: KeyPairPem;
  let chain: string[];

  beforeAll(async () => {
    const now = new Date();
    root = await generateRootCa(now);
    orgCa = await issueOrganisationCa(root, { id: 'acme', name: 'Acme' }, now);
    issuer = await loadIssuer(orgCa, [root.certPem]);
    rsaLeaf = await issueLeaf(issuer, 'Ravi Kumar', 'RSA');
    ecLeaf = await issueLeaf(issuer, 'Asha Rao', 'EC');
    chain = [orgCa.certPem, root.certPem];
  });

  it('signs normal.pdf with an RSA-2048 key: valid, trusted, the signer named, the whole document, qpdf clean', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const { prepared, byteRangeDigest, byteRange, contents } = await prepareExternal(
      original,
      { boxes: await boxesOn(original), image: SIGNATURE_PNG },
      spec('esign_party_1', 'Ravi Kumar'),
    );
    // An incremental update: the original bytes come first, untouched.
    expect(Buffer.from(prepared.subarray(0, original.length)).equals(original)).toBe(true);
    expect(byteRange[0]).toBe(0);
    expect(byteRange[2] + byteRange[3]).toBe(prepared.length);
    expect(contents.hexLength).toBe(2 * 32_768);
    // The digest is the SHA-256 of exactly the bytes around /Contents.
    const covered = Buffer.concat([prepared.subarray(0, byteRange[1]), prepared.subarray(byteRange[2])]);
    expect(Buffer.from(byteRangeDigest).equals(Buffer.from(sha256(covered)))).toBe(true);

    const cms = signDigestCms(byteRangeDigest, rsaLeaf.keyPem, rsaLeaf.certPem, chain);
    expect(Buffer.from(messageDigestOf(cms)).equals(Buffer.from(byteRangeDigest))).toBe(true);
    const signed = embedExternal(prepared, cms);

    const verified = runPdfVerify(signed, [root.certPem], original);
    expect(verified.problems).toEqual([]);
    expect(verified.ok).toBe(true);
    expect(verified.signatures).toHaveLength(1);
    expect(verified.signatures[0]).toMatchObject({
      field: 'esign_party_1',
      signer: 'Ravi Kumar',
      type: 'ETSI.CAdES.detached',
      validation: 'Signature is Valid.',
      trusted: true,
      wholeDocument: true,
    });
  });

  it('stamps the boxes exactly as signParty does (the same pixels on the page)', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const stamp = { boxes: await boxesOn(original), image: SIGNATURE_PNG };
    const { signer } = await issueSignerCertificate(issuer, { name: 'Asha Rao', organisation: 'Acme' }, new Date());
    const byEngine = await signParty(original, stamp, { signer, ...spec('esign_party_1') });
    const { prepared } = await prepareExternal(original, stamp, spec('esign_party_1'));
    const [a, b, before] = [byEngine, prepared, original].map((pdf) => renderPage(Buffer.from(pdf), 1, 40));
    expect(b.pixels.equals(a.pixels)).toBe(true);
    expect(b.pixels.equals(before.pixels)).toBe(false);
  });

  it('adds an EC P-256 signature after an engine signature on us_constitution.pdf: both stay valid', async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const { signer } = await issueSignerCertificate(issuer, { name: 'Meera Iyer', organisation: 'Acme' }, new Date());
    const first = await signParty(
      original,
      { boxes: await boxesOn(original), text: { value: 'Meera Iyer', italic: false } },
      { signer, ...spec('esign_party_1') },
    );
    const { prepared, byteRangeDigest } = await prepareExternal(
      first,
      { boxes: await boxesOn(original), text: { value: 'Asha Rao', italic: true } },
      spec('esign_party_2', 'Asha Rao'),
    );
    expect(Buffer.from(prepared.subarray(0, first.length)).equals(Buffer.from(first))).toBe(true);
    const signed = embedExternal(prepared, signDigestCms(byteRangeDigest, ecLeaf.keyPem, ecLeaf.certPem, chain));

    const verified = runPdfVerify(signed, [root.certPem], original);
    expect(verified.problems).toEqual([]);
    expect(verified.signatures.map((s) => [s.field, s.signer, s.validation, s.trusted, s.wholeDocument])).toEqual([
      ['esign_party_1', 'Meera Iyer', 'Signature is Valid.', true, false],
      ['esign_party_2', 'Asha Rao', 'Signature is Valid.', true, true],
    ]);
  });

  it('a CMS over another digest embeds, and the verifier reports a digest mismatch (the check is real)', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const { prepared, byteRangeDigest } = await prepareExternal(original, { boxes: [] }, spec('esign_party_1'));
    const other = sha256(Buffer.concat([Buffer.from(byteRangeDigest), Buffer.from('tampered')]));
    const signed = embedExternal(prepared, signDigestCms(other, ecLeaf.keyPem, ecLeaf.certPem, chain));
    const verified = runPdfVerify(signed, [root.certPem]);
    expect(verified.ok).toBe(false);
    expect(verified.signatures[0].validation).toBe('Digest Mismatch.');
  });

  it('refuses a CMS larger than the room reserved, and changes no byte but /Contents when it fits', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const { prepared, byteRangeDigest, contents } = await prepareExternal(original, { boxes: [] }, spec('s1'), 2_048);
    expect(contents.hexLength).toBe(4_096);
    const cms = signDigestCms(byteRangeDigest, rsaLeaf.keyPem, rsaLeaf.certPem, chain); // three RSA certificates
    expect(cms.length).toBeGreaterThan(2_048);
    expect(() => embedExternal(prepared, cms)).toThrow(SignatureTooLargeError);
    expect(() => embedExternal(prepared, cms)).toThrow(/does not fit the 2048 bytes reserved/);

    const small = signDigestCms(byteRangeDigest, ecLeaf.keyPem, ecLeaf.certPem, []);
    expect(small.length).toBeLessThan(2_048);
    const signed = embedExternal(prepared, small);
    expect(signed.length).toBe(prepared.length);
    const { offset, hexLength } = contents;
    expect(Buffer.from(signed.subarray(0, offset)).equals(Buffer.from(prepared.subarray(0, offset)))).toBe(true);
    expect(
      Buffer.from(signed.subarray(offset + hexLength)).equals(Buffer.from(prepared.subarray(offset + hexLength))),
    ).toBe(true);
    expect(Buffer.from(signed.subarray(offset, offset + hexLength)).toString('latin1')).toBe(
      Buffer.from(small).toString('hex').padEnd(hexLength, '0'),
    );
    // Once filled, /Contents takes no second CMS.
    expect(() => embedExternal(signed, small)).toThrow(/already holds/);
  });

  it('finds /Contents and the digest again from the stored prepared bytes alone', async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const result = await prepareExternal(original, { boxes: [] }, spec('esign_party_1'));
    const stored = Buffer.from(result.prepared); // e.g. written to storage and read back
    expect(locateContents(stored)).toEqual(result.contents);
    expect(Buffer.from(byteRangeDigestOf(stored)).equals(Buffer.from(result.byteRangeDigest))).toBe(true);
    expect(() => locateContents(original)).toThrow(/not a prepared document/);
  });

  it('refuses a signed document it could only rewrite, as the engine does', async () => {
    await expect(
      prepareExternal(readFixture('pdfs', 'already_signed_twice.pdf'), { boxes: [] }, spec('esign_party_1')),
    ).rejects.toBeInstanceOf(DocumentNotSignableError);
  });

  describe('the CMS pieces, for a token that signs the signed attributes', () => {
    const digest = sha256(Buffer.from('document'));

    it('signed attributes: a DER SET of contentType, messageDigest and signing-certificate-v2, no signingTime', () => {
      const certDer = new Uint8Array(new X509Certificate(ecLeaf.certPem).raw);
      const attrs = Buffer.from(signedAttributesFor(digest, certDer));
      expect(attrs[0]).toBe(0x31);
      const oid = (dotted: string) => {
        const [a, b, ...rest] = dotted.split('.').map(Number);
        const body = [40 * a + b];
        for (const n of rest) {
          const bytes = [n & 0x7f];
          for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) bytes.unshift((v & 0x7f) | 0x80);
          body.push(...bytes);
        }
        return Buffer.from([0x06, body.length, ...body]);
      };
      expect(attrs.includes(oid('1.2.840.113549.1.9.3'))).toBe(true); // contentType
      expect(attrs.includes(Buffer.concat([oid('1.2.840.113549.1.9.4'), Buffer.from([0x31, 0x22, 0x04, 0x20])]))).toBe(
        true,
      );
      expect(attrs.includes(Buffer.from(digest))).toBe(true);
      expect(attrs.includes(oid('1.2.840.113549.1.9.16.2.47'))).toBe(true); // signing-certificate-v2
      expect(attrs.includes(Buffer.from(sha256(certDer)))).toBe(true); // ESSCertIDv2 certHash
      expect(attrs.includes(oid('1.2.840.113549.1.9.5'))).toBe(false); // signingTime
    });

    it('assembles a token’s raw r‖s ECDSA answer into a CMS the verifier accepts', async () => {
      const original = readFixture('pdfs', 'normal.pdf');
      const { prepared, byteRangeDigest } = await prepareExternal(original, { boxes: [] }, spec('esign_party_1'));
      const certificateDer = new Uint8Array(new X509Certificate(ecLeaf.certPem).raw);
      const signedAttributesDer = signedAttributesFor(byteRangeDigest, certificateDer);
      // What a PKCS#11 token answers for CKM_ECDSA: r‖s (WebCrypto answers the same format).
      const key = await subtle.importKey(
        'pkcs8',
        x509.PemConverter.decodeFirst(ecLeaf.keyPem),
        { name: 'ECDSA', namedCurve: 'P-256' },
        false,
        ['sign'],
      );
      const raw = new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, signedAttributesDer));
      expect(raw.length).toBe(64);
      const cms = assembleCms({
        digest: byteRangeDigest,
        signedAttributesDer,
        signature: raw,
        certificateDer,
        chainDers: chain.map((pem) => new Uint8Array(new X509Certificate(pem).raw)),
        signatureAlgorithm: 'ECDSA-SHA256',
      });
      const verified = runPdfVerify(embedExternal(prepared, cms), [root.certPem]);
      expect(verified.problems).toEqual([]);
      expect(verified.signatures[0]).toMatchObject({ signer: 'Asha Rao', valid: true, trusted: true });
    });

    it('refuses a signature that does not verify, a mismatched digest, or the wrong algorithm', () => {
      const certificateDer = new Uint8Array(new X509Certificate(rsaLeaf.certPem).raw);
      const signedAttributesDer = signedAttributesFor(digest, certificateDer);
      const good = messageDigestOf(signDigestCms(digest, rsaLeaf.keyPem, rsaLeaf.certPem, []));
      expect(Buffer.from(good).equals(Buffer.from(digest))).toBe(true);
      const parts = {
        digest,
        signedAttributesDer,
        signature: new Uint8Array(256).fill(7),
        certificateDer,
        chainDers: [],
        signatureAlgorithm: 'RSA-SHA256' as const,
      };
      expect(() => assembleCms(parts)).toThrow(/does not verify/);
      expect(() => assembleCms({ ...parts, digest: sha256(Buffer.from('other')) })).toThrow(/another messageDigest/);
      expect(() => assembleCms({ ...parts, signatureAlgorithm: 'ECDSA-SHA256' })).toThrow(/cannot come from/);
    });
  });
});
