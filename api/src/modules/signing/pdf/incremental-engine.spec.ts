import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, type PdfDict, type PdfRef } from '@libpdf/core';
import { readFixture } from '../../../../test/support/fixtures';
import { renderPage, SIGNATURE_PNG } from '../../../../test/support/signing';
import { inspectPdf } from '../../documents/pdf/inspect';
import { placeBoxes } from '../../documents/pdf/placement';
import { createHash } from 'node:crypto';
import { DocumentNotSignableError } from './engine';
import { acmePki, engineB, signParty } from '../../../../test/support/engine';
import { runPdfVerify } from '../../../../test/support/pdf-verify';
import type { DocumentInput } from './engine';
import { assertTimestampCovers } from './external';

const DPI = 40;

/** Where a page changed, in the displayed picture's 840-point console convention. */
function changedArea(before: Uint8Array, after: Uint8Array, page: number) {
  const a = renderPage(Buffer.from(before), page, DPI);
  const b = renderPage(Buffer.from(after), page, DPI);
  const s = a.height / 840;
  let [x1, y1, x2, y2] = [Infinity, Infinity, -1, -1];
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++)
      if (Math.abs(a.pixels[y * a.width + x] - b.pixels[y * b.width + x]) > 40) {
        x1 = Math.min(x1, x);
        y1 = Math.min(y1, y);
        x2 = Math.max(x2, x);
        y2 = Math.max(y2, y);
      }
  return { x1: x1 / s, y1: y1 / s, x2: (x2 + 1) / s, y2: (y2 + 1) / s };
}

