import { SignedXml } from 'xml-crypto';
import { EsignTransactionEntity } from '../../src/modules/aadhaar/esign-transaction.entity';
import { EspKeys, type SandboxMaterial } from '../../src/modules/aadhaar/esp-keys.service';
import {
  buildEsignResponse,
  C14N,
  ENVELOPED_SIGNATURE,
  parseEsignResponse,
  RSA_SHA256,
  SHA256_DIGEST,
  signEnveloped,
} from '../../src/modules/aadhaar/protocol';
import { signDigestCms } from '../../src/modules/signing/pdf/external';
import { generateCa, issueRsaLeaf, type KeyPairPem } from '../../src/modules/signing/pki/certificates';
import { partyRow, requestRow, sendForSigning } from '../support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from '../support/test-app';

/**
 * The ESP's answer (<EsignResp>, posted back through the signer's browser) is attacker-controlled input: XML entities
 * and DTDs, and every XML-DSig signature-wrapping shape must be refused, never accepted and never a 500.
 */

const ASHA = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '+91 98765 43210' };
const INVALID = 'The eSign answer could not be verified. Nothing was signed; please try again.';
const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
const b64 = (pem: string) => der(pem).toString('base64');

/** Replaces exactly one occurrence (the test is wrong if the shape it edits is not there). */
function once(xml: string, from: string | RegExp, to: string): string {
  const changed = xml.replace(from, to);
  expect(changed).not.toBe(xml);
  return changed;
}

/** Signs with the ESP's key a Reference to `xpath` by Id (URI="#…"), as a wrapping attacker would want it. */
function signById(xml: string, xpath: string, key: KeyPairPem): string {
  const sig = new SignedXml({
    privateKey: key.keyPem,
    publicCert: key.certPem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: C14N,
  });
  sig.addReference({ xpath, transforms: [ENVELOPED_SIGNATURE, C14N], digestAlgorithm: SHA256_DIGEST });
  sig.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  return sig.getSignedXml();
}

const signatureOf = (xml: string) => /<Signature[\s>][\s\S]*<\/Signature>/.exec(xml)![0];
const withoutSignature = (xml: string) => xml.replace(/<Signature[\s>][\s\S]*<\/Signature>/, '');

