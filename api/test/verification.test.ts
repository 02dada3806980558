import { SIGNATURE_LEVELS } from '@esign/contract';
import type { VerificationReport } from '../src/modules/verification/verification.service';
import { SIGNERS } from './support/requests';
import { drain, requestRow, sendForSigning, signAs } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * The verification report of a request's signed document (issue 19): `GET /api/requests/{refId}/verification` for
 * staff keys, the page behind its signed link (the console's 'Verification report', /v1/download's verification_url).
 */
describe('the verification report', () => {
  let t: TestApp;
  let key: string;
  let session: string;
  let otherKey: string;
  let refId: number;
  let token: string;
  let pending: number;

  const local = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
    session = await signIn(t, 'alice', 'alice-password');
    const sent = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    refId = sent.refId;
    token = sent.tokens[1];
    await signAs(t, { orgId: 'acme', refId, order: 1, token, email: SIGNERS[0].email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
    pending = (
      await sendForSigning(t, key, 'acme', { fixture: 'normal.pdf', recipients: [SIGNERS[1]], otpRequired: false }, [
        { order: 1, pageNo: [1] },
      ])
    ).refId;
  });
  afterAll(() => t.close());

  it("answers the signed document's report: each signature's signer, method, level, chain, and the audit trail", async () => {
    const res = await t.http.get(`/api/requests/${refId}/verification`).set('apikey', key).expect(200);
    const body = res.body as VerificationReport;
    expect(body).toMatchObject({
      ok: true,
      refId,
      filename: 'normal-signed.pdf',
      requestStatus: 'completed',
      documentSha256: (await requestRow(t, refId)).signedFileKey,
      problems: [],
      coverage: { problems: [] },
      at: null,
    });
    expect(body.trustAnchors).toContain('e-Sign Development Root CA');
    expect(body.signatures.map((s) => [s.field, s.signer, s.method, s.intact, s.chain.status, s.valid])).toEqual([
      ['esign_party_1', SIGNERS[0].name, 'e-Signature', true, 'trusted', true],
      ['esign_seal', expect.any(String), 'organisation seal', true, 'trusted', true],
    ]);
    for (const s of body.signatures) {
      expect(SIGNATURE_LEVELS).toContain(s.level);
      expect(s.refId).toBe(refId);
    }
    expect(body.audit).toMatchObject({ intact: true, lastHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(body.audit.events).toBeGreaterThanOrEqual(4);

    const bySession = await t.http.get(`/api/requests/${refId}/verification`).set('apikey', session).expect(200);
    expect(bySession.body.signatures).toEqual(body.signatures);
  });

  it('judges each signature at a later date with ?at=, and refuses a date it cannot read (400)', async () => {
    const res = await t.http.get(`/api/requests/${refId}/verification?at=2046-11-22`).set('apikey', key).expect(200);
    expect(res.body.at).toBe('2046-11-22T00:00:00.000Z');
    for (const s of (res.body as VerificationReport).signatures)
      expect(s.at).toMatchObject({ date: '2046-11-22T00:00:00.000Z', valid: expect.any(Boolean) });
    const bad = await t.http.get(`/api/requests/${refId}/verification?at=someday`).set('apikey', key).expect(400);
    expect(bad.body.message).toBe('at must be a date like 2036-01-31 or 2036-01-31T10:00:00Z (got "someday").');
  });

  it("answers 404 for another organisation's request, one not signed yet and an unknown one; 401 without a key", async () => {
    const other = await t.http.get(`/api/requests/${refId}/verification`).set('apikey', otherKey).expect(404);
    expect(other.body.signatures).toBeUndefined();
    const notYet = await t.http.get(`/api/requests/${pending}/verification`).set('apikey', key).expect(404);
    expect(notYet.body.message).toBe('This request has no signed document yet.');
    await t.http
      .get(`/api/requests/${refId + 1}/verification`)
      .set('apikey', key)
      .expect(404);
    await t.http.get(`/api/requests/${refId}/verification`).expect(401);
  });

  it('offers the report as a page behind a signed link: in the request list once completed, and to the signer', async () => {
    const item = await t.http.get(`/api/requests/${refId}`).set('apikey', key).expect(200);
    expect(item.body.verification_url).toMatch(
      new RegExp(`^${t.config.publicUrl}/docs/reports/acme/${refId}/verification\\.html\\?exp=\\d+&sig=[\\w-]+$`),
    );
    const notCompleted = await t.http.get(`/api/requests/${pending}`).set('apikey', key).expect(200);
    expect(notCompleted.body.verification_url).toBeUndefined();

    const page = await t.http.get(local(item.body.verification_url)).expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.text).toContain('<h1>Verification report</h1>');
    expect(page.text).toContain('Every signature is valid and the audit trail is intact.');
    expect(page.text).toMatch(new RegExp(`<td>${SIGNERS[0].name}</td>\\s*<td>e-Signature</td>\\s*<td>B-[BTLA]+</td>`));
    // The signer's and the seal's signatures, and the archive timestamp after them (B-LTA, the default level).
    expect(page.text.match(/data-testid="status">Valid</g)).toHaveLength(3);

    // The recipient's success page: /v1/download answers the same link.
    const h = { 'x-sign-token': token };
    const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
    const download = await t.http.get(`/v1/download/acme/${ref.body.request.requestId}`).set(h).expect(200);
    expect(download.body.verification_url).toMatch(/\/docs\/reports\/acme\/\d+\/verification\.html\?exp=\d+&sig=/);
    await t.http.get(local(download.body.verification_url)).expect(200);
  });

  it('refuses a link with a changed signature, another organisation or Ref ID, or after it expired (403)', async () => {
    const url = new URL((await t.http.get(`/api/requests/${refId}`).set('apikey', key)).body.verification_url);
    const sig = url.searchParams.get('sig')!;
    const exp = url.searchParams.get('exp')!;
    const forbidden = async (path: string) => {
      const res = await t.http.get(path).expect(403);
      expect(res.body.message).toBe('This report link is invalid or has expired.');
      expect(res.text).not.toContain('Verification report');
    };
    await forbidden(`/docs/reports/acme/${refId}/verification.html?exp=${exp}&sig=${sig.slice(0, -2)}xx`);
    await forbidden(`/docs/reports/globex/${refId}/verification.html?exp=${exp}&sig=${sig}`);
    await forbidden(`/docs/reports/acme/${pending}/verification.html?exp=${exp}&sig=${sig}`);
    await forbidden(`/docs/reports/acme/${refId}/verification.html?exp=${Number(exp) + 1}&sig=${sig}`);
    // A document link's signature does not open the report.
    const docSig = new URL((await t.http.get(`/api/requests/${refId}`).set('apikey', key)).body.data[0].downloadUrl)
      .searchParams;
    await forbidden(`/docs/reports/acme/${refId}/verification.html?exp=${docSig.get('exp')}&sig=${docSig.get('sig')}`);
    t.clock.advance(12 * 3600 + 1);
    await forbidden(`/docs/reports/acme/${refId}/verification.html?exp=${exp}&sig=${sig}`);
  });
});
