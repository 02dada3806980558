/** Helpers shared by the request and the response: IST timestamps, XML escaping, strict base64. */

const IST_OFFSET_MS = 330 * 60_000; // UTC+05:30, no daylight saving

/** `YYYY-MM-DDThh:mm:ss` in Indian Standard Time without a zone, as the eSign API writes `ts`. */
export function formatIndianTimestamp(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new Error('Invalid date');
  return new Date(date.getTime() + IST_OFFSET_MS).toISOString().slice(0, 19);
}

/**
 * Reads a `ts` as Indian time. Accepts `YYYY-MM-DDThh:mm:ss` with optional fractional seconds (some ASPs send
 * milliseconds); a zone suffix or an impossible date (month 13, 30 February) gives null.
 */
export function parseIndianTimestamp(ts: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(ts);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const millis = match[7] ? Number(match[7].padEnd(3, '0')) : 0;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  )
    return null;
  return new Date(utc - IST_OFFSET_MS);
}

// XML 1.0 Char production, without the surrogate blocks (lone surrogates are refused too).
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHAR = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function assertXmlChars(value: string): void {
  if (INVALID_XML_CHAR.test(value)) throw new Error('The value contains characters that XML cannot carry');
}

/** Escapes an attribute value (double-quoted); whitespace characters become references so they survive normalisation. */
export function escapeXmlAttribute(value: string): string {
  assertXmlChars(value);
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** Escapes character data. */
export function escapeXmlText(value: string): string {
  assertXmlChars(value);
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Decodes base64 (whitespace allowed, as xs:base64Binary allows), or null when it is empty or not base64. */
export function decodeBase64Strict(text: string): Buffer | null {
  const compact = text.replace(/[\s]+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0) return null;
  if (!/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}
