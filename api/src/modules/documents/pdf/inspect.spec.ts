import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as zlibConstants, deflateRawSync } from 'node:zlib';
import { Limits, Messages } from '@esign/contract';
import { PDF, PdfArray, PdfNumber } from '@libpdf/core';
import { fixturePath, readFixture } from '../../../../test/support/fixtures';
import { AppError } from '../../../common/app-error';
import { inspectPdf } from './inspect';
import { fromRuns } from './pageRuns';

const inspect = (bytes: Buffer, filename = 'document.pdf', mimeType = 'application/pdf') =>
  inspectPdf({ bytes, filename, mimeType });

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => new Error('expected the inspection to refuse the file'),
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(AppError);
  return outcome as AppError;
}

async function expectRefused(promise: Promise<unknown>, status: number, message: string): Promise<void> {
  const error = await rejection(promise);
  expect({ status: error.status, message: error.message }).toEqual({ status, message });
}

/** Runs a command on the bytes written to a temporary file; its exit code and output. */
function runOn(bytes: Buffer, command: string, args: (file: string) => string[]): { code: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'inspect-'));
  try {
    const file = join(dir, 'f.pdf');
    writeFileSync(file, bytes);
    try {
      return { code: 0, output: execFileSync(command, args(file), { encoding: 'latin1', maxBuffer: 1 << 26 }) };
    } catch (e) {
      const failure = e as { status: number; stdout: string; stderr: string };
      return { code: failure.status, output: `${failure.stdout}${failure.stderr}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** qpdf --check exits 0 only when it finds neither errors nor warnings. */
const qpdfCheck = (bytes: Buffer) => runOn(bytes, 'qpdf', (file) => ['--check', file]);
/** Page 1 as poppler draws it (PNG bytes on stdout). */
const render = (bytes: Buffer) => runOn(bytes, 'pdftoppm', (file) => ['-r', '20', '-png', '-f', '1', '-l', '1', file]);

/** The file with the offset after its last startxref replaced (same number of digits). */
function withStartxref(bytes: Buffer, change: (offset: number) => number): Buffer {
  const at = bytes.lastIndexOf('startxref');
  const match = /startxref\s+(\d+)/.exec(bytes.toString('latin1', at)) as RegExpExecArray;
  const digitsAt = at + match[0].length - match[1].length;
  const copy = Buffer.from(bytes);
  copy.write(String(change(Number(match[1]))).padStart(match[1].length, '0'), digitsAt, 'latin1');
  return copy;
}

/** The file with `count` bytes of comment inserted after the header line: every recorded offset is now wrong. */
function shifted(bytes: Buffer, count = 100): Buffer {
  const lineEnd = bytes.indexOf('\n') + 1;
  const junk = Buffer.from(`%${'x'.repeat(count - 2)}\n`, 'latin1');
  return Buffer.concat([bytes.subarray(0, lineEnd), junk, bytes.subarray(lineEnd)]);
}

function replaceOnce(bytes: Buffer, from: string, to: string, fromIndex = 0): Buffer {
  const at = bytes.indexOf(from, fromIndex, 'latin1');
  if (at < 0) throw new Error(`"${from}" not found`);
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(to, 'latin1'), bytes.subarray(at + from.length)]);
}

describe('inspectPdf: files accepted as they are', () => {
  // Page counts as poppler's pdfinfo reports them.
  const accepted: [string, number][] = [
    ['normal.pdf', 2],
    ['us_constitution.pdf', 19],
    ['tracemonkey.pdf', 14],
    ['freeculture.pdf', 352],
    ['linearized_with_object_streams.pdf', 206],
    ['giraffe.pdf', 1],
    ['american_flag.pdf', 1],
    ['with_cropbox.pdf', 2],
    ['doc_2_3_pages.pdf', 3],
    ['with_update_sections.pdf', 1],
    ['with_signature.pdf', 1],
    ['already_signed.pdf', 1],
    ['sample_form.pdf', 1],
    ['fancy_fields.pdf', 1],
    ['prefilled_f1040.pdf', 2],
  ];

  it.each(accepted)('%s: unchanged, %i page(s), every page in exactly one geometry entry', async (name, pages) => {
    const bytes = readFixture('pdfs', name);
    const result = await inspect(bytes, name);
    expect(result.repaired).toBe(false);
    expect(result.bytes.equals(bytes)).toBe(true);
    expect(result.totalPages).toBe(pages);
    const listed = result.geometry.flatMap((entry) => fromRuns(entry.pages)).sort((a, b) => a - b);
    expect(listed).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
    for (const { mediaBox: m, cropBox: c } of result.geometry) {
      expect(c[0]).toBeGreaterThanOrEqual(m[0]);
      expect(c[1]).toBeGreaterThanOrEqual(m[1]);
      expect(c[0] + c[2]).toBeLessThanOrEqual(m[0] + m[2] + 1e-9);
      expect(c[1] + c[3]).toBeLessThanOrEqual(m[1] + m[3] + 1e-9);
    }
  });

  it('groups pages with the same boxes: the 352-page book is three entries, the constitution one', async () => {
    const book = await inspect(readFixture('pdfs', 'freeculture.pdf'));
    // pdfinfo -box: page 1 and 2 are Letter with their own crop boxes, pages 3-352 are 480x678 with one crop box.
    expect(book.geometry).toEqual([
      { pages: '1', mediaBox: [0, 0, 612, 792], cropBox: [61.2, 28.8, 489.6, 734.4], rotation: 0 },
      { pages: '2', mediaBox: [0, 0, 612, 792], cropBox: [86.4, 248.4, 439.2, 432], rotation: 0 },
      { pages: '3-352', mediaBox: [0, 0, 480, 678], cropBox: [41.76, 41.76, 396.48, 594.48], rotation: 0 },
    ]);
    expect(book.firstPageHeight).toBe(734.4);

    const constitution = await inspect(readFixture('pdfs', 'us_constitution.pdf'));
    expect(constitution.geometry).toEqual([
      { pages: '1-19', mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 0 },
    ]);
  });

  it('reports landscape and square pages as they are', async () => {
    const flag = await inspect(readFixture('pdfs', 'american_flag.pdf'));
    expect(flag.geometry).toEqual([{ pages: '1', mediaBox: [0, 0, 988, 520], cropBox: [0, 0, 988, 520], rotation: 0 }]);
    expect(flag.firstPageHeight).toBe(520);
    const giraffe = await inspect(readFixture('pdfs', 'giraffe.pdf'));
    expect(giraffe.geometry[0].mediaBox).toEqual([0, 0, 600, 600]);
  });

  it('reports rotation, inherited boxes and a crop box sticking out of the media box', async () => {
    const doc = PDF.create();
    const a = doc.addPage({ width: 612, height: 792 });
    a.setRotation(90);
    const b = doc.addPage({ width: 612, height: 792 });
    // x, y, width, height -50, 100, 400, 1000: clipped to the media box, [0, 100, 350, 692]
    b.dict.set('CropBox', new PdfArray([-50, 100, 350, 1100].map((v) => PdfNumber.of(v))));
    const c = doc.addPage({ width: 612, height: 792 });
    c.dict.set('Rotate', PdfNumber.of(-90));
    const bytes = Buffer.from(await doc.save());
    const result = await inspect(bytes);
    expect(result.geometry).toEqual([
      { pages: '1', mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 90 },
      { pages: '2', mediaBox: [0, 0, 612, 792], cropBox: [0, 100, 350, 692], rotation: 0 },
      { pages: '3', mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 270 },
    ]);
    // Page 1 is shown turned: 612 points tall.
    expect(result.firstPageHeight).toBe(612);
  });

  it('counts digital signatures (not empty signature fields, not Reader usage rights) and sees forms', async () => {
    const facts = async (name: string) => {
      const r = await inspect(readFixture('pdfs', name));
      return [r.signatureCount, r.hasAcroForm];
    };
    expect(await facts('already_signed.pdf')).toEqual([1, true]);
    expect(await facts('with_signature.pdf')).toEqual([0, true]); // an empty signature field
    expect(await facts('sample_form.pdf')).toEqual([0, true]); // /Perms /UR3 only
    expect(await facts('us_constitution.pdf')).toEqual([0, false]);
  });

  it('refuses already_signed_twice.pdf: the signing engine could only rewrite it, which would break its two signatures', async () => {
    const bytes = readFixture('pdfs', 'already_signed_twice.pdf');
    const at = bytes.lastIndexOf('startxref');
    const offset = Number(/startxref\s+(\d+)/.exec(bytes.toString('latin1', at))?.[1]);
    expect(bytes.toString('latin1', offset, offset + 5)).toBe('\nxref'); // one byte early
    await expectRefused(inspect(bytes), 422, Messages.pdfSignedAndDamaged);
    // A file it can append to, signatures and all, is accepted as it is.
    const signed = await inspect(readFixture('pdfs', 'already_signed.pdf'));
    expect([signed.repaired, signed.signatureCount]).toEqual([false, 1]);
  });

  it('inspects the two big files in plain Node, as the server runs (their times are a figure of npm run bench)', () => {
    // Run in a child Node process: Jest runs tests in a vm context, where V8 makes some string building (pdf-lib's
    // parser once called String.fromCharCode for every digit) hundreds of times slower, and compiles @libpdf/core
    // with Babel. Timing targets belong to the benchmark, not to a unit test on a busy machine; the times are printed
    // for information.
    const script = `
      const Module = require('node:module');
      const resolve = Module._resolveFilename;
      const mapped = ${JSON.stringify({
        '@esign/contract': require.resolve('@esign/contract'),
        '@esign/pdf-syntax': require.resolve('@esign/pdf-syntax'),
      })};
      Module._resolveFilename = function (request, ...rest) {
        return resolve.call(this, mapped[request] ?? request, ...rest);
      };
      require('ts-node').register({ transpileOnly: true, project: ${JSON.stringify(join(__dirname, '../../../../tsconfig.json'))} });
      const { readFileSync } = require('node:fs');
      const { inspectPdf } = require(${JSON.stringify(join(__dirname, 'inspect.ts'))});
      (async () => {
        const times = {};
        for (const file of ${JSON.stringify(['freeculture.pdf', 'linearized_with_object_streams.pdf'].map((name) => fixturePath('pdfs', name)))}) {
          const bytes = readFileSync(file);
          const wall = process.hrtime.bigint();
          const cpu = process.cpuUsage();
          const result = await inspectPdf({ bytes, filename: 'document.pdf', mimeType: 'application/pdf' });
          const used = process.cpuUsage(cpu);
          times[file.split('/').pop()] = {
            cpuMs: Math.round((used.user + used.system) / 1000),
            wallMs: Math.round(Number(process.hrtime.bigint() - wall) / 1e6),
            pages: result.totalPages,
          };
        }
        process.stdout.write(JSON.stringify(times));
      })();`;
    const times = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Record<
      string,
      { cpuMs: number; wallMs: number; pages: number }
    >;
    process.stdout.write(`inspectPdf, cold, plain Node: ${JSON.stringify(times)}\n`);
    expect(times['freeculture.pdf'].pages).toBe(352);
    expect(times['linearized_with_object_streams.pdf'].pages).toBe(206);
  });
});

describe('inspectPdf: refusals, each a 4xx with a message for the user', () => {
  it('refuses a name or MIME type the spec does not allow', async () => {
    const bytes = readFixture('pdfs', 'normal.pdf');
    for (const [filename, mime] of [
      ['a.b.pdf', 'image/png'],
      ['document.pdf', 'image/png'],
      ['document.txt', 'application/pdf'],
      ['pdf', 'application/pdf'],
      ['.pdf', 'application/pdf'],
      ['document.pdf.exe', 'application/pdf'],
      ['document.pdf', ''],
    ]) {
      await expectRefused(inspect(bytes, filename, mime), 415, Messages.invalidPdf);
    }
  });

  it('names the rule a PDF name with more than one dot breaks', async () => {
    const bytes = readFixture('pdfs', 'normal.pdf');
    for (const filename of ['a.b.pdf', 'my.contract.pdf', 'v1..final.PDF', '.hidden.pdf'])
      await expectRefused(inspect(bytes, filename), 415, Messages.pdfFileNameDots);
    for (const filename of ['.pdf', '...pdf', 'document.pdf.exe'])
      await expectRefused(inspect(bytes, filename), 415, Messages.invalidPdf);
  });

  it('accepts the extension in any case', async () => {
    const result = await inspect(readFixture('pdfs', 'normal.pdf'), 'CONTRACT.PDF', 'Application/PDF');
    expect(result.totalPages).toBe(2);
  });

  it('refuses a PNG named x.pdf as an invalid format', async () => {
    await expectRefused(inspect(readFixture('faces', 'coffee.png'), 'x.pdf'), 415, Messages.invalidPdf);
  });

  it('refuses 5,242,880 bytes or more as too large, and checks the size before the content', async () => {
    const sixMb = Buffer.alloc(6 * 1024 * 1024, 0x20);
    sixMb.write('%PDF-1.7\n', 'latin1');
    await expectRefused(inspect(sixMb), 413, Messages.fileTooLarge);
    await expectRefused(inspect(sixMb.subarray(0, Limits.maxFileBytes)), 413, Messages.fileTooLarge);
    // One byte under the limit passes the size check and is refused for what it is: not a readable PDF.
    await expectRefused(inspect(sixMb.subarray(0, Limits.maxFileBytes - 1)), 422, Messages.pdfDamaged);
  });

  it('requires %PDF- at byte 0', async () => {
    const bytes = readFixture('pdfs', 'normal.pdf');
    await expectRefused(inspect(Buffer.concat([Buffer.from('\n'), bytes])), 415, Messages.invalidPdf);
    await expectRefused(inspect(Buffer.alloc(0)), 415, Messages.invalidPdf);
  });

  it('refuses encrypted_new.pdf as password protected, not as damaged', async () => {
    await expectRefused(inspect(readFixture('pdfs', 'encrypted_new.pdf')), 422, Messages.pdfEncrypted);
  });

  it('sees /Encrypt in a classic trailer too', async () => {
    const bytes = readFixture('pdfs', 'normal.pdf');
    const trailer = bytes.lastIndexOf('trailer');
    await expectRefused(
      inspect(replaceOnce(bytes, '/Info 1 0 R', '/Encrypt 1 0 R', trailer)),
      422,
      Messages.pdfEncrypted,
    );
  });

  it('refuses missing_xref_trailer_dict.pdf as damaged (no trailer to rebuild from)', async () => {
    await expectRefused(inspect(readFixture('pdfs', 'missing_xref_trailer_dict.pdf')), 422, Messages.pdfDamaged);
  });

  it('refuses with_invalid_objects.pdf as damaged (objects that do not parse)', async () => {
    await expectRefused(inspect(readFixture('pdfs', 'with_invalid_objects.pdf')), 422, Messages.pdfDamaged);
  });

  it('refuses a truncated upload, a PDF without pages and garbage behind a header as damaged', async () => {
    const normal = readFixture('pdfs', 'normal.pdf');
    await expectRefused(inspect(normal.subarray(0, normal.length >> 1)), 422, Messages.pdfDamaged);

    const noPages = Buffer.from(await PDF.create().save());
    await expectRefused(inspect(noPages), 422, Messages.pdfDamaged);

    const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), readFixture('faces', 'chelsea.png')]);
    await expectRefused(inspect(garbage), 422, Messages.pdfDamaged);
  });

  it('refuses a page tree that lists a page twice or contains itself', async () => {
    const tree = (kids: string) =>
      handWritten([
        '<< /Type /Catalog /Pages 2 0 R >>',
        `<< /Type /Pages /Kids [${kids}] /Count 2 >>`,
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      ]);
    expect((await inspect(tree('3 0 R'))).totalPages).toBe(1);
    await expectRefused(inspect(tree('3 0 R 3 0 R')), 422, Messages.pdfDamaged);
    await expectRefused(inspect(tree('2 0 R 3 0 R')), 422, Messages.pdfDamaged);
  });

  it('refuses a linearized file cut off in the middle, though its first cross-reference section still reads', async () => {
    const bytes = readFixture('pdfs', 'doc_2_3_pages.pdf');
    await expectRefused(inspect(bytes.subarray(0, bytes.length >> 1)), 422, Messages.pdfDamaged);
  });

  it('refuses a page that is its own ancestor through /Parent', async () => {
    const tree = (pageParent: string) =>
      handWritten([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent ${pageParent} /MediaBox [0 0 612 792] >>`,
      ]);
    expect((await inspect(tree('2 0 R'))).totalPages).toBe(1);
    await expectRefused(inspect(tree('3 0 R')), 422, Messages.pdfDamaged);
  });

  it('refuses an object stream that inflates to a gigabyte before it is decoded', async () => {
    // 1 GiB of zeros in about 1 MB: sync-flushed segments of 1 MiB of zeros repeat as they are.
    const segment = deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: zlibConstants.Z_SYNC_FLUSH, level: 9 });
    const bomb = Buffer.concat([
      Buffer.from([0x78, 0xda]),
      ...Array<Buffer>(1024).fill(segment),
      deflateRawSync(Buffer.alloc(0)),
    ]);
    const objStm = Buffer.concat([
      Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`),
      bomb,
      Buffer.from('\nendstream'),
    ]);
    const started = Date.now();
    await expectRefused(
      inspect(
        handWritten([
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
          objStm,
        ]),
      ),
      422,
      Messages.pdfDamaged,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

/** A PDF written by hand from object bodies (object i + 1 is bodies[i]), with a correct cross-reference table. */
function handWritten(bodies: Array<string | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0].length;
  bodies.forEach((body, i) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`];
  for (const offset of offsets) xref.push(`${String(offset).padStart(10, '0')} 00000 n \n`);
  xref.push(`trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return Buffer.concat([...parts, Buffer.from(xref.join(''))]);
}

describe('inspectPdf: repair', () => {
  it('rebuilds a file whose every offset is wrong, and the result passes as written', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const broken = shifted(original);
    expect(qpdfCheck(broken).output).toMatch(/file is damaged|xref not found|Attempting to reconstruct/);

    const result = await inspect(broken);
    expect(result.repaired).toBe(true);
    expect(result.bytes.equals(broken)).toBe(false);
    expect(result.totalPages).toBe(2);
    expect(result.geometry).toEqual((await inspect(original)).geometry);

    const again = await inspect(result.bytes);
    expect(again.repaired).toBe(false);
    expect(again.bytes.equals(result.bytes)).toBe(true);
    // An independent reader finds nothing wrong with the rewrite (not even the original's offset-0 warnings).
    expect(qpdfCheck(result.bytes)).toEqual({ code: 0, output: expect.not.stringMatching(/WARNING/) });
  });

  it('rebuilds a file whose startxref points nowhere', async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const result = await inspect(withStartxref(original, (offset) => offset - 4321));
    expect(result.repaired).toBe(true);
    expect(result.totalPages).toBe(19);
  });

  it('rebuilds a file that lost its xref table but kept its trailer', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const xref = original.lastIndexOf('\nxref') + 1;
    const trailer = original.lastIndexOf('trailer');
    const broken = Buffer.concat([original.subarray(0, xref), original.subarray(trailer)]);
    const result = await inspect(broken);
    expect(result.repaired).toBe(true);
    expect(result.totalPages).toBe(2);
  });

  it('rebuilds a file whose /Root names an object that is not the catalog (a rebuilding reader finds it, others not)', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const broken = replaceOnce(original, '/Root 50 0 R', '/Root 1 0 R ', original.lastIndexOf('trailer'));
    expect(runOn(broken, 'pdfinfo', (file) => [file]).code).not.toBe(0);
    const result = await inspect(broken);
    expect(result.repaired).toBe(true);
    expect(result.totalPages).toBe(2);
    expect(runOn(result.bytes, 'pdfinfo', (file) => [file]).output).toMatch(/Pages:\s+2/);
  });

  it('keeps the newest version of each object of a file with incremental updates', async () => {
    const original = readFixture('pdfs', 'with_update_sections.pdf');
    const result = await inspect(shifted(original));
    expect(result.repaired).toBe(true);
    expect(result.totalPages).toBe(1);
    // poppler, reading the original through its xref chain (newest objects), draws the very same page.
    const before = render(original);
    expect(before.code).toBe(0);
    expect(render(result.bytes)).toEqual(before);
  });

  it('never rewrites a signed file: a damaged signed file is refused with its own message', async () => {
    const broken = shifted(readFixture('pdfs', 'already_signed.pdf'));
    await expectRefused(inspect(broken), 422, Messages.pdfSignedAndDamaged);
  });

  it('tolerates a startxref a few bytes off, as readers do, and rebuilds beyond that', async () => {
    const original = readFixture('pdfs', 'normal.pdf');
    const near = await inspect(withStartxref(original, (offset) => offset + 3));
    expect(near.repaired).toBe(false);
    const far = await inspect(withStartxref(original, (offset) => offset + 20));
    expect(far.repaired).toBe(true);
  });
});
