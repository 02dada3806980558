import { constants as zlibConstants, inflateSync } from 'node:zlib';
import {
  isDict,
  isWhitespace,
  listOf,
  nameOf,
  numberOf,
  type PdfLexer,
  startsWithAt,
  SyntaxProblem,
  type PdfDict,
  type PdfValue,
} from './lexer';

/**
 * What decoding may still inflate, shared by every stream of one read: a Flate bomb (a few MB inflating to a GB) is
 * stopped at the bound instead of allocating the whole result.
 */
export interface InflateBudget {
  inflatable: number;
}

/** No bound beyond what one Buffer can hold. */
export const unbounded = (): InflateBudget => ({ inflatable: Infinity });

/** Where a stream's data lies in the file: [start, end). */
export interface StreamBounds {
  start: number;
  end: number;
}

/**
 * The data of the stream whose dictionary the lexer just read (the lexer is left after it).
 *
 * - `strict` (cross-reference streams, as readers that trust the file read them): a direct /Length is believed as it
 *   is; without one the data runs to the next `endstream`, whitespace before it left out.
 * - otherwise (any other stream): /Length (direct, or the number `length` resolves) counts only when `endstream`
 *   follows it, else the data runs to the next `endstream`, the end of line before it left out.
 */
export function streamBounds(
  lexer: PdfLexer,
  dict: PdfDict,
  options: { strict?: boolean; length?: (value: PdfValue | undefined) => number | undefined } = {},
): StreamBounds {
  const buf = lexer.buf;
  lexer.skipSpace();
  if (!lexer.matchKeyword('stream')) throw new SyntaxProblem('no stream keyword', lexer.pos);
  let start = lexer.pos;
  if (buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
  else if (buf[start] === 0x0a || buf[start] === 0x0d) start += 1;
  const length = options.length ? options.length(dict.get('Length')) : numberOf(dict.get('Length'));
  const usable = length !== undefined && Number.isInteger(length) && length >= 0;
  if (options.strict) {
    let end = usable ? start + length : buf.indexOf('endstream', start);
    if (end < start || end > buf.length) throw new SyntaxProblem('stream runs past the end of the file', start);
    if (length === undefined) while (end > start && isWhitespace(buf[end - 1])) end--;
    return { start, end };
  }
  if (usable && start + length <= buf.length) {
    let after = start + length;
    while (after < buf.length && isWhitespace(buf[after])) after++;
    if (startsWithAt(buf, after, 'endstream')) return { start, end: start + length };
  }
  let end = buf.indexOf('endstream', start);
  if (end < 0) throw new SyntaxProblem('no endstream', start);
  if (end > start && buf[end - 1] === 0x0a) end--;
  if (end > start && buf[end - 1] === 0x0d) end--;
  return { start, end };
}

/**
 * A stream's data decoded: no filter, or FlateDecode with its PNG predictors undone. Any other filter (or a chain of
 * them, or the TIFF predictor) is a SyntaxProblem: the structures read here (cross-reference and object streams, the
 * DSS's certificates and revocation data) are written with Flate or nothing. Inflating beyond the budget throws.
 * `at` (where the data starts in the file) only places the problems.
 */
export function decodeStream(data: Buffer, dict: PdfDict, budget: InflateBudget = unbounded(), at = 0): Buffer {
  const filters = listOf(dict.get('Filter'));
  if (filters.length > 1 || (filters.length === 1 && nameOf(filters[0]) !== 'FlateDecode'))
    throw new SyntaxProblem('unsupported stream filter', at);
  let out = data;
  if (filters.length === 1) out = inflate(data, budget);

  const parms = listOf(dict.get('DecodeParms'))[0];
  if (isDict(parms)) {
    const predictor = numberOf(parms.get('Predictor')) ?? 1;
    const colors = numberOf(parms.get('Colors')) ?? 1;
    const bits = numberOf(parms.get('BitsPerComponent')) ?? 8;
    const columns = numberOf(parms.get('Columns')) ?? 1;
    if (predictor >= 10) {
      if (bits !== 8) throw new SyntaxProblem('unsupported predictor bit depth', at);
      out = unpredictPng(out, colors * columns, colors);
    } else if (predictor !== 1) {
      throw new SyntaxProblem(`unsupported predictor ${predictor}`, at);
    }
  }
  return out;
}

/**
 * Flate data inflated as readers do (what comes before damage or a missing end is kept), counted against the
 * budget. Beyond it, zlib throws (ERR_BUFFER_TOO_LARGE, a RangeError of the realm zlib runs in).
 */
export function inflate(data: Buffer, budget: InflateBudget = unbounded()): Buffer {
  const out = Number.isFinite(budget.inflatable)
    ? inflateSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, budget.inflatable) })
    : inflateSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  budget.inflatable -= out.length;
  return out;
}

/** Whether inflating failed only because the budget ran out. */
export const isBeyondBudget = (e: unknown): boolean => (e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';

/** Undoes PNG row filters (ISO 32000-1, 7.4.4.4): each row is a filter-type byte and `rowLength` bytes. */
function unpredictPng(data: Buffer, rowLength: number, bpp: number): Buffer {
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = Buffer.alloc(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const filter = data[r * (rowLength + 1)];
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i];
      const left = i >= bpp ? out[dst + i - bpp] : 0;
      const up = r > 0 ? out[dst - rowLength + i] : 0;
      const upLeft = r > 0 && i >= bpp ? out[dst - rowLength + i - bpp] : 0;
      let value: number;
      switch (filter) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          throw new SyntaxProblem(`unknown PNG predictor ${filter}`, src);
      }
      out[dst + i] = value & 0xff;
    }
  }
  return out;
}
