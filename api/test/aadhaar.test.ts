import { SigningMethod } from '@esign/contract';
import { DOMParser } from '@xmldom/xmldom';
import { EsignTransactionEntity } from '../src/modules/aadhaar/esign-transaction.entity';
import { EspKeys } from '../src/modules/aadhaar/esp-keys.service';
import { buildEsignResponse, signEnveloped, verhoeffCheckDigit } from '../src/modules/aadhaar/protocol';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { generateCa, issueRsaLeaf } from '../src/modules/signing/pki/certificates';
import { signDigestCms } from '../src/modules/signing/pdf/external';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { runPdfVerifyAsync } from './support/pdf-verify';
import { drain, partyRow, requestRow, sendForSigning, signAs, signedPdf, tokensOf, verifyPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';
import { signAadhaar } from './support/methods';
import { ExternalMessages, SealService } from '../src/modules/requests/seal.service';
import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';

/** A valid Aadhaar number (Verhoeff check digit), not a real one. */
const AADHAAR = (() => {
  const body = '23456789012';
  return body + verhoeffCheckDigit(body);
})();

const ASHA = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '+91 98765 43210' };
const VIKRAM = { name: 'Vikram Shah', email: 'vikram@example.in', phoneNumber: '9123456789' };

/** The hidden form fields of an HTML page (the sandbox's auto-post page). */
function formOf(html: string): { action: string; fields: Record<string, string> } {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const form = doc.getElementsByTagName('form')[0];
  const fields: Record<string, string> = {};
  const inputs = form.getElementsByTagName('input');
  for (let i = 0; i < inputs.length; i++)
    fields[inputs[i].getAttribute('name') ?? ''] = inputs[i].getAttribute('value') ?? '';
  return { action: form.getAttribute('action') ?? '', fields };
}

const pathOf = (url: string) => new URL(url).pathname;
const sessionAction = (html: string) =>
  /action="([^"]+\/esp-sandbox\/session\/[A-Za-z0-9_-]{43})\/aadhaar"/.exec(html)?.[1];

async function latestEspOtp(t: TestApp, phone: string): Promise<string> {
  const msg = await t.db
    .getRepository(OutboxMessageEntity)
    .findOne({ where: { kind: 'esp-otp' }, order: { id: 'DESC' } });
  expect(msg?.to.replace(/\D/g, '').endsWith(phone.replace(/\D/g, '').slice(-10))).toBe(true);
  return /\b(\d{6})\b/.exec(msg?.text ?? '')![1];
}