describe('the ESP response parser against XXE, entity expansion and signature wrapping', () => {
  let t: TestApp;
  let key: string;
  let sandbox: SandboxMaterial;
  let attacker: KeyPairPem;
  let txn: string;
  let requestId: string;
  let refId: number;
  /** The unsigned genuine answer for the pending transaction, and the same signed by the sandbox ESP. */
  let unsigned: string;
  let genuine: string;
  /** The same answer with an attacker's resident certificate and CMS (what a forger wants accepted). */
  let forgedUnsigned: string;
  let signToken: string;
  let forgerCa: KeyPairPem;

  const espSign = (xml: string) => signEnveloped(xml, sandbox.esp.keyPem, sandbox.esp.certPem);
  const parse = (xml: string) => parseEsignResponse(xml, sandbox.esp.certPem, { txn });

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
    sandbox = await t.app.get(EspKeys).sandbox();
    forgerCa = await generateCa({ organisation: 'Forger', commonName: 'Forger CA' }, new Date());
    attacker = await issueRsaLeaf(forgerCa, { commonName: 'Sandbox ESP' }, new Date(), { years: 1 });

    // A pending Aadhaar transaction, as init?method=0 makes it.
    const sent = await sendForSigning(
      t,
      key,
      'acme',
      {
        fixture: 'normal.pdf',
        otpRequired: false,
        recipients: [{ ...ASHA, observer: false, signature_type: 'Aadhaar' }],
      },
      [{ order: 1, pageNo: [1] }],
    );
    refId = sent.refId;
    signToken = sent.tokens[1];
    const h = { 'x-sign-token': signToken };
    const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
    requestId = ref.body.request.requestId as string;
    await t.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'opened' }).expect(200);
    await t.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'signing' }).expect(200);
    ({ txn, unsigned, genuine, forgedUnsigned } = await pendingAnswers());
  });
  afterAll(() => t.close());

  /** Starts an Aadhaar attempt (init?method=0) and answers the genuine and forged answers for its transaction. */
  async function pendingAnswers() {
    await t.http.get(`/v1/init/acme/${requestId}?method=0`).set({ 'x-sign-token': signToken }).expect(200);
    const tx = await t.db
      .getRepository(EsignTransactionEntity)
      .findOneByOrFail({ partyId: requestId, status: 'pending' });
    const answer = (resident: KeyPairPem, chain: string[]) =>
      buildEsignResponse({
        status: '1',
        ts: new Date(),
        txn: tx.id,
        resCode: 'r1',
        userCertificateDer: der(resident.certPem),
        signatures: [
          {
            id: '1',
            cmsDer: signDigestCms(Buffer.from(tx.digestHex, 'hex'), resident.keyPem, resident.certPem, chain),
          },
        ],
      });
    const resident = await issueRsaLeaf(sandbox.ca, { commonName: ASHA.name }, new Date(), { minutes: 30 });
    const fake = await issueRsaLeaf(forgerCa, { commonName: ASHA.name }, new Date(), { minutes: 30 });
    const real = answer(resident, [sandbox.ca.certPem]);
    return { txn: tx.id, unsigned: real, genuine: espSign(real), forgedUnsigned: answer(fake, [forgerCa.certPem]) };
  }

  it('accepts the genuine answer (the baseline every variant below starts from)', () => {
    const result = parse(genuine);
    expect(result.ok).toBe(true);
    if (!result.ok || result.value.status !== '1') throw new Error('expected a success');
    expect(result.value.txn).toBe(txn);
    expect(result.value.signatures).toHaveLength(1);
    // With an XML declaration, as ESPs send it.
    expect(parse(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${genuine}`).ok).toBe(true);
    // KeyInfo with the ESP's certificate followed by its issuer (a chain): still the ESP.
    const chained = once(
      genuine,
      /(<X509Certificate>[^<]+<\/X509Certificate>)/,
      `$1<X509Certificate>${b64(sandbox.ca.certPem)}</X509Certificate>`,
    );
    expect(parse(chained).ok).toBe(true);
  });

  /** Every variant: refused with a reason, no exception. */
  const expectRefused = (xml: string, reason?: RegExp): string => {
    let result: ReturnType<typeof parse>;
    expect(() => (result = parse(xml))).not.toThrow();
    if (result!.ok) throw new Error(`accepted: ${xml.slice(0, 300)}`);
    if (reason) expect(result!.reason).toMatch(reason);
    return result!.reason;
  };

  describe('DTDs and entities', () => {
    const variants: Record<string, () => string> = {
      'XXE (external entity to /etc/passwd)': () =>
        `<?xml version="1.0"?><!DOCTYPE EsignResp [<!ENTITY e SYSTEM "file:///etc/passwd">]>${once(
          genuine,
          'resCode="r1"',
          'resCode="&e;"',
        )}`,
      'XXE in text content': () =>
        `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${once(genuine, '<Signatures>', '<Signatures>&e;')}`,
      'external DTD': () => `<!DOCTYPE EsignResp SYSTEM "http://127.0.0.1:9/evil.dtd">${genuine}`,
      'parameter entity': () => `<!DOCTYPE x [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p.dtd"> %p;]>${genuine}`,
      'billion laughs': () => {
        const levels = ['<!ENTITY lol "lol">'];
        for (let i = 1; i <= 9; i++) levels.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
        return `<?xml version="1.0"?><!DOCTYPE lolz [${levels.join('')}]>${once(genuine, 'resCode="r1"', 'resCode="&lol9;"')}`;
      },
      'lower-case doctype': () => `<!doctype EsignResp [<!ENTITY e "x">]>${genuine}`,
      'undeclared entity reference': () => once(genuine, 'resCode="r1"', 'resCode="&e;"'),
      'entity declaration without a DOCTYPE': () => `<!ENTITY e "x">${genuine}`,
    };
    it.each(Object.keys(variants))('refuses %s', (name) => {
      expectRefused(variants[name](), /^ESP signature invalid: (DOCTYPE|malformed XML)/);
    });
  });

  describe('signature wrapping', () => {
    const variants: Record<string, () => string> = {
      'a second EsignResp inside the signed one': () =>
        once(genuine, '<Signatures>', `<Signatures>${withoutSignature(espSign(forgedUnsigned))}`),
      'a second EsignResp in a ds:Object of the genuine signature': () =>
        once(genuine, '</KeyInfo>', `</KeyInfo><Object>${forgedUnsigned}</Object>`),
      'a second EsignResp after the root (two document elements)': () => `${genuine}${forgedUnsigned}`,
      'the signed element moved under ds:Object, a forged one in its place': () => {
        const signature = signatureOf(genuine);
        const moved = signature.replace('</Signature>', `<Object>${withoutSignature(genuine)}</Object></Signature>`);
        return forgedUnsigned.replace('</EsignResp>', `${moved}</EsignResp>`);
      },
      'the signed element moved under an extension element': () =>
        forgedUnsigned.replace(
          '</EsignResp>',
          `<Extension>${withoutSignature(genuine)}</Extension>${signatureOf(genuine)}</EsignResp>`,
        ),
      'the genuine answer wrapped in a forged root': () =>
        forgedUnsigned.replace('</EsignResp>', `${genuine}</EsignResp>`),
      'a signature by Id (URI="#…") over a moved element, a forged one in its place': () => {
        const byId = signById(unsigned, '/*', sandbox.esp);
        const id = /<EsignResp [^>]*Id="([^"]+)"/.exec(byId)![1];
        const signature = signatureOf(byId);
        const moved = signature.replace('</Signature>', `<Object>${withoutSignature(byId)}</Object></Signature>`);
        return forgedUnsigned
          .replace('<EsignResp ', `<EsignResp Id="${id}" `)
          .replace('</EsignResp>', `${moved}</EsignResp>`);
      },
      'a Reference URI pointing at another Id (the Signatures element only)': () => {
        const partial = signById(
          forgedUnsigned.replace(/txn="[^"]+"/, 'txn="another"'),
          "//*[local-name(.)='Signatures']",
          sandbox.esp,
        );
        return once(partial, 'txn="another"', `txn="${txn}"`);
      },
      'duplicate Ids: the referenced Id on the forged root and on the moved genuine element': () => {
        const byId = signById(unsigned, '/*', sandbox.esp);
        const id = /<EsignResp [^>]*Id="([^"]+)"/.exec(byId)![1];
        return forgedUnsigned
          .replace('<EsignResp ', `<EsignResp Id="${id}" `)
          .replace('</EsignResp>', `<Extension>${withoutSignature(byId)}</Extension>${signatureOf(byId)}</EsignResp>`);
      },
      'a signature over another answer (for another txn) transplanted': () => {
        const other = espSign(unsigned.replace(/txn="[^"]+"/, 'txn="00000000-0000-4000-8000-000000000000"'));
        return forgedUnsigned.replace('</EsignResp>', `${signatureOf(other)}</EsignResp>`);
      },
      'a signature over a different element (UserX509Certificate) than the one read': () =>
        signById(forgedUnsigned, "//*[local-name(.)='UserX509Certificate']", sandbox.esp),
      'the Signature nested deeper than the root': () =>
        once(genuine, /(<Signature[\s>][\s\S]*<\/Signature>)/, '<Wrapper>$1</Wrapper>'),
      'two Signatures (the genuine one and a forger’s)': () =>
        once(
          genuine,
          '</EsignResp>',
          `${signatureOf(signEnveloped(forgedUnsigned, attacker.keyPem, attacker.certPem))}</EsignResp>`,
        ),
      'a comment inside the signed CMS value': () =>
        genuine.replace(/(<DocSignature [^>]*>)([A-Za-z0-9+/]{20})/, '$1$2<!-- x -->'),
      'a comment inside the signed user certificate': () =>
        genuine.replace(/(<UserX509Certificate>[A-Za-z0-9+/]{20})/, '$1<!---->'),
      'a comment and a processing instruction between signed elements': () =>
        once(genuine, '<Signatures>', '<!--forged--><?x y?><Signatures>'),
      "another key, with that key's certificate in KeyInfo": () =>
        signEnveloped(forgedUnsigned, attacker.keyPem, attacker.certPem),
      "the ESP's signature with another certificate put in KeyInfo": () =>
        once(
          genuine,
          /<X509Certificate>[^<]+<\/X509Certificate>/,
          `<X509Certificate>${b64(attacker.certPem)}</X509Certificate>`,
        ),
      "an unrelated certificate added to KeyInfo after the ESP's": () =>
        once(
          genuine,
          /(<X509Certificate>[^<]+<\/X509Certificate>)/,
          `$1<X509Certificate>${b64(attacker.certPem)}</X509Certificate>`,
        ),
      'the signature value of the genuine answer on the forged one': () =>
        forgedUnsigned.replace('</EsignResp>', `${signatureOf(genuine)}</EsignResp>`),
      unsigned: () => forgedUnsigned,
      'a CDATA section changing a signed value': () =>
        once(genuine, /<DocSignature ([^>]*)>/, '<DocSignature $1><![CDATA[AAAA]]>'),
    };
    it.each(Object.keys(variants))('refuses %s', (name) => {
      expectRefused(variants[name](), /^(ESP signature invalid|malformed response)/);
    });
  });

  it('answers refused variants through HTTP with the failed page (303), never a 500, and embeds nothing', async () => {
    const attacks: ((a: Awaited<ReturnType<typeof pendingAnswers>>) => string)[] = [
      (a) =>
        `<!DOCTYPE EsignResp [<!ENTITY e SYSTEM "file:///etc/passwd">]>${once(a.genuine, 'resCode="r1"', 'resCode="&e;"')}`,
      (a) => a.forgedUnsigned.replace('</EsignResp>', `${signatureOf(a.genuine)}</EsignResp>`),
      (a) => once(a.genuine, '</KeyInfo>', `</KeyInfo><Object>${a.forgedUnsigned}</Object>`),
      (a) =>
        once(
          a.genuine,
          /<X509Certificate>[^<]+<\/X509Certificate>/,
          `<X509Certificate>${b64(attacker.certPem)}</X509Certificate>`,
        ),
    ];
    let answers = { txn, unsigned, genuine, forgedUnsigned };
    for (const attack of attacks) {
      const done = await t.http
        .post(`/v1/aadhaar/response/acme/${requestId}`)
        .type('form')
        .send({ msg: attack(answers) })
        .expect(303);
      expect(done.headers.location).toBe(
        `/failed/acme/${requestId}?errorCode=ESP_RESPONSE_INVALID&errorMessage=${encodeURIComponent(INVALID).replace(
          /%20/g,
          '+',
        )}`,
      );
      expect((await requestRow(t, refId)).signedFileKey).toBeNull();
      expect((await partyRow(t, refId, 1)).status).toBe('signing');
      // The refusal ended that transaction: the next attack gets a new one.
      answers = await pendingAnswers();
    }
    // The genuine answer of the last attempt is still accepted: the refusals above were about the XML only.
    const ok = await t.http
      .post(`/v1/aadhaar/response/acme/${requestId}`)
      .type('form')
      .send({ msg: answers.genuine })
      .expect(303);
    expect(ok.headers.location).toBe(`/success/acme/${requestId}`);
  });
});
