import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { answerTimestampQuery, newTokenSerial, rejection, tsaSigner, type TsaSigner } from './tsa-answer';
import {
  certificatesFromPem,
  checkTimestampReply,
  DEV_TSA_POLICY,
  oidText,
  TimestampCheckError,
  timestampQuery,
  type TimestampQuery,
} from './tsp';

/**
 * The checks on a TSA's answer, one refusal at a time, on tokens made here (our encoder, then altered with pkijs) with
 * certificates made here: the ones no well-behaved TSA (OpenSSL's, test/timestamps.test.ts) can be made to give.
 */

x509.cryptoProvider.set(webcrypto);
const HOUR = 3_600_000;
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

interface Pair {
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

async function ca(name: string): Promise<Pair> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - HOUR),
    notAfter: new Date(Date.now() + 365 * 24 * HOUR),
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  return { cert, keys };
}

/** A TSA certificate under `issuer`; `eku` null leaves the extension out. */
async function tsaCert(
  issuer: Pair,
  name: string,
  options: { eku?: string[] | null; critical?: boolean; notAfter?: Date; rsa?: boolean } = {},
): Promise<{ signer: TsaSigner; pem: string }> {
  const algorithm = options.rsa
    ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }
    : EC;
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const eku = options.eku === undefined ? [TIME_STAMPING] : options.eku;
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - HOUR),
    notAfter: options.notAfter ?? new Date(Date.now() + 30 * 24 * HOUR),
    extensions: eku ? [new x509.ExtendedKeyUsageExtension(eku, options.critical ?? true)] : [],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const pem = cert.toString('pem');
  return { signer: await tsaSigner(pem, `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`), pem };
}

const digest = new Uint8Array(createHash('sha256').update('a signature value').digest());

async function answer(signer: TsaSigner, query: TimestampQuery, now = new Date()): Promise<Uint8Array> {
  return answerTimestampQuery(query.der, signer, {
    now,
    policy: query.policy ?? DEV_TSA_POLICY,
    serial: newTokenSerial(),
    accuracySeconds: 1,
  });
}

