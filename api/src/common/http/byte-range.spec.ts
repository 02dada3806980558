import { byteRange } from './byte-range';

describe('byteRange (HTTP Range against a document of 1000 bytes)', () => {
  it('reads one range: closed, open, past the end (cut), a suffix and a suffix longer than the document', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
    expect(byteRange('bytes=-10', 1000)).toEqual({ start: 990, end: 999 });
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(byteRange('bytes=999-999', 1000)).toEqual({ start: 999, end: 999 });
  });

  it('is unsatisfiable when the range starts at or beyond the end, or asks for the last 0 bytes', () => {
    expect(byteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(byteRange('bytes=1000-2000', 1000)).toBe('unsatisfiable');
    expect(byteRange('bytes=-0', 1000)).toBe('unsatisfiable');
  });

  it('answers the whole document to no header, several ranges, another unit or a malformed range', () => {
    for (const header of [undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=5-1', 'bytes=-', 'bytes=a-b', 'bytes 0-1'])
      expect(byteRange(header, 1000)).toBe('none');
  });
});
