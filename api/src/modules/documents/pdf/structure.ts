import {
  endsToken,
  isBeyondBudget,
  isObjectHeader,
  listOf,
  locate,
  MAX_DICT_BYTES,
  nameOf,
  numberOf,
  PdfLexer,
  PdfRef,
  readCrossReference,
  scanTrailerDictionaries,
  startsWithAt,
  inflate,
  XREF_DICT_LOOKBACK,
  type PdfDict,
  type CrossReference,
} from '@esign/pdf-syntax';

/**
 * The file structure as a reader that trusts the cross-reference data sees it (ISO 32000-1, 7.5): `startxref`, the
 * chain of cross-reference tables or streams through /Prev (and /XRefStm), the trailer, and whether every object is
 * where that data says (read by @esign/pdf-syntax). A file whose data is wrong is not loaded as it is: @libpdf/core
 * would fall back to recovering it by itself, and other readers (and signature validators, which compute byte ranges
 * from it) would read it wrongly.
 */
export interface StructureReport {
  /** What makes the cross-reference data unusable as written. Empty: the file reads as written. */
  problems: string[];
  /** Irregularities readers accept (an in-use entry at offset 0 reads as a null object; /Size too large). */
  warnings: string[];
  /** An /Encrypt entry in some trailer or cross-reference stream dictionary. */
  encrypted: boolean;
  /** Some trailer or cross-reference stream dictionary in the file names the /Root catalog. */
  trailerWithRoot: boolean;
  /** The object number of the /Root the cross-reference chain's trailer names. */
  root?: number;
  /** `/ByteRange` occurs in the file: it carries (or prepares) a signature dictionary. */
  byteRangeSeen: boolean;
  /** Cross-reference sections read through the chain. */
  sections: number;
  /** In-use objects the merged cross-reference data lists. */
  objects: number;
  /** The cross-reference data as read: merged entries (newest section winning) and trailers. */
  xref: CrossReference;
  /**
   * Why loading the file would decode too much (see checkLoadDecoding): the strict load parses every object, which
   * inflates every object stream, and @libpdf/core inflates with no bound. Undefined: within bounds.
   */
  loadTooCostly?: string;
}

const MAX_WARNINGS = 20;

export function analyseStructure(buf: Buffer): StructureReport {
  const warnings: string[] = [];
  const warn = (text: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(text);
  };
  const xref = readCrossReference(buf);
  const { entries: merged, trailers } = xref;
  const problems = [...xref.problems];
  const scanned = scanTrailerDictionaries(buf);
  const hasRoot = (d: PdfDict) => d.get('Root') instanceof PdfRef;

  let objects = 0;
  const root = trailers.find(hasRoot)?.get('Root') as PdfRef | undefined;
  if (trailers.length > 0) {
    const size = numberOf(trailers[0].get('Size'));
    const rootEntry = root ? merged.get(root.num) : undefined;
    if (!root) problems.push('the trailer has no /Root');
    else if (!rootEntry || (rootEntry.type === 1 && rootEntry.offset === 0))
      problems.push(`the catalog (object ${root.num}) is not in the cross-reference data`);
    if (size === undefined) problems.push('the trailer has no /Size');

    const misplaced: number[] = [];
    for (const [num, entry] of merged) {
      if (num === 0 || entry === null) continue;
      objects++;
      if (size !== undefined && num >= size) warn(`object ${num} is beyond /Size ${size}`);
      if (entry.type === 1) {
        if (entry.offset === 0) warn(`object ${num} has offset 0 (read as null)`);
        else if (locate(buf, entry.offset, (p) => isObjectHeader(buf, p, num, entry.gen)) < 0) misplaced.push(num);
      } else {
        const container = merged.get(entry.stream);
        if (!container || container.type !== 1) misplaced.push(num);
      }
    }
    if (misplaced.length > 0) {
      problems.push(
        `${misplaced.length} object(s) are not where the cross-reference data says (${misplaced.slice(0, 5).join(', ')}${misplaced.length > 5 ? ', …' : ''})`,
      );
    }
  }

  return {
    problems,
    warnings,
    encrypted: [...trailers, ...scanned].some((d) => d.has('Encrypt')),
    trailerWithRoot: [...trailers, ...scanned].some(hasRoot),
    root: root?.num,
    byteRangeSeen: buf.indexOf('/ByteRange') >= 0,
    sections: trailers.length,
    objects,
    xref,
    loadTooCostly: checkLoadDecoding(buf),
  };
}

/**
 * What loading every object (loadPdf's strict load) decodes up front may inflate to, all object and cross-reference
 * streams of one file together. The largest real one among the fixtures (linearized_with_object_streams.pdf, 947
 * streams) inflates to 6 MB and declares 84,010 objects in its object streams.
 */