/** The answer with its token's SignedData changed by `change`, re-encoded by pkijs. */
function altered(
  reply: Uint8Array,
  change: (signed: pkijs.SignedData, response: pkijs.TimeStampResp) => void,
): Uint8Array {
  const response = pkijs.TimeStampResp.fromBER(reply);
  const signed = new pkijs.SignedData({ schema: response.timeStampToken!.content });
  change(signed, response);
  response.timeStampToken = new pkijs.ContentInfo({
    contentType: pkijs.ContentInfo.SIGNED_DATA,
    content: signed.toSchema(true),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

const refusal = (
  reply: Uint8Array,
  query: TimestampQuery,
  extra: { trustAnchors?: pkijs.Certificate[]; now?: Date } = {},
) =>
  checkTimestampReply(reply, { query, now: extra.now ?? new Date(), trustAnchors: extra.trustAnchors }).then(
    () => 'accepted',
    (err: unknown) => {
      expect(err).toBeInstanceOf(TimestampCheckError);
      return (err as Error).message;
    },
  );

describe('checkTimestampReply', () => {
  let root: Pair;
  let good: { signer: TsaSigner; pem: string };
  beforeAll(async () => {
    root = await ca('Spec Root');
    good = await tsaCert(root, 'Spec TSA');
  });

  it('accepts a good token and answers its time, serial, policy, certificates and DER', async () => {
    const query = timestampQuery(digest, null);
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const reply = await answer(good.signer, query, now);
    const token = await checkTimestampReply(reply, {
      query,
      now,
      trustAnchors: certificatesFromPem(root.cert.toString('pem')),
    });
    expect(token.time).toEqual(now);
    expect(token.policy).toBe(DEV_TSA_POLICY);
    expect(token.serial).toMatch(/^[4-7][0-9a-f]{31}$/);
    expect(token.certificates).toEqual([good.signer.certificateDer]);
    const response = pkijs.TimeStampResp.fromBER(reply);
    expect(Buffer.from(token.token)).toEqual(Buffer.from(response.timeStampToken!.toSchema().toBER(false)));
  });

  it('accepts grantedWithMods, and RSA TSAs as well as ECDSA ones', async () => {
    const query = timestampQuery(digest, null);
    const withMods = pkijs.TimeStampResp.fromBER(await answer(good.signer, query));
    withMods.status = new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.grantedWithMods });
    expect(await refusal(new Uint8Array(withMods.toSchema().toBER(false)), query)).toBe('accepted');
    const rsa = await tsaCert(root, 'Spec RSA TSA', { rsa: true });
    expect(await refusal(await answer(rsa.signer, query), query)).toBe('accepted');
  });

  it('refuses a certificate without id-kp-timeStamping, with other purposes too, or with the extension not critical', async () => {
    const query = timestampQuery(digest, null);
    const none = await tsaCert(root, 'No EKU', { eku: null });
    expect(await refusal(await answer(none.signer, query), query)).toBe(
      'the TSA\'s certificate "No EKU" has no extended key usage id-kp-timeStamping',
    );
    const server = await tsaCert(root, 'Server', { eku: ['1.3.6.1.5.5.7.3.1'] });
    expect(await refusal(await answer(server.signer, query), query)).toBe(
      'the TSA\'s certificate "Server" has no extended key usage id-kp-timeStamping',
    );
    const more = await tsaCert(root, 'More', { eku: [TIME_STAMPING, '1.3.6.1.5.5.7.3.4'] });
    expect(await refusal(await answer(more.signer, query), query)).toBe(
      `the TSA's certificate "More" has other extended key usages than id-kp-timeStamping (${TIME_STAMPING}, 1.3.6.1.5.5.7.3.4)`,
    );
    const soft = await tsaCert(root, 'Soft', { critical: false });
    expect(await refusal(await answer(soft.signer, query), query)).toBe(
      'the TSA\'s certificate "Soft" has a non-critical extended key usage',
    );
  });

  it('refuses a certificate not valid at genTime', async () => {
    const query = timestampQuery(digest, null);
    const expired = await tsaCert(root, 'Expired', { notAfter: new Date(Date.now() - 60_000) });
    expect(await refusal(await answer(expired.signer, query), query)).toMatch(
      /^the TSA's certificate "Expired" is not valid at genTime/,
    );
  });

  it('refuses a nonce, imprint or policy other than asked, a missing nonce and a genTime far from our clock', async () => {
    const query = timestampQuery(digest, '1.2.3.4.5');
    const other = timestampQuery(digest, '1.2.3.4.5');
    expect(await refusal(await answer(good.signer, other), query)).toMatch(/^the nonce differs/);
    const samePolicyOtherDigest = { ...query, digest: new Uint8Array(32) };
    expect(await refusal(await answer(good.signer, query), samePolicyOtherDigest)).toMatch(
      /^the message imprint differs \(sent 0{64}, got [0-9a-f]{64}\)$/,
    );
    const unpolicied = timestampQuery(digest, null);
    expect(await refusal(await answer(good.signer, unpolicied), { ...unpolicied, policy: '1.2.3.4.5' })).toBe(
      `the policy is ${DEV_TSA_POLICY}, not the requested 1.2.3.4.5`,
    );
    const noNonce = pkijs.TimeStampReq.fromBER(query.der);
    delete noNonce.nonce;
    const answered = await answerTimestampQuery(new Uint8Array(noNonce.toSchema().toBER(false)), good.signer, {
      now: new Date(),
      policy: '1.2.3.4.5',
      serial: newTokenSerial(),
      accuracySeconds: 1,
    });
    expect(await refusal(answered, query)).toBe('the token carries no nonce');
    expect(await refusal(await answer(good.signer, query, new Date(Date.now() - 11 * 60_000)), query)).toMatch(
      /^genTime .* is more than 10 minutes from our clock/,
    );
    expect(await refusal(await answer(good.signer, query, new Date(Date.now() + 11 * 60_000)), query)).toMatch(
      /^genTime .* is more than 10 minutes from our clock/,
    );
  });

  it('refuses a token whose signature, content or certificate was changed', async () => {
    const query = timestampQuery(digest, null);
    const reply = await answer(good.signer, query);
    const badSignature = altered(reply, (signed) => {
      const bytes = new Uint8Array(signed.signerInfos[0].signature.valueBlock.valueHexView);
      bytes[bytes.length - 5] ^= 0x01;
      signed.signerInfos[0].signature = new asn1js.OctetString({ valueHex: bytes });
    });
    expect(await refusal(badSignature, query)).toMatch(/^the token's signature (does not verify|cannot be checked)/);

    const changedContent = altered(reply, (signed) => {
      const tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent!.getValue());
      tst.serialNumber = new asn1js.Integer({ value: 7 });
      signed.encapContentInfo = new pkijs.EncapsulatedContentInfo({
        eContentType: signed.encapContentInfo.eContentType,
        eContent: new asn1js.OctetString({ valueHex: tst.toSchema().toBER(false) }),
      });
    });
    expect(await refusal(changedContent, query)).toBe(
      "the token's message-digest attribute does not match its TSTInfo",
    );

    const impostor = await tsaCert(root, 'Impostor');
    const swapped = altered(reply, (signed) => (signed.certificates = [impostor.signer.certificate]));
    expect(await refusal(swapped, query)).toBe("the TSA's certificate named by ESSCertID is not in the token");
    const without = altered(reply, (signed) => delete signed.certificates);
    expect(await refusal(without, query)).toBe("the TSA's certificate named by ESSCertID is not in the token");

    // The right certificate is there, but the SignerInfo names the impostor: a token signed by someone else.
    const otherSigner = altered(reply, (signed) => {
      signed.certificates = [good.signer.certificate, impostor.signer.certificate];
      signed.signerInfos[0].sid = new pkijs.IssuerAndSerialNumber({
        issuer: impostor.signer.certificate.issuer,
        serialNumber: impostor.signer.certificate.serialNumber,
      });
    });
    expect(await refusal(otherSigner, query)).toBe("the SignerInfo names another certificate than the ESSCertID's");

    const noEss = altered(reply, (signed) => {
      const attrs = signed.signerInfos[0].signedAttrs!;
      attrs.attributes = attrs.attributes.filter((a) => a.type !== '1.2.840.113549.1.9.16.2.47');
      attrs.encodedValue = new ArrayBuffer(0);
    });
    expect(await refusal(noEss, query)).toBe(
      'the token has no signing-certificate attribute (ESSCertID or ESSCertIDv2)',
    );
  });

  it('chains the TSA to the trust anchors when given', async () => {
    const query = timestampQuery(digest, null);
    const reply = await answer(good.signer, query);
    expect(await refusal(reply, query, { trustAnchors: certificatesFromPem(root.cert.toString('pem')) })).toBe(
      'accepted',
    );
    const stranger = await ca('Stranger Root');
    expect(await refusal(reply, query, { trustAnchors: certificatesFromPem(stranger.cert.toString('pem')) })).toMatch(
      /^the TSA's certificate "Spec TSA" does not chain to TSA_CA_FILE/,
    );
  });

  it('refuses what is not an answer, an answer with bytes after it, a granted answer without a token, a rejection', async () => {
    const query = timestampQuery(digest, null);
    expect(await refusal(new Uint8Array([1, 2, 3]), query)).toMatch(/^the answer is not a TimeStampResp/);
    expect(await refusal(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00]), query)).toBe(
      'the answer is not a TimeStampResp',
    );
    const reply = await answer(good.signer, query);
    expect(await refusal(new Uint8Array([...reply, 0]), query)).toBe(
      'the answer is not a TimeStampResp (1 bytes after it)',
    );
    const empty = new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }) });
    expect(await refusal(new Uint8Array(empty.toSchema().toBER(false)), query)).toBe(
      'the answer is granted but carries no token',
    );
    expect(await refusal(rejection('badAlg', 'No SHA-1, please.\u0007'), query)).toBe(
      'the TSA refused: status rejection (badAlg): "No SHA-1, please.?"',
    );
    const waiting = new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.waiting }) });
    expect(await refusal(new Uint8Array(waiting.toSchema().toBER(false)), query)).toBe(
      'the TSA refused: status waiting',
    );
  });
});

