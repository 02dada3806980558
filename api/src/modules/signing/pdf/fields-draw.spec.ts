import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, PdfArray, PdfNumber } from '@libpdf/core';
import { readFixture } from '../../../../test/support/fixtures';
import { acmePki, signParty } from '../../../../test/support/engine';
import { runPdfVerify } from '../../../../test/support/pdf-verify';
import { SIGNATURE_PNG } from '../../../../test/support/signing';
import { appendCompletionCertificate, type CompletionCertificateInput } from './completion-certificate';
import type { AttachmentEmbedding, FieldDrawing, StampInput } from './engine';

type Box = [number, number, number, number];
interface Word {
  text: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fields-draw-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function save(pdf: Uint8Array): string {
  const file = join(dir, `doc-${++files}.pdf`);
  writeFileSync(file, pdf);
  return file;
}

/** The words pdftotext finds on a page, in points from the displayed page's top-left corner (its crop box). */
function words(pdf: Uint8Array, page: number): Word[] {
  const html = execFileSync(
    'pdftotext',
    ['-cropbox', '-bbox', '-f', String(page), '-l', String(page), save(pdf), '-'],
    { encoding: 'utf8' },
  );
  return [
    ...html.matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g),
  ].map((m) => ({ x1: +m[1], y1: +m[2], x2: +m[3], y2: +m[4], text: m[5].replace(/&amp;/g, '&') }));
}

/** The words inside the box (half a point of slack for rounding), in reading order, minus those there before. */
function wordsIn(after: Word[], before: Word[], box: Box): string {
  const inside = (w: Word) =>
    w.x1 >= box[0] - 0.5 && w.x2 <= box[2] + 0.5 && w.y1 >= box[1] - 0.5 && w.y2 <= box[3] + 0.5;
  const old = before.filter(inside).map((w) => w.text);
  return after
    .filter(inside)
    .filter((w) => {
      const at = old.indexOf(w.text);
      if (at < 0) return true;
      old.splice(at, 1);
      return false;
    })
    .map((w) => w.text)
    .join(' ');
}

const field = (
  id: string,
  kind: FieldDrawing['kind'],
  page: number,
  box: Box,
  value: string | null,
  extra: Partial<FieldDrawing> = {},
): FieldDrawing => ({ id, kind, label: kind, page, box, value, options: null, ...extra });

const CHEQUE = SIGNATURE_PNG;
const attachment = (fieldId: string, name: string, bytes: Uint8Array, by: string): AttachmentEmbedding => ({
  fieldId,
  name,
  type: 'image/png',
  bytes,
  sha256: sha256(bytes),
  description: `Cancelled cheque, attached by ${by}`,
});

