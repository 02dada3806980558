import { deflateSync } from 'node:zlib';
import { readFixture } from '@esign/test-support';
import { isDict, nameOf, PdfRef, sameValue } from './lexer';
import { endsInsideObject, objectByEntries, objectKindByEntries, PdfObjects, streamByEntries } from './objects';
import { rebuildCrossReference } from './rebuild';
import { readCrossReference } from './xref';

const fixture = (name: string) => readFixture('pdfs', name);

/** The file with `count` bytes of comment after the header line: every recorded offset is now wrong. */
function shifted(bytes: Buffer, count = 100): Buffer {
  const lineEnd = bytes.indexOf('\n') + 1;
  return Buffer.concat([
    bytes.subarray(0, lineEnd),
    Buffer.from(`%${'x'.repeat(count - 2)}\n`, 'latin1'),
    bytes.subarray(lineEnd),
  ]);
}

/** Object numbers in use by the cross-reference data (entries at offset 0 read as null and are left out). */
const inUse = (bytes: Buffer) =>
  [...readCrossReference(bytes).entries].filter(
    ([num, entry]) => num !== 0 && entry !== null && !(entry.type === 1 && entry.offset === 0),
  );

describe('PdfObjects: objects by number as a rebuilding reader finds them', () => {
  it.each([
    'normal.pdf',
    'us_constitution.pdf',
    'with_update_sections.pdf', // redefines objects in an update
    'already_signed_twice.pdf',
    'fancy_fields.pdf', // object streams
    'sample_form.pdf',
    'linearized_with_object_streams.pdf', // 85,334 entries, most in object streams
  ])('%s: every object the cross-reference data lists, with the same value', (name) => {
    const bytes = fixture(name);
    const objects = new PdfObjects(bytes);
    const { entries } = readCrossReference(bytes);
    const listed = inUse(bytes);
    expect(listed.length).toBeGreaterThan(0);
    const streams = new Map();
    const differing = listed
      .filter(([num]) => !sameValue(objects.get(num)?.value, objectByEntries(bytes, entries, num, undefined, streams)))
      .map(([num]) => num);
    expect(differing).toEqual([]);
  });

  it('reads stream data, an indirect /Length included, and tells where each object starts', () => {
    const bytes = Buffer.from(
      '%PDF-1.7\n1 0 obj\n<< /Length 2 0 R >>\nstream\nhello\nendstream\nendobj\n2 0 obj\n5\nendobj\n',
      'latin1',
    );
    const objects = new PdfObjects(bytes);
    const stream = objects.get(1)!;
    expect(objects.streamData(stream)?.toString('latin1')).toBe('hello');
    expect(objects.headers.map((h) => [h.num, h.offset])).toEqual([
      [1, 9],
      [2, bytes.indexOf('2 0 obj')],
    ]);
    expect(objects.headerBefore(bytes.indexOf('hello'))?.num).toBe(1);
  });

  it('keeps going past an object stream that would inflate beyond its budget', () => {
    const bomb = deflateSync(Buffer.alloc(8 << 20));
    const bytes = Buffer.concat([
      Buffer.from(
        `%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`,
      ),
      bomb,
      Buffer.from('\nendstream\nendobj\n'),
    ]);
    const objects = new PdfObjects(bytes, { inflatable: 1 << 20 });
    expect(objects.objectStreams()).toEqual([]);
    expect(objects.get(5)).toBeNull();
  });
});

