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
  verifyPdf,
} from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

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

describe('signing every accepted fixture: earlier signatures stay valid, qpdf finds nothing new', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  it.each(ACCEPTED)(
    '%s',
    async (fixture) => {
      const original = readFixture('pdfs', fixture);
      // Signature fields the document already has (signed by others, or empty), listed first by pdfsig.
      const before = (await verifyPdf(t, original)).signatures.length;
      const rectangle = [300, 300, 450, 350];
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        {
          fixture,
          recipients: [SIGNERS[0], { ...SIGNERS[1], signature_type: 'e-Signature' }],
          otpRequired: false,
          checkOrder: false,
        },
        [
          { order: 1, pageNo: [1], rectangle: rectangle.join(',') },
          { order: 2, apply_all: true, rectangle: '0,790,150,840' },
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
      expect((await requestRow(t, refId)).status).toBe('completed');

      const pdf = await signedPdf(t, refId);
      const verified = await verifyPdf(t, pdf, original);
      const ours = verified.signatures.slice(before);
      expect(ours.map((s) => [s.signer, s.validation, s.trusted])).toEqual([
        [SIGNERS[0].name, 'Signature is Valid.', true],
        [SIGNERS[1].name, 'Signature is Valid.', true],
        ['Org acme Document Seal', 'Signature is Valid.', true],
      ]);
      // Signatures the document already carried (by others, not trusted here) are still intact.
      for (const earlier of verified.signatures.slice(0, before).filter((s) => s.signed))
        expect(earlier.validation).toBe('Signature is Valid.');
      expect(verified.qpdf.exitCode).not.toBe(2);
      expect(verified.qpdf.newWarnings).toEqual([]);
      expect(pageCount(pdf)).toBeGreaterThan((await requestRow(t, refId)).totalPages);
      // The drawn signature is inside its box on page 1 as the console showed it.
      const ink = inkInRectangle(renderPage(original, 1, DPI), renderPage(pdf, 1, DPI), rectangle);
      expect(ink).toBeGreaterThan(3);
      expect((await partyRow(t, refId, 2)).boxes?.[0].pages).toMatch(/^1(-\d+)?$/);
      // Each fixture is signed twice, sealed, rendered and checked with pdfsig and qpdf: a minute on a busy 2-core
      // machine for the largest. This is no speed target (npm run bench has those).
    },
    180_000,
  );

  it('refuses already_signed_twice.pdf at upload: its damaged cross-references would need a rewrite that breaks its signatures', async () => {
    const res = await upload(t, key, 'acme', { fixture: 'already_signed_twice.pdf' });
    expect([res.status, res.body.message]).toEqual([422, Messages.pdfSignedAndDamaged]);
  });
});