/** Every kind, on page 2's empty top band of the constitution (text starts 220 points down) and one on page 5. */
function everyKind(): { fields: FieldDrawing[]; expected: [Box, number, string][] } {
  const fields = [
    field('f1', 'initials', 2, [40, 20, 100, 40], 'AR'),
    field('f2', 'name', 2, [110, 20, 300, 40], 'Asha Rao'),
    field('f3', 'date', 2, [310, 20, 420, 40], '25 Nov 2026'),
    field('f4', 'number', 2, [430, 20, 560, 40], '42000'),
    field('f5', 'text', 2, [40, 50, 250, 75], 'आशा वर्मा', { label: 'Name in Hindi' }),
    field('f6', 'text', 2, [260, 50, 400, 70], 'ABCDE1234F', { label: 'PAN' }),
    field('f7', 'dropdown', 2, [410, 50, 560, 70], 'Karnataka', { label: 'State' }),
    field('f8', 'checkbox', 2, [40, 85, 200, 100], 'true', { label: 'I agree to the terms' }),
    field('f9', 'checkbox', 2, [210, 85, 360, 100], 'false', { label: 'Send me updates' }),
    field('f10', 'radio', 2, [40, 110, 200, 170], 'Quarterly', {
      label: 'Billing',
      options: ['Monthly', 'Quarterly', 'Yearly'],
    }),
    field('f11', 'radio', 2, [210, 110, 560, 125], 'Card', { label: 'Payment', options: ['Cash', 'Cheque', 'Card'] }),
    field('f12', 'attachment', 2, [210, 140, 560, 160], 'cancelled-cheque.png', { label: 'Cheque' }),
    field('f13', 'text', 2, [210, 180, 390, 200], null, { label: 'Notes' }),
    // A long value in a small box: shrunk to the smallest size, then cut.
    field('f14', 'text', 2, [400, 180, 470, 190], 'A remarkably long value that cannot fit', { label: 'Long' }),
    field('f15', 'name', 5, [300, 20, 560, 45], 'Zoë Łukasiewicz'),
  ];
  const expected: [Box, number, string][] = [
    [fields[0].box, 2, 'AR'],
    [fields[1].box, 2, 'Asha Rao'],
    [fields[2].box, 2, '25 Nov 2026'],
    [fields[3].box, 2, '42000'],
    [fields[4].box, 2, 'आशा वर्मा'],
    [fields[5].box, 2, 'ABCDE1234F'],
    [fields[6].box, 2, 'Karnataka'],
    [fields[7].box, 2, '✓ I agree to the terms'],
    [fields[8].box, 2, 'Send me updates'],
    [fields[9].box, 2, '○ Monthly ● Quarterly ○ Yearly'],
    [fields[10].box, 2, '○ Cash ○ Cheque ● Card'],
    [fields[11].box, 2, 'Attached: cancelled-cheque.png'],
    [fields[12].box, 2, ''],
    [fields[14].box, 5, 'Zoë Łukasiewicz'],
  ];
  return { fields, expected };
}

