import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFixture } from '@esign/test-support';
import { PdfLexer, PdfName, PdfRef, PdfString, type PdfDict, type PdfValue } from './lexer';
import { objectByEntries } from './objects';
import { numberText, PdfRawObject, PdfStreamValue, valueText, writeUpdate } from './write';
import { readCrossReference, readStartxref } from './xref';

const fixture = (name: string) => readFixture('pdfs', name);
const parse = (text: string) => new PdfLexer(Buffer.from(text, 'latin1'), 0).readValue();

/** The file with one update appended that gives page 1 a new /Rotate and adds a stream, the catalog unchanged. */
function updated(name: string) {
  const buf = fixture(name);
  const xref = readCrossReference(buf);
  const root = xref.trailers.map((t) => t.get('Root')).find((r) => r instanceof PdfRef) as PdfRef;
  const catalog = objectByEntries(buf, xref.entries, root.num) as PdfDict;
  const pages = objectByEntries(buf, xref.entries, (catalog.get('Pages') as PdfRef).num) as PdfDict;
  let first = (pages.get('Kids') as PdfRef[])[0];
  let page = objectByEntries(buf, xref.entries, first.num) as PdfDict;
  while ((page.get('Type') as PdfName).name === 'Pages') {
    first = (page.get('Kids') as PdfRef[])[0];
    page = objectByEntries(buf, xref.entries, first.num) as PdfDict;
  }
  const size = Math.max(...xref.entries.keys()) + 1;
  const changed: PdfDict = new Map(page);
  changed.set('Rotate', 90);
  const update = writeUpdate(
    buf.length,
    buf[buf.length - 1] === 0x0a,
    new Map<number, { gen: number; body: PdfValue | PdfStreamValue }>([
      [first.num, { gen: first.gen, body: changed }],
      [size, { gen: 0, body: new PdfStreamValue(new Map([['Esign', true]]), Buffer.from('q Q')) }],
    ]),
    {
      size: size + 1,
      root,
      info: xref.trailers.map((t) => t.get('Info')).find((v) => v !== undefined),
      id: xref.trailers.map((t) => t.get('ID')).find((v) => v !== undefined),
      prev: readStartxref(buf) as number,
    },
    (xref.trailers[0].get('Type') as PdfName | undefined)?.name === 'XRef',
  );
  return { buf, update, first, size, out: Buffer.concat([buf, update.bytes]) };
}

describe('writing values', () => {
  it.each<[PdfValue, string]>([
    [null, 'null'],
    [true, 'true'],
    [12, '12'],
    [-0.5, '-0.5'],
    [61.199997, '61.199997'],
    [1 / 3, '0.333333'],
    [new PdfName('A B#'), '/A#20B#23'],
    [new PdfRef(12, 0), '12 0 R'],
    [new PdfString(Buffer.from('(x)\\')), '<2878295c>'],
    [[1, new PdfName('N'), [true]], '[1 /N [true]]'],
  ])('%p is written as %s', (value, text) => {
    expect(valueText(value)).toBe(text);
  });

  it('reads back what it writes (dictionaries, strings of any bytes, names with delimiters)', () => {
    const value = parse('<</Type /Page /Kids [1 0 R 2 0 R] /S (a\\(b\\)\\n\\377) /N /A#2FB /R 0.25 /D <</X null>>>>');
    expect(parse(valueText(value))).toEqual(value);
  });

  it('writes no exponent, however small or large the number', () => {
    expect(numberText(1e-9)).toBe('0');
    expect(numberText(123456789.25)).toBe('123456789.25');
    expect(numberText(-1e-7)).toBe('0');
    expect(() => numberText(Number.NaN)).toThrow();
  });
});

describe('writeUpdate: one incremental update', () => {
  it.each(['normal.pdf', 'with_update_sections.pdf', 'doc_2_3_pages.pdf', 'linearized_with_object_streams.pdf'])(
    '%s: the original bytes unchanged, the new objects read where the new section says, qpdf clean',
    (name) => {
      const { buf, update, first, size, out } = updated(name);
      expect(out.subarray(0, buf.length).equals(buf)).toBe(true);
      const xref = readCrossReference(out);
      expect(xref.problems).toEqual([]);
      expect((objectByEntries(out, xref.entries, first.num) as PdfDict).get('Rotate')).toBe(90);
      expect((objectByEntries(out, xref.entries, size) as PdfDict).get('Esign')).toBe(true);
      expect(readStartxref(out)).toBe(update.startxref);
      const dir = mkdtempSync(join(tmpdir(), 'pdf-syntax-write-'));
      try {
        writeFileSync(join(dir, 'out.pdf'), out);
        writeFileSync(join(dir, 'in.pdf'), buf);
        // No warning the original did not draw already (normal.pdf's own cross-reference table has offsets of 0).
        const warnings = (file: string) => {
          const check = spawnSync('qpdf', ['--check', join(dir, file)], { encoding: 'utf8' });
          expect(check.status === 0 || check.status === 3).toBe(true);
          return (check.stdout + check.stderr)
            .split('\n')
            .filter((l) => /WARNING/.test(l))
            .map((l) => l.split(file).join(''));
        };
        const before = warnings('in.pdf');
        expect(warnings('out.pdf').filter((w) => !before.includes(w))).toEqual([]);
        const info = execFileSync('pdfinfo', ['-f', '1', '-l', '1', join(dir, 'out.pdf')], { encoding: 'utf8' });
        expect(info).toMatch(/Page +1 rot: +90/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('writes a table after a table and a cross-reference stream after a stream', () => {
    expect(updated('normal.pdf').update.bytes.toString('latin1')).toMatch(/\nxref\n[\s\S]*trailer\n<<\/Size/);
    expect(updated('doc_2_3_pages.pdf').update.bytes.toString('latin1')).toMatch(/\/Type \/XRef/);
  });

  it('answers where the marks of a raw object are, to patch its bytes in place', () => {
    const buf = fixture('normal.pdf');
    const raw = Buffer.from('<</Contents <0000>>>', 'latin1');
    const update = writeUpdate(
      buf.length,
      true,
      new Map([[500, { gen: 0, body: new PdfRawObject(raw, { contents: raw.indexOf('<0000>') }) }]]),
      { size: 501, root: new PdfRef(1, 0), prev: 0 },
      false,
    );
    const at = update.marks.contents - buf.length;
    expect(update.bytes.toString('latin1', at, at + 6)).toBe('<0000>');
    expect(update.offsets.get(500)).toBe(buf.length);
  });
});
