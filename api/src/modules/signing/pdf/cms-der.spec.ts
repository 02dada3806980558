import 'reflect-metadata';
import { createHash, X509Certificate } from 'node:crypto';
import { Attribute, ContentInfo, SignedData, SignerInfos } from '@peculiar/asn1-cms';
import {
  AsnArray,
  AsnConvert,
  AsnIntegerArrayBufferConverter,
  AsnProp,
  AsnPropTypes,
  AsnType,
  AsnTypeTypes,
  OctetString,
} from '@peculiar/asn1-schema';
import { Certificate, GeneralName } from '@peculiar/asn1-x509';
import { generateRootCa, issueOrganisationCa, issueSignerCertificate, loadIssuer } from '../pki/certificates';
import {
  certificatesOf,
  messageDigestOf,
  signatureTimestampOf,
  signatureValueOf,
  signedAttributesFor,
  withSignatureTimestamp,
} from './cms';
import { derElement, serialNumberOf, splitSignedData } from './cms-der';
import { signDigestCms } from './external';
import { IncrementalEngine } from './incremental-engine';

// The oracle: the signed attributes as the ASN.1 schemas write them (how cms.ts made them before issue 23).
@AsnType({ type: AsnTypeTypes.Sequence })
class IssuerSerial {
  @AsnProp({ type: GeneralName, repeated: 'sequence' }) issuer: GeneralName[] = [];
  @AsnProp({ type: AsnPropTypes.Integer, converter: AsnIntegerArrayBufferConverter }) serialNumber = new ArrayBuffer(0);
}
@AsnType({ type: AsnTypeTypes.Sequence })
class EssCertIdV2 {
  @AsnProp({ type: OctetString }) certHash = new OctetString();
  @AsnProp({ type: IssuerSerial, optional: true }) issuerSerial?: IssuerSerial;
}
@AsnType({ type: AsnTypeTypes.Sequence })
class SigningCertificateV2 {
  @AsnProp({ type: EssCertIdV2, repeated: 'sequence' }) certs: EssCertIdV2[] = [];
}
@AsnType({ type: AsnTypeTypes.Choice })
class ObjectIdentifierValue {
  @AsnProp({ type: AsnPropTypes.ObjectIdentifier }) value = '';
}
@AsnType({ type: AsnTypeTypes.Set, itemType: Attribute })
class AttributeSet extends AsnArray<Attribute> {
  constructor(items?: Attribute[]) {
    super(items);
    Object.setPrototypeOf(this, AttributeSet.prototype);
  }
}

function schemaSignedAttributes(digest: Uint8Array, certificateDer: Uint8Array): Buffer {
  const tbs = AsnConvert.parse(certificateDer, Certificate).tbsCertificate;
  const issuerSerial = Object.assign(new IssuerSerial(), {
    issuer: [new GeneralName({ directoryName: tbs.issuer })],
    serialNumber: tbs.serialNumber,
  });
  const essCertId = Object.assign(new EssCertIdV2(), {
    certHash: new OctetString(createHash('sha256').update(certificateDer).digest()),
    issuerSerial,
  });
  const ess = Object.assign(new SigningCertificateV2(), { certs: [essCertId] });
  const contentType = Object.assign(new ObjectIdentifierValue(), { value: '1.2.840.113549.1.7.1' });
  const attribute = (type: string, value: ArrayBuffer) => new Attribute({ attrType: type, attrValues: [value] });
  const attributes = [
    attribute('1.2.840.113549.1.9.3', AsnConvert.serialize(contentType)),
    attribute('1.2.840.113549.1.9.4', AsnConvert.serialize(new OctetString(digest))),
    attribute('1.2.840.113549.1.9.16.2.47', AsnConvert.serialize(ess)),
  ]
    .map((a) => ({ a, der: Buffer.from(AsnConvert.serialize(a)) }))
    .sort((x, y) => Buffer.compare(x.der, y.der))
    .map(({ a }) => a);
  return Buffer.from(AsnConvert.serialize(new AttributeSet(attributes)));
}

