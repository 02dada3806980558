import { spawnSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { readCrossReference } from '@esign/pdf-syntax';
import { fixturePath, readFixture } from '../../../../test/support/fixtures';
import { analyseStructure } from './structure';

/** qpdf's own reading of the cross-reference data, one line per in-use object. */
function qpdfXref(name: string): string[] {
  const run = spawnSync('qpdf', ['--show-xref', fixturePath('pdfs', name)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.error) throw run.error;
  return run.stdout.split('\n').filter((line) => /^\d+\/\d+: /.test(line));
}

function ourXref(bytes: Buffer): string[] {
  const lines: string[] = [];
  for (const [num, entry] of readCrossReference(bytes).entries) {
    if (num === 0 || entry === null) continue;
    lines.push(
      entry.type === 1
        ? `${num}/${entry.gen}: uncompressed; offset = ${entry.offset}`
        : `${num}/0: compressed; stream = ${entry.stream}, index = ${entry.index}`,
    );
  }
  return lines;
}

const byNumber = (lines: string[]) => [...lines].sort((a, b) => parseInt(a) - parseInt(b) || a.localeCompare(b));

/** The file with the offset of `num`'s entry in its newest classic xref table changed by `delta`. */
function nudgeEntry(bytes: Buffer, num: number, delta: number): Buffer {
  const text = bytes.toString('latin1');
  const xref = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))?.[1]);
  expect(text.slice(xref, xref + 4)).toBe('xref');
  const header = /xref\s+(\d+)\s+(\d+)\s+/.exec(text.slice(xref)) as RegExpExecArray;
  const first = Number(header[1]);
  const entryAt = xref + header[0].length + (num - first) * 20;
  const offset = Number(text.slice(entryAt, entryAt + 10));
  expect(bytes.toString('latin1', offset, offset + `${num} 0 obj`.length)).toBe(`${num} 0 obj`);
  const copy = Buffer.from(bytes);
  copy.write(String(offset + delta).padStart(10, '0'), entryAt, 'latin1');
  return copy;
}

describe('cross-reference reading', () => {
  it.each([
    'normal.pdf',
    'us_constitution.pdf',
    'tracemonkey.pdf',
    'freeculture.pdf', // linearized, cross-reference streams
    'linearized_with_object_streams.pdf', // 85,334 entries, most in object streams
    'giraffe.pdf',
    'american_flag.pdf',
    'with_cropbox.pdf',
    'doc_2_3_pages.pdf',
    'with_update_sections.pdf',
    'with_signature.pdf',
    'already_signed.pdf',
    'already_signed_twice.pdf',
    'sample_form.pdf',
    'fancy_fields.pdf',
    'prefilled_f1040.pdf',
  ])('%s: the same entries qpdf reads, and nothing to repair', (name) => {
    const bytes = readFixture('pdfs', name);
    const expected = qpdfXref(name);
    expect(expected.length).toBeGreaterThan(0);
    expect(byNumber(ourXref(bytes))).toEqual(byNumber(expected));
    const report = analyseStructure(bytes);
    expect(report.problems).toEqual([]);
    expect(report.encrypted).toBe(false);
    expect(report.trailerWithRoot).toBe(true);
  });

  it('warns, as qpdf does, about the in-use entries of normal.pdf at offset 0', () => {
    const report = analyseStructure(readFixture('pdfs', 'normal.pdf'));
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([13, 16, 43, 46, 48].map((n) => `object ${n} has offset 0 (read as null)`));
  });

  it('finds /Encrypt in the cross-reference stream of encrypted_new.pdf', () => {
    const report = analyseStructure(readFixture('pdfs', 'encrypted_new.pdf'));
    expect(report.encrypted).toBe(true);
  });

  it('tells a file with no trailer from one whose trailer survived', () => {
    const noTrailer = analyseStructure(readFixture('pdfs', 'missing_xref_trailer_dict.pdf'));
    expect(noTrailer.problems).toEqual(['no startxref']);
    expect(noTrailer.trailerWithRoot).toBe(false);

    const badOffsets = analyseStructure(readFixture('pdfs', 'with_invalid_objects.pdf'));
    expect(badOffsets.problems).toEqual([expect.stringContaining('no readable cross-reference section at byte 693')]);
    expect(badOffsets.trailerWithRoot).toBe(true);
  });

  it('accepts an object a few bytes from its recorded offset, not one 20 bytes away', () => {
    const bytes = readFixture('pdfs', 'us_constitution.pdf');
    expect(analyseStructure(bytes).problems).toEqual([]);
    expect(analyseStructure(nudgeEntry(bytes, 5, 3)).problems).toEqual([]);
    expect(analyseStructure(nudgeEntry(bytes, 5, -3)).problems).toEqual([]);
    expect(analyseStructure(nudgeEntry(bytes, 5, 20)).problems).toEqual([
      '1 object(s) are not where the cross-reference data says (5)',
    ]);
  });

  it('stops at a /Prev chain that loops', () => {
    const bytes = readFixture('pdfs', 'normal.pdf');
    const text = bytes.toString('latin1');
    const offset = /startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))?.[1];
    const trailer = text.lastIndexOf('trailer');
    const looping = Buffer.from(
      text.slice(0, trailer) + text.slice(trailer).replace('/Size 114', `/Size 114 /Prev ${offset}`),
      'latin1',
    );
    expect(analyseStructure(looping).problems).toEqual([`the cross-reference chain loops at byte ${offset}`]);
  });
});

describe('crafted input', () => {
  it('a flood of unterminated trailer dictionaries is read in linear time', () => {
    // Linear, not fast: four times the input may cost about four times the time, never the sixteen a
    // quadratic scan would. The best of three runs of each size keeps a busy machine's pauses out of it.
    const flood = (n: number) => Buffer.from(`%PDF-1.7\n${'trailer<</A('.repeat(n)}`, 'latin1');
    const best = (buf: Buffer) => {
      let fastest = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = process.hrtime.bigint();
        const report = analyseStructure(buf);
        fastest = Math.min(fastest, Number(process.hrtime.bigint() - started) / 1e6);
        expect(report.problems).toEqual(['no startxref']);
        expect(report.trailerWithRoot).toBe(false);
      }
      return fastest;
    };
    const small = best(flood(100_000));
    const large = best(flood(400_000));
    expect(large / Math.max(small, 1)).toBeLessThan(9);
  });

  it('a cross-reference stream that would inflate past the budget is unreadable, not fatal', () => {
    const bomb = deflateSync(Buffer.alloc(80 * 1024 * 1024));
    const head = Buffer.from(
      `%PDF-1.7\n1 0 obj\n<</Type/XRef/Size 2/W[1 2 1]/Root 2 0 R/Filter/FlateDecode/Length ${bomb.length}>>stream\n`,
      'latin1',
    );
    const tail = Buffer.from('\nendstream\nendobj\nstartxref\n9\n%%EOF\n', 'latin1');
    const report = analyseStructure(Buffer.concat([head, bomb, tail]));
    expect(report.problems).toEqual([expect.stringMatching(/^no readable cross-reference section at byte 9 \(.*/)]);
  });
});