describe('reading by the cross-reference data', () => {
  it('finds a compressed object by its number when its entry gives another index, as readers do', () => {
    const bytes = fixture('fancy_fields.pdf');
    const { entries } = readCrossReference(bytes);
    const [num, entry] = [...entries].find(([, e]) => e?.type === 2) as [
      number,
      { type: 2; stream: number; index: number },
    ];
    const wrong = new Map(entries).set(num, { ...entry, index: entry.index + 50 });
    expect(objectByEntries(bytes, wrong, num)).toEqual(objectByEntries(bytes, entries, num));
    expect(objectByEntries(bytes, wrong, num)).not.toBeUndefined();
  });

  it('tells a stream object from a dictionary without finding its data, as streamByEntries does for sound streams', () => {
    for (const name of ['normal.pdf', 'fancy_fields.pdf', 'freeculture.pdf']) {
      const bytes = fixture(name);
      const { entries } = readCrossReference(bytes);
      let streams = 0;
      for (const [num, entry] of entries) {
        if (!entry || (entry.type === 1 && entry.offset === 0)) continue;
        const kind = objectKindByEntries(bytes, entries, num);
        expect(kind.value).toEqual(objectByEntries(bytes, entries, num));
        expect(kind.stream).toBe(streamByEntries(bytes, entries, num) !== undefined);
        if (kind.stream) streams++;
      }
      expect(streams).toBeGreaterThan(0);
    }
    // A dictionary followed by anything but the keyword is not a stream; a stream without its endstream still is.
    const text = '%PDF-1.7\n1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /Length 99 >>\nstream\nabc';
    const bytes = Buffer.from(text, 'latin1');
    const entries = new Map([
      [1, { type: 1 as const, offset: text.indexOf('1 0 obj'), gen: 0 }],
      [2, { type: 1 as const, offset: text.indexOf('2 0 obj'), gen: 0 }],
    ]);
    expect(objectKindByEntries(bytes, entries, 1).stream).toBe(false);
    expect(objectKindByEntries(bytes, entries, 2).stream).toBe(true);
    expect(streamByEntries(bytes, entries, 2)).toBeUndefined();
  });

  it('tells a file cut off inside an object', () => {
    for (const name of ['doc_2_3_pages.pdf', 'normal.pdf', 'fancy_fields.pdf', 'linearized_with_object_streams.pdf']) {
      const bytes = fixture(name);
      expect(endsInsideObject(bytes)).toBe(false);
      expect(endsInsideObject(bytes.subarray(0, bytes.length >> 1))).toBe(true);
    }
    const complete = Buffer.from('%PDF-1.7\n1 0 obj\n<< /A 1 >>\nxref\n', 'latin1');
    expect(endsInsideObject(complete)).toBe(false);
  });
});

describe('rebuildCrossReference', () => {
  it.each(['normal.pdf', 'with_update_sections.pdf', 'fancy_fields.pdf'])(
    '%s with every offset wrong reads as the original again',
    (name) => {
      const original = fixture(name);
      const broken = shifted(original);
      expect(readCrossReference(broken).problems).not.toEqual([]);
      const rebuilt = rebuildCrossReference(broken)!;
      expect(rebuilt.bytes.subarray(0, broken.length).equals(broken)).toBe(true);
      const again = readCrossReference(rebuilt.bytes);
      expect(again.problems).toEqual([]);
      const { entries } = readCrossReference(original);
      const differing = inUse(original)
        .filter(
          ([num]) =>
            !sameValue(objectByEntries(rebuilt.bytes, again.entries, num), objectByEntries(original, entries, num)),
        )
        .map(([num]) => num);
      expect(differing).toEqual([]);
      const root = again.trailers[0].get('Root');
      expect(root).toBeInstanceOf(PdfRef);
      expect(
        nameOf(
          (objectByEntries(rebuilt.bytes, again.entries, (root as PdfRef).num) as Map<string, never>)?.get('Type'),
        ),
      ).toBe('Catalog');
    },
  );

  it('names the catalog when the trailer names something else, and keeps /Info and /ID', () => {
    const original = fixture('normal.pdf');
    const at = original.lastIndexOf('/Root 50 0 R');
    const broken = Buffer.concat([original.subarray(0, at), Buffer.from('/Root 1 0 R '), original.subarray(at + 12)]);
    const rebuilt = rebuildCrossReference(broken)!;
    expect(rebuilt.root).toBe(50);
    const trailer = readCrossReference(rebuilt.bytes).trailers[0];
    expect(trailer.get('Info')).toEqual(new PdfRef(1, 0));
    expect(Array.isArray(trailer.get('ID'))).toBe(true);
  });

  it('answers undefined for a file without a catalog', () => {
    const bytes = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n', 'latin1');
    expect(rebuildCrossReference(bytes)).toBeUndefined();
    expect(isDict(new PdfObjects(bytes).get(1)?.value)).toBe(true);
  });
});
