import { Messages } from '@esign/contract';
import { readFixture } from './support/fixtures';
import { SIGNERS, upload } from './support/requests';
import {
  drain,
  pageCount,
  partyRow,
  renderPage,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
} from './support/signing';
import { createOrgWithUser, engine, orgApiKey, startTestApp, type TestApp } from './support/test-app';
import type { AddressInfo } from 'node:net';
import { DscAgents } from '../src/modules/dsc/dsc-agents';
import { EspKeys } from '../src/modules/aadhaar/esp-keys.service';
import { OrganisationEntity } from '../src/modules/organisations/organisation.entity';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { documentEvidence } from './support/evidence';
import { latestOtpTo, signAadhaar, signDsc, until } from './support/methods';
import { runPdfVerifyAsync } from './support/pdf-verify';
import { createTestToken, spawnDscAgent, type RunningAgent, type TestToken } from './support/softhsm';

/** Every fixture the upload accepts (the others are refused with a clear message: inspect.spec.ts and below). */
const ACCEPTED = [
  'normal.pdf',
  'us_constitution.pdf',
  'tracemonkey.pdf',
  'freeculture.pdf',
  'linearized_with_object_streams.pdf',
  'giraffe.pdf',
  'american_flag.pdf',
  'with_cropbox.pdf',
  'doc_2_3_pages.pdf',
  'with_update_sections.pdf',
  'with_signature.pdf',
  'already_signed.pdf',
  'sample_form.pdf',
  'fancy_fields.pdf',
  'prefilled_f1040.pdf',
];

/**
 * What each fixture tests is the PDF engine's, which the database does not touch: the MariaDB pass signs two of them
 * (a plain file and one already signed, incremental updates kept) to prove the same flow on that engine, and the
 * SQLite pass signs them all (about 160 s of one worker's time saved).
 */
const FIXTURES = engine === 'mariadb' ? ['normal.pdf', 'already_signed.pdf'] : ACCEPTED;

const DPI = 30;

/** How much page 1 changed inside the displayed box of the console's rectangle (x1,y1,x2,y2 on an 840-pt page). */
function inkInRectangle(before: ReturnType<typeof renderPage>, after: ReturnType<typeof renderPage>, rect: number[]) {
  const s = before.height / 840;
  let sum = 0;
  let count = 0;
  for (let y = Math.floor(rect[1] * s); y < Math.ceil(rect[3] * s); y++) {
    for (let x = Math.floor(rect[0] * s); x < Math.ceil(rect[2] * s); x++) {
      sum += Math.abs(before.pixels[y * before.width + x] - after.pixels[y * after.width + x]);
      count++;
    }
  }
  return sum / count;
}

const PIN = '5521-0907';
const AADHAAR_SIGNER = { name: 'Asha Rao', email: 'asha.fixtures@example.in', phoneNumber: '9876543210' };
const DSC_SIGNER = { name: 'Vikram Shah', email: 'vikram.fixtures@example.in', phoneNumber: '9123456789' };

/**
 * Issue 19's proof on every fixture the upload accepts: two e-Signature signers, an Aadhaar signer through the sandbox
 * ESP and a DSC signer through a SoftHSMv2 token, then the organisation's seal, at the default level (B-LTA) with the
 * built-in timestamp authority. pdfsig finds every signature valid and trusted (trusting the development root, the
 * sandbox ESP's CA and the token's CA), qpdf finds nothing new, each signature carries a timestamp token that OpenSSL
 * verifies over its signature value, and the file ends with a DSS and a document timestamp OpenSSL verifies too.
 */