describe('drawFields (issue 21): the values drawn flattened into the signer’s revision, before the signature', () => {
  let signerFor: Awaited<ReturnType<typeof acmePki>>['signerFor'];
  let caPem: string;

  beforeAll(async () => {
    ({ signerFor, caPem } = await acmePki());
  });

  async function sign(document: Uint8Array, stamp: StampInput, order: number, name: string) {
    const { signer } = await signerFor(name);
    return signParty(document, stamp, {
      signer,
      fieldName: `esign_party_${order}`,
      name,
      reason: 'test',
      signingTime: new Date('2026-11-25T06:30:00Z'),
    });
  }

  it('draws every kind inside its box on the constitution, embeds the attachment, and the signature holds', async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const { fields, expected } = everyKind();
    const signed = await sign(
      original,
      { boxes: [], fields, attachments: [attachment('f12', 'cancelled-cheque.png', CHEQUE, 'Asha Rao')] },
      1,
      'Asha Rao',
    );

    const pages = new Map<number, [Word[], Word[]]>();
    for (const page of [2, 5]) pages.set(page, [words(signed, page), words(original, page)]);
    for (const [box, page, text] of expected) {
      const [after, before] = pages.get(page)!;
      expect({ box, text: wordsIn(after, before, box) }).toEqual({ box, text });
    }
    // Nothing drawn outside the boxes, the cut value ends with an ellipsis and stays in its own box.
    const [after2, before2] = pages.get(2)!;
    const drawn = after2.filter((w) => !before2.some((b) => b.text === w.text && Math.abs(b.x1 - w.x1) < 0.01));
    const outside = drawn.filter(
      (w) =>
        !fields.some(
          (f) =>
            f.page === 2 &&
            w.x1 >= f.box[0] - 0.5 &&
            w.x2 <= f.box[2] + 0.5 &&
            w.y1 >= f.box[1] - 0.5 &&
            w.y2 <= f.box[3] + 0.5,
        ),
    );
    expect(outside).toEqual([]);
    const long = wordsIn(after2, before2, fields[13].box);
    expect(long).toMatch(/^A remarkably.*…$/);
    expect(long.length).toBeLessThan('A remarkably long value that cannot fit'.length);
    // The unchecked box shows no check mark.
    expect(wordsIn(after2, before2, fields[8].box)).not.toContain('✓');

    // The Hindi value copies out exactly, in reading order.
    const file = save(signed);
    const text = execFileSync('pdftotext', ['-f', '2', '-l', '2', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('आशा वर्मा');

    // Only the fonts drawn with, subset: DejaVu Sans, its oblique (the initials) and Noto Sans Devanagari.
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    for (const face of ['DejaVuSans', 'DejaVuSans-Oblique', 'NotoSansDevanagari-Regular'])
      expect(fonts).toMatch(new RegExp(`[A-Z]{6}\\+${face}\\s+CID TrueType\\s+Identity-H\\s+yes\\s+yes`));
    expect(fonts.match(/DejaVu|Noto/g)).toHaveLength(3);
    // Whole, the three faces are about 1.5 MB; the two DejaVu faces come as their shared Latin subsets (some 30 KB each,
    // put in once per job: shared-fonts.ts), the Devanagari one as its script's.
    expect(signed.length - original.length).toBeLessThan(120_000 + CHEQUE.length);

    // The attachment comes out with the same bytes.
    const out = join(dir, 'detached-1');
    execFileSync('mkdir', ['-p', out]);
    execFileSync('pdfdetach', ['-saveall', '-o', out, file]);
    expect(readdirSync(out)).toEqual(['f12-cancelled-cheque.png']);
    expect(sha256(readFileSync(join(out, 'f12-cancelled-cheque.png')))).toBe(sha256(CHEQUE));
    const listed = execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' });
    expect(listed).toContain('f12-cancelled-cheque.png');

    // One incremental update after the original, whose signature covers it all.
    expect(Buffer.from(signed.subarray(0, original.length)).equals(original)).toBe(true);
    const verified = runPdfVerify(signed, [caPem], original);
    expect(verified.signatures).toHaveLength(1);
    expect(verified.signatures[0]).toMatchObject({ valid: true, trusted: true, wholeDocument: true });
    expect(verified.qpdf.exitCode).toBe(0);
  });

  it.each([0, 90, 180, 270])(
    'reads upright in its box on a page turned by /Rotate %i with an offset crop box',
    async (turn) => {
      const doc = PDF.create();
      const page = doc.addPage({ width: 612, height: 792 });
      page.drawText('Page content', { x: 100, y: 400, size: 20 });
      page.dict.set('CropBox', new PdfArray([30, 40, 582, 752].map((n) => PdfNumber.of(n))));
      page.setRotation(turn as 0 | 90 | 180 | 270);
      const original = await doc.save();
      // Displayed: 552 × 712 upright, 712 × 552 turned a quarter.
      const fields = [
        field('f1', 'name', 1, [20, 20, 220, 44], 'Asha Rao'),
        field('f2', 'text', 1, [300, 480, 520, 500], 'आशा वर्मा'),
        field('f3', 'checkbox', 1, [20, 480, 200, 496], 'true', { label: 'I agree' }),
        field('f4', 'radio', 1, [240, 60, 420, 120], 'Yes', { label: 'Resident', options: ['Yes', 'No'] }),
      ];
      const signed = await sign(original, { boxes: [], fields }, 1, 'Asha Rao');
      const [after, before] = [words(signed, 1), words(original, 1)];
      expect(wordsIn(after, before, fields[0].box)).toBe('Asha Rao');
      expect(wordsIn(after, before, fields[1].box)).toBe('आशा वर्मा');
      expect(wordsIn(after, before, fields[2].box)).toBe('✓ I agree');
      expect(wordsIn(after, before, fields[3].box)).toBe('● Yes ○ No');
      // Upright: the words run left to right as displayed, wider than tall.
      const asha = after.find((w) => w.text === 'Asha')!;
      expect(asha.x2 - asha.x1).toBeGreaterThan(asha.y2 - asha.y1);
      const rao = after.find((w) => w.text === 'Rao')!;
      expect(rao.x1).toBeGreaterThan(asha.x2);
      expect(Math.abs(rao.y1 - asha.y1)).toBeLessThan(0.5);
      expect(runPdfVerify(signed, [caPem], original).signatures[0]).toMatchObject({ valid: true });
    },
  );

  it("keeps the first signer's signature valid when a second signer's fields and attachment are drawn", async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const first = await sign(
      original,
      {
        boxes: [],
        fields: [field('f1', 'text', 3, [300, 20, 560, 40], 'First signer value')],
        attachments: [attachment('f2', 'cheque.png', CHEQUE, 'Asha Rao')],
      },
      1,
      'Asha Rao',
    );
    const other = new Uint8Array([...CHEQUE, 0, 1, 2]);
    const second = await sign(
      first,
      {
        boxes: [],
        fields: [
          field('f1', 'text', 3, [300, 45, 560, 65], 'Second signer value'),
          field('f3', 'checkbox', 3, [40, 20, 200, 40], 'true', { label: 'Confirmed' }),
        ],
        // The same field id and file name as the first signer's: kept apart under a name of its own.
        attachments: [attachment('f2', 'cheque.png', other, 'Ravi Kumar')],
      },
      2,
      'Ravi Kumar',
    );
    expect(Buffer.from(second.subarray(0, first.length)).equals(Buffer.from(first))).toBe(true);
    const verified = runPdfVerify(second, [caPem], original);
    expect(verified.signatures.map((s) => [s.field, s.valid, s.wholeDocument])).toEqual([
      ['esign_party_1', true, false],
      ['esign_party_2', true, true],
    ]);
    const [after, before] = [words(second, 3), words(original, 3)];
    expect(wordsIn(after, before, [300, 20, 560, 40])).toBe('First signer value');
    expect(wordsIn(after, before, [300, 45, 560, 65])).toBe('Second signer value');
    expect(wordsIn(after, before, [40, 20, 200, 40])).toBe('✓ Confirmed');

    const out = join(dir, 'detached-2');
    execFileSync('mkdir', ['-p', out]);
    execFileSync('pdfdetach', ['-saveall', '-o', out, save(second)]);
    const names = readdirSync(out).sort();
    expect(names).toEqual(['f2 (2)-cheque.png', 'f2-cheque.png']);
    expect(sha256(readFileSync(join(out, 'f2-cheque.png')))).toBe(sha256(CHEQUE));
    expect(sha256(readFileSync(join(out, 'f2 (2)-cheque.png')))).toBe(sha256(other));
  });

  it('refuses to embed an attachment whose bytes are not the ones recorded (the certificate lists their SHA-256)', async () => {
    const damaged = { ...attachment('f2', 'cheque.png', CHEQUE, 'Asha Rao'), bytes: CHEQUE.subarray(1) };
    await expect(
      sign(readFixture('pdfs', 'normal.pdf'), { boxes: [], attachments: [damaged] }, 1, 'Asha Rao'),
    ).rejects.toThrow('does not match its recorded SHA-256');
  });

  it('touches only the pages that carry fields on a 352-page book, sharing one font dictionary', async () => {
    const original = readFixture('pdfs', 'freeculture.pdf');
    const { fields: kinds } = everyKind();
    // Ten fields per signer on ten pages of the book (its pages are 396 × 594).
    const fields = kinds.slice(0, 10).map((f, i) => ({
      ...f,
      id: `f${i + 1}`,
      page: 20 + 30 * i,
      box: [20, 8, 20 + Math.min(f.box[2] - f.box[0], 300), 8 + (f.box[3] - f.box[1])] as Box,
    }));
    const started = performance.now();
    const signed = await sign(
      original,
      { boxes: [], fields, attachments: [attachment('f9', 'cheque.png', CHEQUE, 'Asha Rao')] },
      1,
      'Asha Rao',
    );
    const elapsed = performance.now() - started;
    const update = Buffer.from(signed.subarray(original.length)).toString('latin1');
    // The pages rewritten: the ten with fields, and the first (the invisible signature widget's /Annots).
    const rewrittenPages = update.match(/\/Type\s*\/Page\b/g) ?? [];
    expect(rewrittenPages.length).toBeLessThanOrEqual(11);
    // Each page's form names the same resources: one font dictionary for the revision.
    const forms = [...update.matchAll(/\/Subtype\s*\/Form\b[^]*?\/Resources\s+(\d+)\s+0\s+R/g)];
    expect(forms).toHaveLength(10);
    expect(new Set(forms.map((m) => m[1])).size).toBe(1);
    const added = signed.length - original.length;
    console.log(`10 fields and one attachment on freeculture.pdf: ${added} bytes added, ${Math.round(elapsed)} ms`);
    // The shared Latin subsets (once per job) included: see the constitution's case.
    expect(added).toBeLessThan(130_000 + CHEQUE.length);
    for (const f of fields.slice(0, 4)) {
      expect(wordsIn(words(signed, f.page), words(original, f.page), f.box)).toBe(f.value);
    }
    expect(runPdfVerify(signed, [caPem], original).signatures[0]).toMatchObject({ valid: true });
  });
});