/** The CMS's outer layers are written and read by hand (issue 23); these check them against the ASN.1 schemas. */
describe('CMS outer layers by hand', () => {
  const digest = createHash('sha256').update('a document').digest();
  let cms: Uint8Array;
  let leaf: Uint8Array;
  let root: Uint8Array;

  beforeAll(async () => {
    const now = new Date();
    const rootCa = await generateRootCa(now);
    const orgCa = await issueOrganisationCa(rootCa, { id: 1, name: 'Demo Org' } as never, now);
    cms = signDigestCms(digest, orgCa.keyPem, orgCa.certPem, [rootCa.certPem]);
    leaf = new Uint8Array(new X509Certificate(orgCa.certPem).raw);
    root = new Uint8Array(new X509Certificate(rootCa.certPem).raw);
  });

  it('writes DER the schemas read and write back byte for byte, with the certificates as they were given', () => {
    const info = AsnConvert.parse(cms, ContentInfo);
    const signedData = AsnConvert.parse(info.content, SignedData);
    const again = new Uint8Array(
      AsnConvert.serialize(
        new ContentInfo({ contentType: info.contentType, content: AsnConvert.serialize(signedData) }),
      ),
    );
    expect(Buffer.from(again).equals(Buffer.from(cms))).toBe(true);
    const { signer, others } = certificatesOf(cms);
    expect(Buffer.from(signer).equals(Buffer.from(leaf))).toBe(true);
    expect(others.map((o) => Buffer.from(o).toString('hex'))).toEqual([Buffer.from(root).toString('hex')]);
    expect(Buffer.from(messageDigestOf(cms)).equals(digest)).toBe(true);
  });

  it('writes the signed attributes and the SignerInfo byte for byte as the schemas do, for an RSA and an EC signer', async () => {
    const now = new Date();
    const rootCa = await generateRootCa(now);
    const orgCa = await issueOrganisationCa(rootCa, { id: 1, name: 'Demo Org' } as never, now);
    // RSA: the organisation CA's own key (as an imported seal would sign).
    expect(Buffer.from(signedAttributesFor(digest, leaf)).equals(schemaSignedAttributes(digest, leaf))).toBe(true);
    // EC P-256: a one-time signer certificate with a long serial and an e-mail address, through the engine's path.
    const issuer = await loadIssuer(orgCa, [rootCa.certPem]);
    const { signer } = await issueSignerCertificate(
      issuer,
      { name: 'Asha Rao', email: 'asha@example.in', organisation: 'Demo Org' },
      now,
    );
    const ecCms = await new IncrementalEngine(null as never, null as never).signWith(digest, signer);
    const signed = signedAttributesFor(digest, signer.certificate);
    expect(Buffer.from(signed).equals(schemaSignedAttributes(digest, signer.certificate))).toBe(true);
    for (const made of [cms, ecCms]) {
      const parts = splitSignedData(made);
      const again = Buffer.from(AsnConvert.serialize(AsnConvert.parse(parts.signerInfos, SignerInfos)));
      expect(again.equals(Buffer.from(parts.signerInfos))).toBe(true);
    }
    expect(Buffer.from(messageDigestOf(ecCms)).equals(digest)).toBe(true);
    expect(Buffer.from(certificatesOf(ecCms).signer).equals(Buffer.from(signer.certificate))).toBe(true);
  });

  it('reads a serial number from the DER and encodes long lengths', () => {
    const serial = new X509Certificate(Buffer.from(leaf)).serialNumber.replace(/^0+/, '').toLowerCase();
    expect(Buffer.from(serialNumberOf(leaf)).toString('hex').replace(/^0+/, '')).toBe(serial);
    const big = derElement(0x04, [new Uint8Array(300)]);
    expect([...big.subarray(0, 4)]).toEqual([0x04, 0x82, 0x01, 0x2c]);
  });

  it('keeps the signed part byte for byte when a signature timestamp is added', () => {
    const token = derElement(0x30, [Uint8Array.from([0x02, 0x01, 0x05])]);
    const stamped = withSignatureTimestamp(cms, token);
    const before = splitSignedData(cms);
    const after = splitSignedData(stamped);
    expect(after.certificates?.map((c) => Buffer.from(c).toString('hex'))).toEqual(
      before.certificates?.map((c) => Buffer.from(c).toString('hex')),
    );
    expect(Buffer.from(signatureValueOf(stamped)).equals(Buffer.from(signatureValueOf(cms)))).toBe(true);
    expect(Buffer.from(stamped).includes(Buffer.from(token))).toBe(true);
    // Byte for byte what the schemas make of it (the SignerInfo parsed, the attribute added, serialised again).
    const infos = AsnConvert.parse(before.signerInfos, SignerInfos);
    infos[0].unsignedAttrs = [
      new Attribute({ attrType: '1.2.840.113549.1.9.16.2.14', attrValues: [Uint8Array.from(token).buffer] }),
    ];
    const schemaInfos = Buffer.from(AsnConvert.serialize(infos));
    expect(Buffer.from(after.signerInfos).equals(schemaInfos)).toBe(true);
    // A second token replaces the first: one signature-timestamp attribute, the newer token.
    const newer = derElement(0x30, [Uint8Array.from([0x02, 0x01, 0x06])]);
    const again = withSignatureTimestamp(stamped, newer);
    expect(Buffer.from(signatureTimestampOf(again)!).equals(Buffer.from(newer))).toBe(true);
    expect(Buffer.from(again).includes(Buffer.from(token))).toBe(false);
    expect(Buffer.from(messageDigestOf(again)).equals(digest)).toBe(true);
  });

  it('still reads a BER CMS (an indefinite length, as some ESPs answer) through the schemas', () => {
    // The outer SEQUENCE re-encoded with an indefinite length: BER, not DER.
    const header = cms[1] & 0x80 ? 2 + (cms[1] & 0x7f) : 2;
    const ber = Buffer.concat([Buffer.from([0x30, 0x80]), Buffer.from(cms.subarray(header)), Buffer.from([0, 0])]);
    expect(() => splitSignedData(new Uint8Array(ber))).toThrow();
    expect(Buffer.from(messageDigestOf(new Uint8Array(ber))).equals(digest)).toBe(true);
    expect(Buffer.from(certificatesOf(new Uint8Array(ber)).signer).equals(Buffer.from(leaf))).toBe(true);
  });
});