describe('signing every accepted fixture with every method: valid, timestamped, validation data, archive timestamp', () => {
  let t: TestApp;
  let key: string;
  let token: TestToken;
  let agent: RunningAgent | null = null;

  beforeAll(async () => {
    t = await startTestApp();
    const server = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
    await t.db
      .getRepository(OrganisationEntity)
      .update({ id: 'acme' }, { dscDownloadUrl: 'https://example.in/signer' });
    // The ESP's 30-minute certificate is checked by pdfsig at the real time: the test clock is brought to now.
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
    token = createTestToken(DSC_SIGNER.name, 'FIXTURES', PIN);
    // The DSC signer's desktop agent, logged in with the e-mail of the requests (a request must exist for the OTP).
    await sendForSigning(
      t,
      key,
      'acme',
      { recipients: [{ ...DSC_SIGNER, observer: false, signature_type: 'DSC' }], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    agent = spawnDscAgent(server, DSC_SIGNER.email, token);
    await until(() => agent!.output().includes('One-time code sent to'));
    agent.child.stdin.write(`${await latestOtpTo(t, DSC_SIGNER.email)}\n`);
    await until(async () => (await t.app.get(DscAgents).find([DSC_SIGNER.email])) !== null);
  }, 120_000);
  afterAll(async () => {
    agent?.child.kill('SIGINT');
    token?.cleanup();
    await t.close();
  });

  it.each(FIXTURES)(
    '%s',
    async (fixture) => {
      const original = readFixture('pdfs', fixture);
      const root = await t.app.get(SealPkiService).rootCertificatePem();
      const sandbox = (await t.app.get(EspKeys).sandbox()).ca.certPem;
      const trusted = [root, sandbox, token.caPem];
      // Signature fields the document already has (signed by others, or empty), listed first by pdfsig.
      const before = (await runPdfVerifyAsync(original, [root])).signatures.length;
      const rectangle = [300, 300, 450, 350];
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        {
          fixture,
          recipients: [
            SIGNERS[0],
            { ...SIGNERS[1], signature_type: 'e-Signature' },
            { ...AADHAAR_SIGNER, observer: false, signature_type: 'Aadhaar' },
            { ...DSC_SIGNER, observer: false, signature_type: 'DSC' },
          ],
          otpRequired: false,
          checkOrder: false,
        },
        [
          { order: 1, pageNo: [1], rectangle: rectangle.join(',') },
          { order: 2, apply_all: true, rectangle: '0,790,150,840' },
          { order: 3, pageNo: [1], rectangle: '300,100,450,150' },
          { order: 4, pageNo: [1], rectangle: '100,100,250,150' },
        ],
      );
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      await signAs(t, {
        orgId: 'acme',
        refId,
        order: 2,
        token: tokens[2],
        email: SIGNERS[1].email,
        signature: { kind: 'typed', style: 'normal' },
      });
      await drain(t);
      await signAadhaar(t, { orgId: 'acme', refId, order: 3, token: tokens[3], name: AADHAAR_SIGNER.name });
      await drain(t);
      await signDsc(t, { orgId: 'acme', refId, order: 4, token: tokens[4], pin: PIN });
      await drain(t);
      const request = await requestRow(t, refId);
      expect([request.status, request.evidenceLevel]).toEqual(['completed', 'B-LTA']);

      const pdf = await signedPdf(t, refId);
      const verified = await runPdfVerifyAsync(pdf, trusted, original);
      const ours = verified.signatures.slice(before).filter((s) => s.type === 'ETSI.CAdES.detached');
      expect(ours.map((s) => [s.signer, s.validation, s.trusted])).toEqual([
        [SIGNERS[0].name, 'Signature is Valid.', true],
        [SIGNERS[1].name, 'Signature is Valid.', true],
        [AADHAAR_SIGNER.name, 'Signature is Valid.', true],
        [DSC_SIGNER.name, 'Signature is Valid.', true],
        ['Org acme Document Seal', 'Signature is Valid.', true],
      ]);
      // Signatures the document already carried (by others, not trusted here) are still intact.
      for (const earlier of verified.signatures.slice(0, before).filter((s) => s.signed))
        expect(earlier.validation).toBe('Signature is Valid.');
      expect(verified.qpdf.exitCode).not.toBe(2);
      expect(verified.qpdf.newWarnings).toEqual([]);

      // The evidence, checked by OpenSSL: every one of our signatures timestamped over its signature value, then the
      // DSS and the archive timestamp as the last revision.
      const evidence = documentEvidence(pdf, root);
      const cades = evidence.signatures.filter((s) => s.subFilter === 'ETSI.CAdES.detached').slice(-5);
      expect(cades.map((s) => s.timestampVerified)).toEqual([true, true, true, true, true]);
      expect(evidence.dss).toBe(true);
      expect(evidence.endsWithDocumentTimestamp).toBe(true);
      expect(
        evidence.signatures.filter((s) => s.subFilter === 'ETSI.RFC3161').map((s) => s.documentTimestampVerified),
      ).toEqual([true]);
      for (const order of [1, 2, 3, 4]) expect((await partyRow(t, refId, order)).signatureLevel).toBe('B-T');

      expect(pageCount(pdf)).toBeGreaterThan(request.totalPages);
      // The drawn signature is inside its box on page 1 as the console showed it.
      const ink = inkInRectangle(renderPage(original, 1, DPI), renderPage(pdf, 1, DPI), rectangle);
      expect(ink).toBeGreaterThan(3);
      expect((await partyRow(t, refId, 2)).boxes?.[0].pages).toMatch(/^1(-\d+)?$/);
      // Each fixture is signed four times, sealed, archived, rendered and checked with pdfsig, qpdf and OpenSSL: a
      // minute on a busy 2-core machine for the largest. This is no speed target (npm run bench has those).
    },
    240_000,
  );

  it('refuses already_signed_twice.pdf at upload: its damaged cross-references would need a rewrite that breaks its signatures', async () => {
    const res = await upload(t, key, 'acme', { fixture: 'already_signed_twice.pdf' });
    expect([res.status, res.body.message]).toEqual([422, Messages.pdfSignedAndDamaged]);
  });
});
