/** The bytes [start, end] (inclusive) of a document an HTTP Range header asks for. */
export interface ByteRange {
  start: number;
  end: number;
}

const SINGLE = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/**
 * Reads a Range header against a document of `size` bytes (RFC 9110, section 14): a range to answer 206 with, 'none'
 * when the whole document is to be answered 200 (no header, another unit, a malformed or a multi-part range: a server
 * may ignore those, and viewers such as pdf.js ask for one range at a time), or 'unsatisfiable' (416) when the range
 * starts beyond the end or asks for the last 0 bytes.
 */
export function byteRange(header: string | undefined, size: number): ByteRange | 'none' | 'unsatisfiable' {
  if (header === undefined) return 'none';
  const match = SINGLE.exec(header);
  if (!match) return 'none';
  const [, first, last] = match;
  if (first === '' && last === '') return 'none';
  if (first === '') {
    // A suffix: the last N bytes (all of them when N exceeds the document).
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(size - length, 0), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return 'none';
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