describe('the certificate of completion lists the fields and attachments (issue 21)', () => {
  it('writes each value with its signer, kind, time and SHA-256, Hindi included, and each attachment', async () => {
    const filledAt = new Date(Date.UTC(2026, 10, 22, 9, 18, 0));
    const input: CompletionCertificateInput = {
      organisation: 'Example Org Pvt Ltd',
      filename: 'Loan agreement.pdf',
      refId: 4711,
      totalPages: 2,
      originalSha256: '0'.repeat(64),
      signedSha256: '1'.repeat(64),
      submittedAt: filledAt,
      completedAt: filledAt,
      parties: [],
      events: [],
      chainIntact: true,
      lastHash: '2'.repeat(64),
      fields: [
        {
          signer: 1,
          signerName: 'Asha Rao',
          kind: 'text',
          label: 'Name in Hindi',
          value: 'आशा वर्मा',
          filledAt,
          sha256: sha256('आशा वर्मा'),
          attachment: null,
        },
        {
          signer: 1,
          signerName: 'Asha Rao',
          kind: 'checkbox',
          label: 'I agree to the terms',
          value: 'true',
          filledAt,
          sha256: sha256('true'),
          attachment: null,
        },
        {
          signer: 2,
          signerName: 'Ravi Kumar',
          kind: 'checkbox',
          label: 'Send me updates',
          value: 'false',
          filledAt,
          sha256: sha256('false'),
          attachment: null,
        },
        {
          signer: 2,
          signerName: 'Ravi Kumar',
          kind: 'attachment',
          label: 'Cancelled cheque',
          value: 'cheque.png',
          filledAt,
          sha256: sha256(CHEQUE),
          attachment: { name: 'cheque.png', type: 'image/png', size: 12345 },
        },
        {
          signer: 2,
          signerName: 'Ravi Kumar',
          kind: 'text',
          label: 'Notes',
          value: null,
          filledAt: null,
          sha256: null,
          attachment: null,
        },
      ],
    };
    const pdf = await PDF.load(readFixture('pdfs', 'normal.pdf'));
    const added = appendCompletionCertificate(pdf, input);
    const file = save(await pdf.save({ incremental: true, subsetFonts: true }));
    const text = Array.from({ length: added }, (_, i) =>
      execFileSync('pdftotext', ['-f', String(3 + i), '-l', String(3 + i), file, '-'], { encoding: 'utf8' }),
    ).join('\n');
    const squeezed = text.replace(/\s+/g, ' ');
    for (const expected of [
      'Fields',
      'Attachments',
      'Asha Rao',
      'Ravi Kumar',
      'Name in Hindi',
      'आशा वर्मा',
      'I agree to the terms',
      'Checked',
      'Not checked',
      'Checkbox',
      'Cancelled cheque',
      'image/png',
      '12,345 bytes',
      '22 Nov 2026, 2:48 pm IST',
      sha256('आशा वर्मा'),
      sha256('true'),
      sha256(CHEQUE),
    ]) {
      expect(squeezed).toContain(expected);
    }
  });
});