describe('Aadhaar eSign through the built-in sandbox ESP (CCA eSign API v2.1)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  /** One Aadhaar signer (and optionally an e-Signature one), opened and accepted; answers what init?method=0 gave. */
  async function startAadhaar(signers = [ASHA]) {
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      {
        fixture: 'us_constitution.pdf',
        otpRequired: false,
        recipients: signers.map((s, i) => ({
          ...s,
          observer: false,
          signature_type: i === 0 ? 'Aadhaar' : 'e-Signature',
        })),
      },
      signers.map((_, i) => ({ order: i + 1, pageNo: [1] })),
    );
    const h = { 'x-sign-token': tokens[1] };
    const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
    const requestId = ref.body.request.requestId as string;
    await t.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'opened' }).expect(200);
    await t.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'signing' }).expect(200);
    const init = await t.http.get(`/v1/init/acme/${requestId}?method=0`).set(h).expect(200);
    return {
      refId,
      tokens,
      h,
      requestId,
      init: init.body as { esp_url: string; fields: { msg: string }; method: number },
    };
  }

  /** Through the sandbox's pages as the browser would: the request, consent + Aadhaar + name, the OTP. */
  async function throughSandbox(msg: string, name: string, otp?: (real: string) => string[]) {
    const page = await t.http.post('/esp-sandbox/esign').type('form').send({ msg }).expect(200);
    const action = sessionAction(page.text);
    expect(action).toBeTruthy();
    const sent = await t.http
      .post(`${pathOf(action!)}/aadhaar`)
      .type('form')
      .send({ consent: 'yes', aadhaar: AADHAAR, name })
      .expect(200);
    expect(sent.text).toContain('Enter the OTP');
    const real = await latestEspOtp(t, ASHA.phoneNumber);
    let last = sent;
    for (const code of otp ? otp(real) : [real]) {
      last = await t.http
        .post(`${pathOf(action!)}/otp`)
        .type('form')
        .send({ otp: code });
    }
    return last;
  }

  it("signs with the signer's own certificate: the form, Aadhaar number, consent, the OTP, the answer embedded", async () => {
    // The ESP's certificate lives 30 minutes, as real ones do, and pdfsig checks it at the real time: the test's clock
    // is brought to now so the certificate is still valid when the PDF is checked below.
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
    const { refId, h, requestId, init } = await startAadhaar([ASHA, VIKRAM]);
    expect(init.method).toBe(SigningMethod.Aadhaar);
    expect(init.esp_url).toMatch(/\/esp-sandbox\/esign$/);
    expect(init.fields.msg).toMatch(
      /^<Esign ver="2\.1" sc="Y" ts="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d" txn="[0-9a-f-]{36}"/,
    );
    expect(init.fields.msg).toContain('<InputHash id="1" hashAlgorithm="SHA256"');
    expect(init.fields.msg).toContain('SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"');

    const answer = await throughSandbox(init.fields.msg, ASHA.name);
    expect(answer.status).toBe(200);
    const back = formOf(answer.text);
    expect(pathOf(back.action)).toBe(`/v1/aadhaar/response/acme/${requestId}`);
    expect(back.fields.msg).toMatch(/^<EsignResp [^>]*status="1"/);
    const done = await t.http.post(pathOf(back.action)).type('form').send(back.fields).expect(303);
    expect(done.headers.location).toBe(`/success/acme/${requestId}`);
    // The ESP's signature is the party's submission; the seal job timestamps and embeds it.
    expect((await partyRow(t, refId, 1)).signatureSubmittedAt).not.toBeNull();
    await drain(t);

    const party = await partyRow(t, refId, 1);
    expect(party.status).toBe('completed');
    expect(party.signMethod).toBe(SigningMethod.Aadhaar);
    expect(party.signCertificate?.subject).toContain('CN=Asha Rao');
    await t.http.get(`/v1/aadhaar_discrepancy_check/${requestId}`).set(h).expect(200);
    const status = await t.http.get(`/v1/request/acme/${requestId}`).set(h).expect(200);
    expect(status.body).toMatchObject({ status: 'completed', signed: true, signature_type: 0 });

    // The second signer signs electronically; the seal completes the request.
    const links = await tokensOf(t, key, 'acme', refId);
    await signAs(t, { orgId: 'acme', refId, order: 2, token: links[2], email: VIKRAM.email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
    const pdf = await signedPdf(t, refId);
    // Trusting only the development CA: Asha's signature is valid but its issuer (the sandbox ESP's CA) is not trusted.
    const devOnly = await verifyPdf(t, pdf);
    expect(devOnly.signatures.map((s) => s.signer)).toEqual(['Asha Rao', 'Vikram Shah', 'Org acme Document Seal']);
    expect(devOnly.archives.map((s) => s.signer)).toEqual(['e-Sign Development Timestamp Authority']);
    expect(devOnly.signatures[0]).toMatchObject({ valid: true, trusted: false });
    // Trusting the sandbox CA too: all three valid and trusted, qpdf clean.
    const sandbox = await t.app.get(EspKeys).sandbox();
    const root = await t.app.get(SealPkiService).rootCertificatePem();
    // (The development root first: pdf-verify checks the archive timestamp, by the built-in TSA, against it.)
    const both = await runPdfVerifyAsync(pdf, [root, sandbox.ca.certPem]);
    expect(both.signatures.map((s) => [s.signer, s.valid, s.trusted])).toEqual([
      ['Asha Rao', true, true],
      ['Vikram Shah', true, true],
      ['Org acme Document Seal', true, true],
    ]);
    expect(both.archives.map((s) => s.signer)).toEqual(['e-Sign Development Timestamp Authority']);
    expect(both.ok).toBe(true);
  });

  it("an Aadhaar signature over a document another signer's signature changed first is discarded: the party signs again", async () => {
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      {
        fixture: 'us_constitution.pdf',
        otpRequired: false,
        recipients: [
          { ...VIKRAM, observer: false, signature_type: 'e-Signature' },
          { ...ASHA, observer: false, signature_type: 'Aadhaar' },
        ],
      },
      [
        { order: 1, pageNo: [1] },
        { order: 2, pageNo: [1] },
      ],
    );
    // Vikram's signature is submitted and waits for the seal job; Asha's eSign is made on the document as it is now
    // (without his), and answered before the job runs: his is applied first, so hers covers a document that is gone.
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: VIKRAM.email });
    t.clock.advance(1);
    await signAadhaar(t, { orgId: 'acme', refId, order: 2, token: tokens[2], name: ASHA.name });
    expect((await partyRow(t, refId, 2)).signatureSubmittedAt).not.toBeNull();
    // The seal's round reports a discarded signature as discarded, never as applied.
    const outcome = await t.app.get(SealService).reseal(String(refId));
    expect(outcome).toMatchObject({ applied: 1, completed: false });

    expect((await partyRow(t, refId, 1)).status).toBe('completed');
    const asha = await partyRow(t, refId, 2);
    expect(asha).toMatchObject({
      status: 'failed',
      lastErrorCode: 'DOCUMENT_CHANGED',
      lastErrorMessage: ExternalMessages.documentChanged,
      signatureSubmittedAt: null,
    });
    const trail = await t.db.getRepository(AuditEventEntity).findBy({ refId, type: 'party.signature_discarded' });
    expect(trail).toHaveLength(1);
    expect((await requestRow(t, refId)).status).toBe('in-progress');

    // 'Retry Signing', then she signs again on the document with his signature: the request completes, all valid.
    const h = { 'x-sign-token': tokens[2] };
    const requestId = (await t.http.get(`/v1/reference/acme/${refId}/2`).set(h).expect(200)).body.request.requestId;
    await t.http.get(`/v1/retry/acme/${requestId}`).set(h).expect(200);
    expect((await partyRow(t, refId, 2)).status).toBe('signing');
    await signAadhaar(t, { orgId: 'acme', refId, order: 2, token: tokens[2], name: ASHA.name });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
    const sandbox = await t.app.get(EspKeys).sandbox();
    const root = await t.app.get(SealPkiService).rootCertificatePem();
    const verified = await runPdfVerifyAsync(await signedPdf(t, refId), [root, sandbox.ca.certPem]);
    expect(verified.signatures.map((s) => [s.signer, s.valid, s.trusted])).toEqual([
      ['Vikram Shah', true, true],
      ['Asha Rao', true, true],
      ['Org acme Document Seal', true, true],
    ]);
    expect(verified.ok).toBe(true);
  });

  it('cancels after three wrong OTPs: the ASP gets error 944, nothing is signed, the failed page has the reason', async () => {
    const { refId, requestId, init } = await startAadhaar();
    const wrong = (real: string) => [1, 2, 3].map((n) => String((Number(real) + n) % 1_000_000).padStart(6, '0'));
    const answer = await throughSandbox(init.fields.msg, ASHA.name, wrong);
    const back = formOf(answer.text);
    expect(back.fields.msg).toMatch(/status="0"/);
    expect(back.fields.msg).toContain('errCode="944"');
    const done = await t.http.post(pathOf(back.action)).type('form').send(back.fields).expect(303);
    expect(done.headers.location).toMatch(new RegExp(`^/failed/acme/${requestId}\\?errorCode=944&errorMessage=`));
    const party = await partyRow(t, refId, 1);
    expect(party.status).toBe('signing');
    expect(party.lastErrorCode).toBe('944');
    expect((await requestRow(t, refId)).signedFileKey).toBeNull();
  });

  it('a name that differs is the discrepancy: 400 with the message and return_url, and nothing embedded', async () => {
    const { refId, h, requestId, init } = await startAadhaar();
    const answer = await throughSandbox(init.fields.msg, 'Asha Rani Verma');
    const back = formOf(answer.text);
    const done = await t.http.post(pathOf(back.action)).type('form').send(back.fields).expect(303);
    expect(done.headers.location).toBe(`/success/acme/${requestId}`);
    const check = await t.http.get(`/v1/aadhaar_discrepancy_check/${requestId}`).set(h).expect(400);
    expect(check.body.message).toBe(
      "The name in your Aadhaar eSign certificate (Asha Rani Verma) does not match the signer's name (Asha Rao). The signature was not applied.",
    );
    expect(check.body).toHaveProperty('return_url');
    expect((await partyRow(t, refId, 1)).status).toBe('signing');
    expect((await requestRow(t, refId)).signedFileKey).toBeNull();
  });

  it("refuses a forged or tampered answer (not the ESP's signature, changed after signing) and embeds nothing", async () => {
    const forger = await generateCa({ organisation: 'Forger', commonName: 'Forger CA' }, new Date());
    const forgerSigner = await issueRsaLeaf(forger, { commonName: 'Sandbox ESP' }, new Date(), { years: 1 });
    const sandbox = await t.app.get(EspKeys).sandbox();
    const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    for (const variant of ['forged', 'tampered'] as const) {
      const { refId, requestId } = await startAadhaar();
      const tx = await t.db
        .getRepository(EsignTransactionEntity)
        .findOneByOrFail({ partyId: requestId, status: 'pending' });
      const resident = await issueRsaLeaf(sandbox.ca, { commonName: ASHA.name }, new Date(), { minutes: 30 });
      const xml = buildEsignResponse({
        status: '1',
        ts: new Date(),
        txn: tx.id,
        resCode: 'r1',
        userCertificateDer: der(resident.certPem),
        signatures: [
          {
            id: '1',
            cmsDer: signDigestCms(Buffer.from(tx.digestHex, 'hex'), resident.keyPem, resident.certPem, [
              sandbox.ca.certPem,
            ]),
          },
        ],
      });
      const msg =
        variant === 'forged'
          ? signEnveloped(xml, forgerSigner.keyPem, forgerSigner.certPem)
          : signEnveloped(xml, sandbox.esp.keyPem, sandbox.esp.certPem).replace('resCode="r1"', 'resCode="r2"');
      const done = await t.http.post(`/v1/aadhaar/response/acme/${requestId}`).type('form').send({ msg }).expect(303);
      expect(done.headers.location).toBe(
        `/failed/acme/${requestId}?errorCode=ESP_RESPONSE_INVALID&errorMessage=${encodeURIComponent(
          'The eSign answer could not be verified. Nothing was signed; please try again.',
        ).replace(/%20/g, '+')}`,
      );
      expect((await requestRow(t, refId)).signedFileKey).toBeNull();
      expect((await partyRow(t, refId, 1)).status).toBe('signing');
    }
  });

  it('refuses an answer for another transaction, and one signing another hash', async () => {
    for (const variant of ['txn', 'hash'] as const) {
      const { refId, requestId } = await startAadhaar();
      const tx = await t.db
        .getRepository(EsignTransactionEntity)
        .findOneByOrFail({ partyId: requestId, status: 'pending' });
      const sandbox = await t.app.get(EspKeys).sandbox();
      const resident = await issueRsaLeaf(sandbox.ca, { commonName: ASHA.name }, new Date(), { minutes: 30 });
      const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
      const digest = variant === 'hash' ? 'ab'.repeat(32) : tx.digestHex;
      const xml = buildEsignResponse({
        status: '1',
        ts: new Date(),
        txn: variant === 'txn' ? '00000000-0000-4000-8000-000000000000' : tx.id,
        resCode: 'r1',
        userCertificateDer: der(resident.certPem),
        signatures: [
          {
            id: '1',
            cmsDer: signDigestCms(Buffer.from(digest, 'hex'), resident.keyPem, resident.certPem, [sandbox.ca.certPem]),
          },
        ],
      });
      const done = await t.http
        .post(`/v1/aadhaar/response/acme/${requestId}`)
        .type('form')
        .send({ msg: signEnveloped(xml, sandbox.esp.keyPem, sandbox.esp.certPem) })
        .expect(303);
      expect(done.headers.location).toContain(
        variant === 'hash' ? 'errorCode=HASH_MISMATCH' : 'errorCode=ESP_RESPONSE_INVALID',
      );
      expect((await requestRow(t, refId)).signedFileKey).toBeNull();
      expect((await partyRow(t, refId, 1)).status).toBe('signing');
    }
  });

  it('checks the sandbox page: consent and a valid Aadhaar number are required', async () => {
    const { init } = await startAadhaar();
    const page = await t.http.post('/esp-sandbox/esign').type('form').send({ msg: init.fields.msg }).expect(200);
    const action = pathOf(sessionAction(page.text)!);
    const noConsent = await t.http
      .post(`${action}/aadhaar`)
      .type('form')
      .send({ aadhaar: AADHAAR, name: 'x' })
      .expect(400);
    expect(noConsent.text).toContain('Please give your consent to continue.');
    const bad = AADHAAR.slice(0, 11) + String((Number(AADHAAR[11]) + 1) % 10);
    const invalid = await t.http
      .post(`${action}/aadhaar`)
      .type('form')
      .send({ consent: 'yes', aadhaar: bad, name: 'x' })
      .expect(400);
    expect(invalid.text).toContain('Please enter a valid 12-digit Aadhaar number.');
    // A request not signed by our ASP key.
    const forged = await t.http
      .post('/esp-sandbox/esign')
      .type('form')
      .send({ msg: init.fields.msg.replace('SHA256', 'SHA256 ') })
      .expect(400);
    expect(forged.text).toMatch(/Error 9\d\d/);
    await t.http.post('/esp-sandbox/session/unknown/otp').type('form').send({ otp: '123456' }).expect(404);
  });
});
