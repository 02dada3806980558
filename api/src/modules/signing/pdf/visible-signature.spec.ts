import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, type PdfArray, PdfDict, type PdfNumber, PdfRef } from '@libpdf/core';
import { readFixture } from '../../../../test/support/fixtures';
import { signParty } from '../../../../test/support/engine';
import { runPdfVerify } from '../../../../test/support/pdf-verify';
import { renderPage, SIGNATURE_PNG } from '../../../../test/support/signing';
import { inspectPdf } from '../../documents/pdf/inspect';
import { placeBoxes } from '../../documents/pdf/placement';
import { generateRootCa, issueOrganisationCa, issueSignerCertificate, loadIssuer } from '../pki/certificates';
import { signedByLines } from '../signed-by';

/** The words pdftotext finds on a page, with their boxes in PDF points from the page's top-left. */
function words(pdf: Uint8Array, page: number): { text: string; x1: number; y1: number; x2: number; y2: number }[] {
  const dir = mkdtempSync(join(tmpdir(), 'esign-bbox-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const html = execFileSync(
      'pdftotext',
      ['-bbox', '-f', String(page), '-l', String(page), join(dir, 'in.pdf'), '-'],
      { encoding: 'utf8' },
    );
    return [
      ...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
    ].map((m) => ({ x1: +m[1], y1: +m[2], x2: +m[3], y2: +m[4], text: m[5] }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the visible signature (issue 19): the first box says who signed, when, how and which request', () => {
  const at = new Date('2026-11-25T06:30:00Z');
  const lines = signedByLines('Asha Rao', at, 2, 1234567890, 'Asia/Kolkata');

  it('writes the lines in a frame in the first box only, and makes that box the signature widget', async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const inspected = await inspectPdf({ bytes: original, filename: 'c.pdf', mimeType: 'application/pdf' });
    // A 200 × 60 box (840-unit convention) at the top left of pages 2 to 4.
    const boxes = placeBoxes({
      rectangle: '40,60,240,120',
      pageNo: [2, 3, 4],
      applyAll: false,
      totalPages: inspected.totalPages,
      geometry: inspected.geometry,
    });
    const now = new Date();
    const root = await generateRootCa(now);
    const issuer = await loadIssuer(await issueOrganisationCa(root, { id: 'acme', name: 'Acme' }, now), [root.certPem]);
    const { signer } = await issueSignerCertificate(issuer, { name: 'Asha Rao', organisation: 'Acme' }, now);
    const signed = await signParty(
      original,
      { boxes, image: SIGNATURE_PNG, signedBy: lines },
      { signer, fieldName: 'esign_party_1', name: 'Asha Rao', reason: 'test', signingTime: at },
    );

    expect(lines).toEqual([
      'Digitally signed by Asha Rao',
      '25 Nov 2026, 12:00 pm IST',
      'e-Signature',
      'Ref ID 1234567890',
    ]);
    const box = boxes[0];
    const page = (await PDF.load(signed)).getPages()[1];
    const height = page.height;
    // pdftotext's boxes are from the top: the stamp's box is [x, height - y - h, x + w, height - y].
    const region = { x1: box.x, y1: height - box.y - box.height, x2: box.x + box.width, y2: height - box.y };
    const inside = (w: { x1: number; y1: number; x2: number; y2: number }) =>
      w.x1 >= region.x1 - 1 && w.x2 <= region.x2 + 1 && w.y1 >= region.y1 - 1 && w.y2 <= region.y2 + 1;
    const onFirst = words(signed, 2).filter(inside);
    expect(onFirst.map((w) => w.text).join(' ')).toContain('Digitally signed by Asha Rao');
    expect(onFirst.map((w) => w.text).join(' ')).toContain('Ref ID 1234567890');
    expect(onFirst.map((w) => w.text).join(' ')).toContain('IST');
    for (const other of [3, 4]) expect(words(signed, other).filter((w) => w.text === 'Digitally')).toEqual([]);

    // The frame: dark pixels along the box's edges on the first page, none on the others' edges.
    const dpi = 144;
    const scale = dpi / 72;
    const edgeDark = (pageNo: number) => {
      const { width, pixels } = renderPage(Buffer.from(signed), pageNo, dpi);
      // The box's top edge, give or take a pixel of rounding: the darkest of the three rows.
      const top = Math.round((height - box.y - box.height) * scale);
      let best = 0;
      for (const row of [top - 1, top, top + 1]) {
        let dark = 0;
        for (let x = Math.round(box.x * scale) + 10; x < Math.round((box.x + box.width) * scale) - 10; x++)
          if (pixels[row * width + x] < 200) dark++;
        best = Math.max(best, dark / (box.width * scale - 20));
      }
      return best;
    };
    expect(edgeDark(2)).toBeGreaterThan(0.9);
    expect(edgeDark(3)).toBeLessThan(0.1);

    // The signature's widget is that box on that page, listed in its /Annots.
    const pdf = await PDF.load(signed);
    const field = pdf
      .getForm()!
      .getSignatureFields()
      .find((f) => f.name === 'esign_party_1')!;
    const dict = field.getDict();
    const rect = dict.get('Rect') as PdfArray;
    const values = Array.from({ length: 4 }, (_, i) => (rect.at(i) as PdfNumber).value);
    expect(values.map((v) => Math.round(v))).toEqual(
      [box.x, box.y, box.x + box.width, box.y + box.height].map((v) => Math.round(v)),
    );
    const pageRef = dict.get('P') as PdfRef;
    expect(pageRef.objectNumber).toBe(pdf.getPages()[1].ref.objectNumber);
    const annots = pdf.getPages()[1].dict.get('Annots', (r: PdfRef) => pdf.context.resolve(r)) as PdfArray;
    const listed = Array.from({ length: annots.length }, (_, i) => annots.at(i)).filter(
      (a): a is PdfRef => a instanceof PdfRef,
    );
    expect(
      listed.some((r) => {
        const annot = pdf.context.resolve(r);
        return annot instanceof PdfDict && annot === dict;
      }),
    ).toBe(true);

    const verified = runPdfVerify(signed, [root.certPem], original);
    expect(verified.signatures).toHaveLength(1);
    expect(verified.signatures[0]).toMatchObject({ valid: true, trusted: true, signer: 'Asha Rao' });
    expect(verified.qpdf.exitCode).toBe(0);
  });
});