describe('answerTimestampQuery (the development TSA)', () => {
  let signer: TsaSigner;
  beforeAll(async () => {
    signer = (await tsaCert(await ca('Dev Root'), 'Dev TSA')).signer;
  });
  const statusOf = async (query: Uint8Array) => {
    const response = pkijs.TimeStampResp.fromBER(
      await answerTimestampQuery(query, signer, {
        now: new Date(),
        policy: DEV_TSA_POLICY,
        serial: 'ab',
        accuracySeconds: 1,
      }),
    );
    return {
      status: response.status.status,
      text: response.status.statusStrings?.map((s) => s.valueBlock.value).join(' '),
      token: !!response.timeStampToken,
    };
  };
  const query = (change: (r: pkijs.TimeStampReq) => void) => {
    const request = pkijs.TimeStampReq.fromBER(timestampQuery(digest, null).der);
    change(request);
    return new Uint8Array(request.toSchema().toBER(false));
  };

  it('answers a well-formed query with a token, and each malformed one with a rejection saying why', async () => {
    expect(await statusOf(timestampQuery(digest, null).der)).toMatchObject({ status: 0, token: true });
    expect(await statusOf(timestampQuery(digest, DEV_TSA_POLICY).der)).toMatchObject({ status: 0, token: true });
    expect(await statusOf(new Uint8Array([0x30, 0x00]))).toEqual({
      status: 2,
      text: 'The request is not a DER TimeStampReq.',
      token: false,
    });
    expect(await statusOf(query((r) => (r.version = 2)))).toMatchObject({
      status: 2,
      text: 'Version 2 is not supported.',
    });
    expect(
      await statusOf(
        query(
          (r) =>
            (r.messageImprint = new pkijs.MessageImprint({
              hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: '1.3.14.3.2.26' }),
              hashedMessage: new asn1js.OctetString({ valueHex: new Uint8Array(20) }),
            })),
        ),
      ),
    ).toMatchObject({ status: 2, text: 'The message imprint must be SHA-256, SHA-384 or SHA-512.' });
    expect(
      await statusOf(
        query((r) => (r.messageImprint.hashedMessage = new asn1js.OctetString({ valueHex: new Uint8Array(31) }))),
      ),
    ).toMatchObject({ status: 2, text: 'A SHA-256 imprint has 32 bytes.' });
    expect(await statusOf(query((r) => (r.reqPolicy = '1.2.3')))).toMatchObject({
      status: 2,
      text: 'The policy 1.2.3 is not supported.',
    });
    expect(
      await statusOf(
        query(
          (r) => (r.extensions = [new pkijs.Extension({ extnID: '1.2.3.4', extnValue: new asn1js.Null().toBER() })]),
        ),
      ),
    ).toMatchObject({ status: 2, text: 'Request extensions are not supported.' });
  });
});

describe('oidText', () => {
  it('writes arcs too large for a number (UUID arcs under 2.25) in decimal', () => {
    const oid = new asn1js.ObjectIdentifier({ value: DEV_TSA_POLICY });
    const parsed = asn1js.fromBER(oid.toBER()).result as asn1js.ObjectIdentifier;
    expect(parsed.valueBlock.toString()).not.toBe(DEV_TSA_POLICY);
    expect(oidText(parsed.valueBlock.toString())).toBe(DEV_TSA_POLICY);
    expect(oidText('1.2.840.113549.1.9.16.1.4')).toBe('1.2.840.113549.1.9.16.1.4');
  });
});
