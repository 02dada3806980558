import 'reflect-metadata';
import { createHash, randomBytes, verify as cryptoVerify, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { type Element } from '@xmldom/xmldom';
import {
  buildEsignRequest,
  buildEsignResponse,
  C14N,
  DSIG_NS,
  ENVELOPED_SIGNATURE,
  formatIndianTimestamp,
  isValidAadhaar,
  parseEsignRequest,
  parseEsignResponse,
  parseIndianTimestamp,
  parseXmlStrict,
  RSA_SHA256,
  SHA256_DIGEST,
  signEnveloped,
  verhoeffCheckDigit,
  verifyEnveloped,
  type ParseEsignRequestOptions,
} from './index';

x509.cryptoProvider.set(webcrypto);

interface Identity {
  keyPem: string;
  certPem: string;
  certDer: Uint8Array;
}

async function makeIdentity(cn: string): Promise<Identity> {
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '4'),
    name: `CN=${cn}`,
    notBefore: new Date('2024-01-01T00:00:00Z'),
    notAfter: new Date('2034-01-01T00:00:00Z'),
    keys,
    signingAlgorithm: alg,
  });
  const keyPem = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { keyPem, certPem: cert.toString('pem'), certDer: new Uint8Array(cert.rawData) };
}

const NOW = new Date('2025-01-15T06:30:00Z'); // 12:00:00 in India
const ASP_ID = 'ASP001';
const HASH = 'A3'.repeat(32);

let asp: Identity;
let other: Identity;
let esp: Identity;
let user: Identity;

beforeAll(async () => {
  [asp, other, esp, user] = await Promise.all(['ASP', 'Attacker', 'ESP', 'Signer'].map(makeIdentity));
});

function unsignedRequest(overrides: Partial<Parameters<typeof buildEsignRequest>[0]> = {}): string {
  return buildEsignRequest({
    aspId: ASP_ID,
    txn: 'txn-0001',
    ts: NOW,
    responseUrl: 'https://asp.example/esign/response?x=1&y=2',
    docInfo: 'Loan "agreement" <v2> & annex',
    hashHex: HASH,
    ...overrides,
  });
}

const signByAsp = (xml: string): string => signEnveloped(xml, asp.keyPem, asp.certPem);

function espOptions(overrides: Partial<ParseEsignRequestOptions> = {}): ParseEsignRequestOptions {
  return {
    now: NOW,
    isKnownAspId: (id) => id === ASP_ID || id === 'ASP-NO-CERT',
    aspCertificate: (id) => (id === ASP_ID ? asp.certPem : undefined),
    ...overrides,
  };
}

/** Signs a request after changing its unsigned XML: the way to produce a request the builder refuses to make. */
function signedWith(replace: [string | RegExp, string][]): string {
  let xml = unsignedRequest();
  for (const [from, to] of replace) {
    const changed = xml.replace(from, to);
    expect(changed).not.toBe(xml);
    xml = changed;
  }
  return signByAsp(xml);
}

function expectCode(xml: string, code: string, options = espOptions()): string {
  const result = parseEsignRequest(xml, options);
  if (result.ok) throw new Error(`expected ${code}, got a valid request`);
  expect(result.errCode).toBe(code);
  return result.errMsg;
}

const digestOf = (canonical: string): string => createHash('sha256').update(canonical, 'utf8').digest('base64');

