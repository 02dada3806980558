import 'reflect-metadata';
import { createHash, X509Certificate } from 'node:crypto';
import { ContentInfo, SignedData } from '@peculiar/asn1-cms';
import { AsnConvert } from '@peculiar/asn1-schema';
import { generateRootCa, issueOrganisationCa } from '../pki/certificates';
import { certificatesOf, messageDigestOf, signatureValueOf, withSignatureTimestamp } from './cms';
import { derElement, serialNumberOf, splitSignedData } from './cms-der';
import { signDigestCms } from './external';

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