describe('IncrementalEngine: stamps where the console showed the box, upright on turned pages', () => {
  let signerFor: Awaited<ReturnType<typeof acmePki>>['signerFor'];
  let caPem: string;

  beforeAll(async () => {
    ({ signerFor, caPem } = await acmePki());
  });

  it.each([0, 90, 180, 270])('a page turned by /Rotate %i', async (rotation) => {
    const doc = PDF.create();
    const page = doc.addPage({ width: 612, height: 792 });
    page.setRotation(rotation as 0 | 90 | 180 | 270);
    page.drawText('Page content', { x: 72, y: 700, size: 24 });
    const original = await doc.save();
    const inspected = await inspectPdf({
      bytes: Buffer.from(original),
      filename: 'turned.pdf',
      mimeType: 'application/pdf',
    });
    const rectangle = '100,500,400,600';
    const boxes = placeBoxes({ rectangle, pageNo: [1], applyAll: false, totalPages: 1, geometry: inspected.geometry });

    const { signer } = await signerFor('Asha Rao');
    const signed = await signParty(
      original,
      { boxes, image: SIGNATURE_PNG },
      { signer, fieldName: 'esign_party_1', reason: 'test', signingTime: new Date() },
    );
    const area = changedArea(original, signed, 1);
    // Inside the box (with a little slack for anti-aliasing) ...
    expect(area.x1).toBeGreaterThanOrEqual(100 - 3);
    expect(area.y1).toBeGreaterThanOrEqual(500 - 3);
    expect(area.x2).toBeLessThanOrEqual(400 + 3);
    expect(area.y2).toBeLessThanOrEqual(600 + 3);
    // ... and upright: the 3:1 signature is wider than tall as displayed.
    expect(area.x2 - area.x1).toBeGreaterThan(2 * (area.y2 - area.y1));
  });

  it('renders a typed name in the box, in the embedded DejaVu face, subset', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const inspected = await inspectPdf({ bytes: original, filename: 'normal.pdf', mimeType: 'application/pdf' });
    const boxes = placeBoxes({
      rectangle: '0,790,150,840',
      pageNo: [2],
      applyAll: false,
      totalPages: 2,
      geometry: inspected.geometry,
    });
    const { signer } = await signerFor('Zoë Łukasiewicz');
    const signed = await signParty(
      original,
      { boxes, text: { value: 'Zoë Łukasiewicz', italic: true } },
      { signer, fieldName: 'esign_party_1', reason: 'test', signingTime: new Date() },
    );
    const area = changedArea(original, signed, 2);
    expect(area.x1).toBeGreaterThanOrEqual(0);
    expect(area.y1).toBeGreaterThanOrEqual(790 - 3);
    expect(area.x2).toBeLessThanOrEqual(150 + 3);
    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    try {
      writeFileSync(join(dir, 'signed.pdf'), signed);
      const text = execFileSync('pdftotext', ['-f', '2', '-l', '2', join(dir, 'signed.pdf'), '-'], {
        encoding: 'utf8',
      });
      expect(text).toContain('Zoë Łukasiewicz');
      const fonts = execFileSync('pdffonts', [join(dir, 'signed.pdf')], { encoding: 'utf8' });
      expect(fonts).toMatch(/[A-Z]{6}\+DejaVuSans-Oblique\s+CID TrueType\s+Identity-H\s+yes\s+yes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Subset: the oblique face alone is about 600 KB; its shared Latin subset (put in once per job, then referred to
    // by the job's later revisions: shared-fonts.ts) and the regular face's are some 30 KB each.
    expect(signed.length - original.length).toBeLessThan(90_000);
  });

  it('keeps resources a page inherits from its parent (its own text still renders after the stamp)', async () => {
    const drawn = PDF.create();
    drawn.addPage({ width: 612, height: 792 }).drawText('Inherited font text', {
      x: 72,
      y: 700,
      size: 24,
      font: 'Helvetica',
    });
    // Move the page's resources to the page tree node, as many producers write them.
    const doc = await PDF.load(await drawn.save());
    const page = doc.getPage(0)!;
    const resources = page.dict.get('Resources');
    page.dict.delete('Resources');
    const pages = doc.getObject(doc.getCatalog().get('Pages') as PdfRef) as PdfDict;
    pages.set('Resources', resources!);
    const original = await doc.save();
    const inspected = await inspectPdf({
      bytes: Buffer.from(original),
      filename: 'tree.pdf',
      mimeType: 'application/pdf',
    });
    const boxes = placeBoxes({
      rectangle: '100,500,400,600',
      pageNo: [1],
      applyAll: false,
      totalPages: 1,
      geometry: inspected.geometry,
    });
    const { signer } = await signerFor('Asha Rao');
    const signed = await signParty(
      original,
      { boxes, image: SIGNATURE_PNG },
      { signer, fieldName: 'esign_party_1', reason: 'test', signingTime: new Date() },
    );
    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    try {
      writeFileSync(join(dir, 'signed.pdf'), signed);
      expect(execFileSync('pdftotext', [join(dir, 'signed.pdf'), '-'], { encoding: 'utf8' })).toContain(
        'Inherited font text',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const area = changedArea(original, signed, 1);
    expect(area.y1).toBeGreaterThanOrEqual(500 - 3);
  });

  it('refuses to sign a signed document it could only rewrite (its earlier signatures would break)', async () => {
    const { signer } = await signerFor('Asha Rao');
    await expect(
      signParty(
        readFixture('pdfs', 'already_signed_twice.pdf'),
        { boxes: [] },
        { signer, fieldName: 'esign_party_1', reason: 'test', signingTime: new Date() },
      ),
    ).rejects.toBeInstanceOf(DocumentNotSignableError);
  });

  it('writes each signer a true incremental update: the previous file a prefix, the size bounded by what it touches', async () => {
    // Six signers with a box on every page of a 352-page book, as the seal bench does.
    const original = readFixture('pdfs', 'freeculture.pdf');
    const inspected = await inspectPdf({ bytes: original, filename: 'freeculture.pdf', mimeType: 'application/pdf' });
    const pages = inspected.totalPages;
    const engine = engineB();
    let document: DocumentInput = original;
    let previous: Uint8Array = original;
    const updates: string[] = [];
    for (let party = 1; party <= 6; party++) {
      const boxes = placeBoxes({
        rectangle: `${40 + party * 60},700,${90 + party * 60},730`,
        pageNo: [1],
        applyAll: true,
        totalPages: pages,
        geometry: inspected.geometry,
      });
      const { signer } = await signerFor(`Signer ${party}`);
      const prepared = await engine.prepareParty(
        document,
        { boxes, text: { value: `Signer ${party}`, italic: true }, signedBy: [`Digitally signed by Signer ${party}`] },
        { fieldName: `esign_party_${party}`, reason: 'test', signingTime: new Date() },
      );
      const finished = await engine.finish(prepared, await engine.signWith(prepared.digest, signer), 'B-B');
      const bytes = Buffer.from(finished.document);
      // The previous revision's bytes are untouched, at the start of the next.
      expect(bytes.subarray(0, previous.length).equals(Buffer.from(previous))).toBe(true);
      updates.push(bytes.subarray(previous.length).toString('latin1'));
      document = finished.signed;
      previous = bytes;
    }
    for (const [i, update] of updates.entries()) {
      // Every page gets a new dictionary; one stamp form XObject serves them all.
      expect(update.match(/\/Type\s*\/Page\b/g)).toHaveLength(pages);
      // (A handful: one form per look, the first box's with the visible signature's lines, and one per box shape as
      // placed on the book's page sizes. Never one per page.)
      // (The pages' XObject dictionaries name the earlier signers' forms too: this revision's prefix is the newest.)
      const names = [...update.matchAll(/\/EsignStamp(\d+)_\d+\s+(\d+)\s+0\s+R/g)];
      const newest = Math.max(...names.map((m) => Number(m[1])));
      const named = new Set(names.filter((m) => Number(m[1]) === newest).map((m) => m[2]));
      expect(named.size).toBeGreaterThanOrEqual(1);
      expect(named.size).toBeLessThanOrEqual(8);
      // Bounded by what it touches (a page dictionary each, the stamp, the field), not by the document: the first
      // carries the face's shared subset, later ones refer to it.
      expect(update.length).toBeLessThan((i === 0 ? 60_000 : 0) + pages * 1_000 + 30_000);
      expect(update.length).toBeLessThan(original.length / 5);
    }
    expect(pages).toBe(352);
    const verified = runPdfVerify(previous, [caPem], original);
    expect(verified.problems).toEqual([]);
    expect(verified.signatures).toHaveLength(6);
    for (const signature of verified.signatures) expect(signature).toMatchObject({ valid: true, trusted: true });
  });
  it('leaves a version as it was when a revision is made from it: two revisions from one version see only their own stamp', async () => {
    // freeculture.pdf's pages hold their /Resources and /XObject dictionaries inline: a revision copies the page
    // dictionary shallowly and those two as it changes them, so the version it started from must not change.
    const original = readFixture('pdfs', 'freeculture.pdf');
    const inspected = await inspectPdf({ bytes: original, filename: 'freeculture.pdf', mimeType: 'application/pdf' });
    const engine = engineB();
    const boxesAt = (x: number) =>
      placeBoxes({
        rectangle: `${x},700,${x + 50},730`,
        pageNo: [1, 2, 3],
        applyAll: false,
        totalPages: inspected.totalPages,
        geometry: inspected.geometry,
      });
    const sign = async (document: DocumentInput, x: number, party: number) => {
      const { signer } = await signerFor(`Signer ${party}`);
      const prepared = await engine.prepareParty(
        document,
        { boxes: boxesAt(x), text: { value: `Signer ${party}`, italic: false } },
        { fieldName: `esign_party_${party}_${x}`, reason: 'test', signingTime: new Date() },
      );
      return engine.finish(prepared, await engine.signWith(prepared.digest, signer), 'B-B');
    };
    // The stamps page 2 names in the newest revision of a file: its XObject dictionary's EsignStamp entries.
    const stampsOfPage2 = (bytes: Uint8Array, from: number) => {
      const update = Buffer.from(bytes).subarray(from).toString('latin1');
      const pages = [...update.matchAll(/\/Type\s*\/Page\b[^]*?endobj/g)].map((m) => m[0]);
      return pages.map((page) => [...page.matchAll(/\/(EsignStamp\d+)_\d+/g)].map((m) => m[1]).sort());
    };
    const first = await sign(original, 100, 1);
    const a = await sign(first.signed, 200, 2);
    const b = await sign(first.signed, 300, 3);
    const [one] = stampsOfPage2(first.document, original.length);
    const [withA] = stampsOfPage2(a.document, first.document.length);
    const [withB] = stampsOfPage2(b.document, first.document.length);
    expect(one).toHaveLength(1);
    expect(withA).toHaveLength(2);
    expect(withB).toHaveLength(2);
    // Each names the first signer's stamp and its own, never the other branch's.
    expect(withA[0]).toBe(one[0]);
    expect(withB[0]).toBe(one[0]);
    expect(first.signed.structure().pages).toHaveLength(352);
    // The version both came from still reads as it was written: its page 2 names only the first stamp.
    const page2 = first.signed.structure().pages[1];
    const written = first.signed.structure().written.get(page2.num) as Map<string, unknown>;
    const resources = written.get('Resources') as Map<string, Map<string, unknown>>;
    expect([...resources.get('XObject')!.keys()].filter((k) => k.startsWith('EsignStamp'))).toHaveLength(1);
    for (const signed of [a, b]) {
      const verified = runPdfVerify(signed.document, [caPem], original);
      expect(verified.problems).toEqual([]);
      expect(verified.signatures).toHaveLength(2);
    }
  });
});

describe('assertTimestampCovers: a document timestamp is stored only when it hashes to what its token was asked for', () => {
  /** A file whose one signature dictionary's /ByteRange covers all of it but its /Contents. */
  function timestamped(): { file: Buffer; digest: Uint8Array } {
    const contents = `<${'00'.repeat(16)}>`;
    const tail = '>>\nendobj\n%%EOF\n';
    const head = (l1: number, o2: number, l2: number) =>
      `%PDF-1.7\n1 0 obj\n<</Type/DocTimeStamp/ByteRange [0 ${String(l1).padEnd(10)} ${String(o2).padEnd(10)} ${String(l2).padEnd(10)}] /Contents `;
    const l1 = head(0, 0, 0).length;
    const text = head(l1, l1 + contents.length, tail.length) + contents + tail;
    const file = Buffer.from(text, 'latin1');
    const digest = createHash('sha256')
      .update(file.subarray(0, l1))
      .update(file.subarray(l1 + contents.length))
      .digest();
    return { file, digest };
  }

  it('passes the file its token was made for', () => {
    const { file, digest } = timestamped();
    expect(() => assertTimestampCovers(file, digest)).not.toThrow();
  });

  it('refuses a covered byte changed after the token was asked for, another digest, or no digest', () => {
    const { file, digest } = timestamped();
    const changed = Buffer.from(file);
    changed[3] ^= 1;
    expect(() => assertTimestampCovers(changed, digest)).toThrow(/does not cover the bytes it was made for/);
    expect(() => assertTimestampCovers(file, new Uint8Array(32))).toThrow(/does not cover/);
    expect(() => assertTimestampCovers(file, null)).toThrow(/does not cover/);
  });
});