describe('XML-DSig (enveloped)', () => {
  it('writes the eSign profile: Signature last child of the root, URI="", both transforms, SHA-256, RSA-SHA256, X509Certificate', () => {
    const signed = signByAsp(unsignedRequest());
    const root = parseXmlStrict(signed).documentElement!;
    const signature = root.lastChild as unknown as Element;
    expect(signature.localName).toBe('Signature');
    expect(signature.namespaceURI).toBe(DSIG_NS);
    const byName = (name: string) => Array.from(signature.getElementsByTagNameNS(DSIG_NS, name));
    expect(byName('CanonicalizationMethod')[0].getAttribute('Algorithm')).toBe(C14N);
    expect(byName('SignatureMethod')[0].getAttribute('Algorithm')).toBe(RSA_SHA256);
    expect(byName('Reference')).toHaveLength(1);
    expect(byName('Reference')[0].getAttribute('URI')).toBe('');
    expect(byName('Transform').map((t) => t.getAttribute('Algorithm'))).toEqual([ENVELOPED_SIGNATURE, C14N]);
    expect(byName('DigestMethod')[0].getAttribute('Algorithm')).toBe(SHA256_DIGEST);
    const embedded = Buffer.from(byName('X509Certificate')[0].textContent ?? '', 'base64');
    expect(embedded.equals(Buffer.from(asp.certDer))).toBe(true);
    // The root itself is untouched: no Id attribute added.
    expect(root.hasAttribute('Id')).toBe(false);
  });

  it('is independently checkable: hand-canonicalised digest and SignedInfo verified with node crypto', () => {
    // Unsorted attributes, escapes that C14N rewrites, and an empty element written short.
    const input =
      '<Root zeta="1" Alpha="t&#9;ab" beta="a&gt;b&quot;&amp;"><Empty/><Text>x &gt; y &amp; z</Text></Root>';
    // Expected by C14N 1.0 rules by hand: attributes sorted by code point (uppercase first), '>' not escaped in
    // attributes, tab as &#x9;, empty element as start/end tag pair, '>' escaped in text.
    const canonical =
      '<Root Alpha="t&#x9;ab" beta="a>b&quot;&amp;" zeta="1"><Empty></Empty><Text>x &gt; y &amp; z</Text></Root>';
    const signed = signEnveloped(input, esp.keyPem, esp.certPem);

    const digestValue = /<DigestValue>([^<]+)<\/DigestValue>/.exec(signed)![1];
    expect(digestValue).toBe(digestOf(canonical));

    const signedInfo = /<SignedInfo>[\s\S]*<\/SignedInfo>/.exec(signed)![0];
    const canonicalSignedInfo = signedInfo
      .replace('<SignedInfo>', `<SignedInfo xmlns="${DSIG_NS}">`) // inherited from Signature
      .replace(/<(\w+)((?:\s+\w+="[^"]*")*)\/>/g, '<$1$2></$1>');
    const signatureValue = Buffer.from(/<SignatureValue>([^<]+)<\/SignatureValue>/.exec(signed)![1], 'base64');
    const publicKey = new X509Certificate(esp.certPem).publicKey;
    expect(cryptoVerify('sha256', Buffer.from(canonicalSignedInfo), publicKey, signatureValue)).toBe(true);
    expect(cryptoVerify('sha256', Buffer.from(canonicalSignedInfo + ' '), publicKey, signatureValue)).toBe(false);

    const verified = verifyEnveloped(signed, esp.certPem);
    expect(verified).toEqual({ ok: true, signedXml: canonical });
  });

  it('verifies with the trusted certificate only, never the one in KeyInfo', () => {
    const byAttacker = signEnveloped(unsignedRequest(), other.keyPem, other.certPem);
    expect(verifyEnveloped(byAttacker, other.certPem).ok).toBe(true);
    const result = verifyEnveloped(byAttacker, asp.certPem);
    expect(result).toEqual({ ok: false, reason: 'the signature value is not valid for the trusted certificate' });
    // Attacker's signature, with the legitimate certificate pasted into KeyInfo.
    const aspB64 = Buffer.from(asp.certDer).toString('base64');
    const pasted = byAttacker.replace(/<X509Certificate>[^<]+</, `<X509Certificate>${aspB64}<`);
    expect(verifyEnveloped(pasted, asp.certPem).ok).toBe(false);
  });

  it('refuses unsigned, doubly signed and nested signatures, other references and profiles', () => {
    const signed = signByAsp(unsignedRequest());
    const signature = /<Signature [\s\S]*<\/Signature>/.exec(signed)![0];
    const reason = (xml: string) => {
      const result = verifyEnveloped(xml, asp.certPem);
      return result.ok ? 'ok' : result.reason;
    };
    expect(reason(unsignedRequest())).toMatch(/not signed/);
    expect(reason(signed.replace('</Esign>', `${signature}</Esign>`))).toMatch(/more than one Signature/);
    expect(reason(signed.replace(signature, '').replace('</Docs>', `${signature}</Docs>`))).toMatch(/not a child/);
    expect(reason(signed.replace('URI=""', 'URI="#x"'))).toMatch(/URI=""/);
    expect(reason(signed.replace('URI=""', ''))).toMatch(/URI=""/);
    expect(
      reason(signed.replace(`${C14N}"/></Transforms>`, 'http://www.w3.org/2001/10/xml-exc-c14n#"/></Transforms>')),
    ).toMatch(/transforms/);
    expect(reason(signed.replace(RSA_SHA256, 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'))).toMatch(
      /signature method/,
    );
    expect(reason(signed.replace(SHA256_DIGEST, 'http://www.w3.org/2000/09/xmldsig#sha1'))).toMatch(/digest method/);
    expect(reason(signed.replace('txn="txn-0001"', 'txn="txn-0002"'))).toMatch(/digest/);
    expect(reason('<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>')).toMatch(/DOCTYPE/);
    expect(reason('<Esign><Docs></Esign>')).toMatch(/malformed/);
    expect(verifyEnveloped(signed, 'not a certificate')).toEqual({
      ok: false,
      reason: 'the trusted certificate cannot be read',
    });
  });

  it('refuses to sign twice or to sign a document with a DTD', () => {
    const signed = signByAsp(unsignedRequest());
    expect(() => signByAsp(signed)).toThrow(/already signed/);
    expect(() => signByAsp('<!DOCTYPE Esign><Esign/>')).toThrow(/DOCTYPE/);
  });
});

describe('eSign request', () => {
  it('builds the 2.1 request with escaped attributes and the ts in Indian time', () => {
    expect(unsignedRequest()).toBe(
      '<Esign ver="2.1" sc="Y" ts="2025-01-15T12:00:00" txn="txn-0001" ekycId="" ekycIdType="A" aspId="ASP001" ' +
        'AuthMode="1" responseSigType="pkcs7" responseUrl="https://asp.example/esign/response?x=1&amp;y=2"><Docs>' +
        '<InputHash id="1" hashAlgorithm="SHA256" docInfo="Loan &quot;agreement&quot; &lt;v2&gt; &amp; annex">' +
        `${HASH.toLowerCase()}</InputHash></Docs></Esign>`,
    );
    expect(() => unsignedRequest({ hashHex: 'abc' })).toThrow(/64 hex/);
    expect(() => unsignedRequest({ aspId: '' })).toThrow(/aspId/);
    expect(() => unsignedRequest({ responseUrl: 'javascript:alert(1)' })).toThrow(/responseUrl/);
    expect(() => unsignedRequest({ docInfo: 'bad \u0001 char' })).toThrow(/characters/);
  });

  it('round trips: sign then parse', () => {
    const result = parseEsignRequest(signByAsp(unsignedRequest({ authMode: '2' })), espOptions());
    expect(result).toEqual({
      ok: true,
      value: {
        ver: '2.1',
        ts: '2025-01-15T12:00:00',
        timestamp: NOW,
        txn: 'txn-0001',
        aspId: ASP_ID,
        authMode: '2',
        ekycId: '',
        ekycIdType: 'A',
        responseSigType: 'pkcs7',
        responseUrl: 'https://asp.example/esign/response?x=1&y=2',
        hashes: [{ id: '1', hashHex: HASH.toLowerCase(), docInfo: 'Loan "agreement" <v2> & annex' }],
      },
    });
  });

  it('round trips several documents and whitespace in attribute values', () => {
    const docs = [
      { id: '1', hashHex: 'a'.repeat(64), docInfo: 'first\tline\nsecond' },
      { id: '2', hashHex: 'b'.repeat(64), docInfo: 'second doc' },
    ];
    const result = parseEsignRequest(signByAsp(unsignedRequest({ docs })), espOptions());
    expect(result.ok && result.value.hashes).toEqual(docs);
  });

  it('911 when the hash or an attribute is changed after signing', () => {
    const signed = signByAsp(unsignedRequest());
    expectCode(signed.replace(HASH.toLowerCase(), 'b'.repeat(64)), '911');
    expectCode(signed.replace('txn="txn-0001"', 'txn="txn-0002"'), '911');
    expectCode(signed.replace('responseUrl="https://asp.example', 'responseUrl="https://evil.example'), '911');
    expectCode(signed.replace('docInfo="Loan', 'docInfo="Lease'), '911');
    expectCode(signed.replace('AuthMode="1"', 'AuthMode="2"'), '911');
    expectCode(
      signed.replace(
        '<Docs>',
        '<Docs><InputHash id="2" hashAlgorithm="SHA256" docInfo="x">' + 'c'.repeat(64) + '</InputHash>',
      ),
      '911',
    );
  });

  it("911 when signed by another key, even with that key's certificate in KeyInfo", () => {
    const msg = expectCode(signEnveloped(unsignedRequest(), other.keyPem, other.certPem), '911');
    expect(msg).toMatch(/not valid for the trusted certificate/);
    expectCode(unsignedRequest(), '911');
  });

  describe('signature wrapping', () => {
    const signature = (xml: string) => /<Signature [\s\S]*<\/Signature>/.exec(xml)![0];
    const evil = unsignedRequest({ hashHex: 'e'.repeat(64), responseUrl: 'https://evil.example/' });

    it('refuses the signed root moved under a new Esign root', () => {
      const signed = signByAsp(unsignedRequest());
      expect(expectCode(evil.replace('</Esign>', `${signed}</Esign>`), '911')).toMatch(
        /not a child of the document element/,
      );
    });

    it('refuses the signature moved onto a forged root that carries the original inside', () => {
      const signed = signByAsp(unsignedRequest());
      const original = signed.replace(signature(signed), '');
      for (const forged of [`${signature(signed)}${original}`, `${original}${signature(signed)}`])
        expect(expectCode(evil.replace('</Esign>', `${forged}</Esign>`), '911')).toMatch(/digest/);
    });

    it('refuses a second Esign element added inside the signed one', () => {
      const signed = signByAsp(unsignedRequest());
      expect(expectCode(signed.replace('<Docs>', `${evil}<Docs>`), '911')).toMatch(/digest/);
      expect(expectCode(signed.replace('</Docs>', `</Docs>${evil}`), '911')).toMatch(/digest/);
    });

    it('refuses another document root around the signed request (992) and a copy of the signature (911)', () => {
      const signed = signByAsp(unsignedRequest());
      expectCode(`<Wrapper>${evil}${signed}</Wrapper>`, '992');
      expect(expectCode(signed.replace('</Esign>', `${signature(signed)}</Esign>`), '911')).toMatch(/more than one/);
    });

    it('reads values from the signed content, so comments injected after signing change nothing', () => {
      const signed = signByAsp(unsignedRequest());
      const hash = HASH.toLowerCase();
      const injected = signed.replace(hash, `${hash.slice(0, 32)}<!-- ${'e'.repeat(64)} -->${hash.slice(32)}`);
      const result = parseEsignRequest(injected, espOptions());
      expect(result.ok && result.value.hashes[0].hashHex).toBe(hash);
    });
  });

  it('992 for a DOCTYPE or entities, malformed XML, or another root element', () => {
    const signed = signByAsp(unsignedRequest());
    expectCode(
      `<!DOCTYPE Esign [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${signed.replace('txn-0001', '&xxe;')}`,
      '992',
    );
    expectCode(`<!DOCTYPE Esign>${signed}`, '992');
    expectCode('<!ENTITY x "y"><Esign/>', '992');
    expectCode(signed.replace('</Docs>', '</Doc>'), '992');
    expectCode(signed.replace('&amp;y=2', '&y=2'), '992');
    expectCode('', '992');
    expectCode('<EsignResp/>', '992');
  });

  it('902 for an empty ASP id, 903 for an unknown one, 922 without a registered certificate', () => {
    expectCode(signedWith([['aspId="ASP001"', 'aspId=""']]), '902');
    expectCode(signedWith([['aspId="ASP001"', 'aspId="  "']]), '902');
    expectCode(signedWith([['aspId="ASP001"', 'aspId="ASP999"']]), '903');
    expectCode(signedWith([['aspId="ASP001"', 'aspId="ASP-NO-CERT"']]), '922');
    // Without the predicate, an ASP without a certificate is unknown.
    const lookupOnly = { now: NOW, aspCertificate: (id: string) => (id === ASP_ID ? asp.certPem : null) };
    expectCode(signedWith([['aspId="ASP001"', 'aspId="ASP-NO-CERT"']]), '903', lookupOnly);
    expect(parseEsignRequest(signByAsp(unsignedRequest()), lookupOnly).ok).toBe(true);
  });

  it('901 for an AuthMode other than 1, 2, 3', () => {
    expectCode(signedWith([['AuthMode="1"', 'AuthMode="4"']]), '901');
    expectCode(signedWith([['AuthMode="1"', 'AuthMode=""']]), '901');
    expectCode(signedWith([[' AuthMode="1"', '']]), '901');
  });

  it('905 for no hash, a hash that is not 64 hex digits, or another algorithm', () => {
    const hash = HASH.toLowerCase();
    expectCode(signedWith([[/<InputHash[^>]*>[0-9a-f]+<\/InputHash>/, '']]), '905');
    expectCode(signedWith([[/<Docs>.*<\/Docs>/, '']]), '905');
    expectCode(signedWith([[hash, hash.slice(1)]]), '905');
    expectCode(signedWith([[hash, `${hash}0`]]), '905');
    expectCode(signedWith([[hash, `${hash.slice(1)}g`]]), '905');
    expectCode(signedWith([[hash, '']]), '905');
    expectCode(signedWith([['hashAlgorithm="SHA256"', 'hashAlgorithm="SHA1"']]), '905');
    expectCode(
      signedWith([[`</InputHash>`, `</InputHash><InputHash id="1" hashAlgorithm="SHA256">${hash}</InputHash>`]]),
      '905',
    );
  });

  it('907 for an empty ts, 908 for an invalid or skewed one', () => {
    expectCode(signedWith([[/ts="[^"]*"/, 'ts=""']]), '907');
    expectCode(signedWith([[/ts="[^"]*"/, 'ts="2025-13-01T00:00:00"']]), '908');
    expectCode(signedWith([[/ts="[^"]*"/, 'ts="2025-02-30T12:00:00"']]), '908');
    expectCode(signedWith([[/ts="[^"]*"/, 'ts="2025-01-15T06:30:00Z"']]), '908');
    expectCode(signedWith([[/ts="[^"]*"/, 'ts="15/01/2025 12:00"']]), '908');
    expect(expectCode(signByAsp(unsignedRequest({ ts: new Date(NOW.getTime() - 31 * 60_000) })), '908')).toMatch(
      /31 minutes/,
    );
    expectCode(signByAsp(unsignedRequest({ ts: new Date(NOW.getTime() + 31 * 60_000) })), '908');
    expect(
      parseEsignRequest(signByAsp(unsignedRequest({ ts: new Date(NOW.getTime() - 29 * 60_000) })), espOptions()).ok,
    ).toBe(true);
    expectCode(
      signByAsp(unsignedRequest({ ts: new Date(NOW.getTime() - 6 * 60_000) })),
      '908',
      espOptions({ maxSkewMs: 5 * 60_000 }),
    );
    // Milliseconds are tolerated.
    expect(parseEsignRequest(signedWith([[/ts="[^"]*"/, 'ts="2025-01-15T12:00:00.250"']]), espOptions()).ok).toBe(true);
  });

  it('909 for an empty txn, 910 for a duplicate', () => {
    expectCode(signedWith([['txn="txn-0001"', 'txn=""']]), '909');
    expectCode(
      signByAsp(unsignedRequest()),
      '910',
      espOptions({ isDuplicateTxn: (id, txn) => id === ASP_ID && txn === 'txn-0001' }),
    );
  });
});

describe('eSign response', () => {
  const cms1 = randomBytes(300);
  const cms2 = randomBytes(310);

  const success = () =>
    buildEsignResponse({
      status: '1',
      ts: NOW,
      txn: 'txn-0001',
      resCode: 'ESP-RES-42',
      userCertificateDer: user.certDer,
      signatures: [
        { id: '1', cmsDer: cms1 },
        { id: '2', cmsDer: cms2 },
      ],
    });
  const signByEsp = (xml: string) => signEnveloped(xml, esp.keyPem, esp.certPem);

  it('builds the EsignResp structure', () => {
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    expect(success()).toBe(
      '<EsignResp status="1" ts="2025-01-15T12:00:00" txn="txn-0001" resCode="ESP-RES-42" errCode="NA" errMsg="NA">' +
        `<UserX509Certificate>${b64(user.certDer)}</UserX509Certificate><Signatures>` +
        `<DocSignature id="1" sigHashAlgorithm="SHA256" error="">${b64(cms1)}</DocSignature>` +
        `<DocSignature id="2" sigHashAlgorithm="SHA256" error="">${b64(cms2)}</DocSignature></Signatures></EsignResp>`,
    );
    expect(() => buildEsignResponse({ status: '0', ts: NOW, txn: 't', resCode: 'r' })).toThrow(/errCode/);
    expect(() => buildEsignResponse({ status: '1', ts: NOW, txn: 't', resCode: 'r' })).toThrow(/success/);
  });

  it('round trips a success', () => {
    const result = parseEsignResponse(signByEsp(success()), esp.certPem, { txn: 'txn-0001' });
    if (!result.ok) throw new Error(result.reason);
    expect(result.value).toEqual({
      status: '1',
      txn: 'txn-0001',
      ts: '2025-01-15T12:00:00',
      resCode: 'ESP-RES-42',
      errCode: null,
      errMsg: null,
      userCertificateDer: Buffer.from(user.certDer),
      signatures: [
        { id: '1', sigHashAlgorithm: 'SHA256', error: null, cmsDer: cms1 },
        { id: '2', sigHashAlgorithm: 'SHA256', error: null, cmsDer: cms2 },
      ],
    });
  });

  it('round trips a failure with its errCode and a pending status', () => {
    const failure = buildEsignResponse({
      status: '0',
      ts: NOW,
      txn: 'txn-0001',
      resCode: 'ESP-RES-43',
      errCode: '944',
      errMsg: 'User cancelled "eSign" & left',
    });
    const result = parseEsignResponse(signByEsp(failure), esp.certPem, { txn: 'txn-0001' });
    expect(result).toEqual({
      ok: true,
      value: {
        status: '0',
        txn: 'txn-0001',
        ts: '2025-01-15T12:00:00',
        resCode: 'ESP-RES-43',
        errCode: '944',
        errMsg: 'User cancelled "eSign" & left',
        userCertificateDer: null,
        signatures: [],
      },
    });
    const pending = buildEsignResponse({ status: '2', ts: NOW, txn: 'txn-0001', resCode: 'R' });
    const parsed = parseEsignResponse(signByEsp(pending), esp.certPem, { txn: 'txn-0001' });
    expect(parsed.ok && parsed.value.status).toBe('2');
  });

  it('refuses the wrong txn', () => {
    const result = parseEsignResponse(signByEsp(success()), esp.certPem, { txn: 'txn-0002' });
    expect(result).toEqual({ ok: false, reason: 'the response is for txn "txn-0001", not "txn-0002"' });
  });

  it('refuses a bad signature: another key, tampering, unsigned', () => {
    const refused = (xml: string) => {
      const result = parseEsignResponse(xml, esp.certPem, { txn: 'txn-0001' });
      return result.ok ? 'ok' : result.reason;
    };
    expect(refused(signEnveloped(success(), other.keyPem, other.certPem))).toMatch(/^ESP signature invalid/);
    const signed = signByEsp(success());
    expect(refused(signed.replace('status="1"', 'status="0"'))).toMatch(/^ESP signature invalid/);
    expect(refused(signed.replace(Buffer.from(cms1).toString('base64'), Buffer.from(cms2).toString('base64')))).toMatch(
      /^ESP signature invalid/,
    );
    expect(refused(success())).toMatch(/not signed/);
    expect(refused(`<!DOCTYPE EsignResp [<!ENTITY a "b">]>${signed}`)).toMatch(/DOCTYPE/);
  });

  it('refuses malformed responses even when properly signed', () => {
    const refused = (xml: string) => {
      const result = parseEsignResponse(signByEsp(xml), esp.certPem, { txn: 'txn-0001' });
      return result.ok ? 'ok' : result.reason;
    };
    const ok = success();
    expect(refused(ok.replace('status="1"', 'status="3"'))).toMatch(/status/);
    expect(refused(ok.replace('status="1"', 'status="0"'))).toMatch(/failure without errCode/);
    expect(refused(ok.replace(/<UserX509Certificate>.*<\/UserX509Certificate>/, ''))).toMatch(
      /without UserX509Certificate/,
    );
    expect(
      refused(
        ok.replace(/<UserX509Certificate>.*<\/UserX509Certificate>/, '<UserX509Certificate>AAAA</UserX509Certificate>'),
      ),
    ).toMatch(/not a certificate/);
    expect(refused(ok.replace(/<Signatures>.*<\/Signatures>/, ''))).toMatch(/signature for every document/);
    expect(refused(ok.replace(/(<DocSignature id="1"[^>]*>)[^<]+/, '$1!!!'))).toMatch(/not base64/);
    expect(refused(ok.replace(/(<DocSignature id="1"[^>]*>)[^<]+/, '$1'))).toMatch(/is empty/);
    expect(refused(ok.replace('id="2"', 'id="1"'))).toMatch(/unique/);
    expect(
      refused(ok.replace('id="2" sigHashAlgorithm="SHA256" error=""', 'id="2" sigHashAlgorithm="SHA256" error="E1"')),
    ).toMatch(/signature for every document/);
    expect(refused('<Esign txn="txn-0001"/>')).toMatch(/must be EsignResp/);
  });
});

describe('IST timestamps', () => {
  it('formats and reads Indian time without a zone', () => {
    expect(formatIndianTimestamp(new Date('2024-12-31T18:30:00Z'))).toBe('2025-01-01T00:00:00');
    expect(parseIndianTimestamp('2025-01-01T00:00:00')).toEqual(new Date('2024-12-31T18:30:00Z'));
    expect(parseIndianTimestamp('2024-02-29T10:00:00')).not.toBeNull();
    expect(parseIndianTimestamp('2023-02-29T10:00:00')).toBeNull();
    expect(parseIndianTimestamp('2025-01-01T24:00:00')).toBeNull();
  });
});

describe('Aadhaar number (Verhoeff)', () => {
  it('computes published Verhoeff check digits', () => {
    // Wikipedia "Verhoeff algorithm": 236 -> 3, 12345 -> 1, 142857 -> 0.
    expect(verhoeffCheckDigit('236')).toBe('3');
    expect(verhoeffCheckDigit('12345')).toBe('1');
    expect(verhoeffCheckDigit('142857')).toBe('0');
    expect(() => verhoeffCheckDigit('12a')).toThrow();
  });

  it('accepts valid numbers: UIDAI test residents and computed ones', () => {
    // UIDAI's published pre-production test Aadhaar numbers.
    for (const number of ['999999990019', '999999990026', '999941057058']) expect(isValidAadhaar(number)).toBe(true);
    for (const base of ['23412341234', '49911866524', '80000000000', '29999999999']) {
      const number = base + verhoeffCheckDigit(base);
      expect(isValidAadhaar(number)).toBe(true);
    }
    expect(isValidAadhaar('234123412346')).toBe(true);
  });

  it('rejects wrong lengths, a leading 0 or 1, non-digits, any single changed digit and any adjacent transposition', () => {
    const valid = '234123412346';
    expect(isValidAadhaar(valid.slice(1))).toBe(false);
    expect(isValidAadhaar(`${valid}0`)).toBe(false);
    const eleven = '2341234123';
    expect(isValidAadhaar(eleven + verhoeffCheckDigit(eleven))).toBe(false);
    const thirteen = '234123412341';
    expect(isValidAadhaar(thirteen + verhoeffCheckDigit(thirteen))).toBe(false);
    for (const first of ['0', '1']) {
      const base = `${first}3412341234`;
      expect(isValidAadhaar(base + verhoeffCheckDigit(base))).toBe(false);
    }
    expect(isValidAadhaar('2341 2341 2346')).toBe(false);
    expect(isValidAadhaar('23412341234a')).toBe(false);
    expect(isValidAadhaar('')).toBe(false);

    for (let i = 0; i < valid.length; i++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === valid[i]) continue;
        const flipped = valid.slice(0, i) + d + valid.slice(i + 1);
        expect(isValidAadhaar(flipped)).toBe(false);
      }
    }
    for (let i = 0; i + 1 < valid.length; i++) {
      if (valid[i] === valid[i + 1]) continue;
      const swapped = valid.slice(0, i) + valid[i + 1] + valid[i] + valid.slice(i + 2);
      expect(isValidAadhaar(swapped)).toBe(false);
    }
  });
});