const MAX_LOAD_INFLATED_BYTES = 32 * 1024 * 1024;
const MAX_OBJECT_STREAM_OBJECTS = 1_000_000;
const MAX_DECODED_STREAMS = 10_000;

/**
 * Every object stream (/Type /ObjStm) and cross-reference stream (/Type /XRef) in the file, found by scanning the bytes
 * as a loading parser meets them, inflated against one shared budget. A Flate bomb (a few MB inflating to a GB) there
 * would make the PDF library allocate the whole result and spend tens of seconds on it, so it is refused before
 * @libpdf/core sees it.
 * Answers why the file is refused, or undefined.
 */
export function checkLoadDecoding(buf: Buffer): string | undefined {
  let budget = MAX_LOAD_INFLATED_BYTES;
  let objects = 0;
  let streams = 0;
  let endstreams: number[] | undefined;
  /** The first `endstream` at or after pos (all of them found in one pass, when first needed). */
  const endstreamFrom = (pos: number): number => {
    if (!endstreams) {
      endstreams = [];
      for (let at = buf.indexOf('endstream'); at >= 0; at = buf.indexOf('endstream', at + 9)) endstreams.push(at);
    }
    let lo = 0;
    let hi = endstreams.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (endstreams[mid] < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo < endstreams.length ? endstreams[lo] : -1;
  };

  for (const word of ['/ObjStm', '/XRef']) {
    for (let at = buf.indexOf(word); at >= 0; at = buf.indexOf(word, at + word.length)) {
      if (!endsToken(buf[at + word.length])) continue; // /XRefStm
      const windowStart = Math.max(0, at - XREF_DICT_LOOKBACK);
      const inWindow = buf.subarray(windowStart, at).lastIndexOf('obj');
      const obj = inWindow < 0 ? -1 : windowStart + inWindow;
      if (obj < 0 || startsWithAt(buf, obj - 3, 'end')) continue;
      // The dictionary, read from a bounded window so crafted input cannot make the scan quadratic.
      const lexer = new PdfLexer(buf.subarray(0, Math.min(buf.length, obj + 3 + MAX_DICT_BYTES)), obj + 3);
      let dict: PdfDict;
      try {
        dict = lexer.readDict();
      } catch {
        continue; // not a dictionary we can read: no parser reads it as a stream either
      }
      const type = nameOf(dict.get('Type'));
      if (type !== word.slice(1)) continue;
      lexer.skipSpace();
      if (!lexer.matchKeyword('stream')) continue;
      if (++streams > MAX_DECODED_STREAMS) return `more than ${MAX_DECODED_STREAMS} object or cross-reference streams`;
      if (type === 'ObjStm') {
        objects += Math.max(0, numberOf(dict.get('N')) ?? 0);
        if (objects > MAX_OBJECT_STREAM_OBJECTS)
          return `object streams declare more than ${MAX_OBJECT_STREAM_OBJECTS} objects`;
      }
      let start = lexer.pos;
      if (buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
      else if (buf[start] === 0x0a || buf[start] === 0x0d) start += 1;
      const length = numberOf(dict.get('Length'));
      // /Length when it is a number that fits, else up to the next `endstream` (what parsers read).
      let end =
        length !== undefined && Number.isInteger(length) && length >= 0 && start + length <= buf.length
          ? start + length
          : endstreamFrom(start);
      if (end < start) end = buf.length;
      const data = buf.subarray(start, end);
      const filters = listOf(dict.get('Filter')).map(nameOf);
      if (filters.length === 0) {
        budget -= data.length;
      } else if (filters.length === 1 && filters[0] === 'FlateDecode') {
        const remaining = { inflatable: budget };
        try {
          inflate(data, remaining);
          budget = remaining.inflatable;
        } catch (e) {
          // Beyond the budget (ERR_BUFFER_TOO_LARGE, a RangeError of the realm zlib runs in: compared by code).
          if (isBeyondBudget(e)) return 'object or cross-reference streams inflate beyond the bound';
          // Corrupt Flate data (or bytes inside another stream that only look like one: giraffe.pdf has nine). What
          // comes before the damage fits the budget, or zlib would have said so first; and an object stream that
          // cannot be decoded makes the strict load refuse the file anyway.
          budget -= data.length;
        }
      } else {
        // LZW, RunLength and chains of filters expand without a bound this check could apply cheaply; real files
        // compress these streams with Flate alone.
        return `a ${type} stream with the filters ${filters.join(', ')}`;
      }
      if (budget < 0) return 'object or cross-reference streams inflate beyond the bound';
    }
  }
  return undefined;
}
