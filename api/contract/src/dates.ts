/**
 * One way to write a time for a person (issue 18, point 8): the organisation's time zone (Asia/Kolkata unless it set
 * another), day, short month, year, 12-hour time and the zone's label, e.g. '25 Nov 2026, 12:58 am IST'. The console,
 * the signer app, the e-mails and the certificate of completion all use it.
 */
export const DEFAULT_TIME_ZONE = 'Asia/Kolkata';

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The locale a language's dates are written in: English as 'en-IN', another recipient language as its Indian locale
 * ('hi-IN': '25 नव॰ 2026, 12:58 pm IST'), its month names its own, its digits the Latin ones every code is written in.
 */
const localeOf = (language: string | null | undefined): string =>
  language && language !== 'en' && /^[a-z]{2}$/.test(language) ? `${language}-IN-u-nu-latn` : 'en-IN';

const formatter = (timeZone: string, withTime: boolean, locale: string): Intl.DateTimeFormat => {
  const key = `${timeZone}|${withTime}|${locale}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      ...(withTime ? { hour: 'numeric', minute: '2-digit', hour12: true, timeZoneName: 'short' } : {}),
      timeZone,
    });
    formatters.set(key, found);
  }
  return found;
};

/** True for an IANA time zone this runtime knows ('Asia/Kolkata', 'Europe/London', 'UTC'). */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || !value || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-IN', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const toDate = (value: Date | string | number): Date | null => {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
};

/**
 * '25 Nov 2026, 12:58 am IST'; '' for a missing or unreadable time. `language`: a recipient's language (issue 22), its
 * month names and order; English when absent.
 */
export function formatDateTime(
  value: Date | string | number | null | undefined,
  timeZone?: string | null,
  language?: string | null,
): string {
  if (value === null || value === undefined || value === '') return '';
  const date = toDate(value);
  if (!date) return '';
  const zone = timeZone && isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE;
  return formatter(zone, true, localeOf(language)).format(date);
}

/** '25 Nov 2026' in the organisation's time zone; '' for a missing or unreadable time. */
export function formatDate(value: Date | string | number | null | undefined, timeZone?: string | null): string {
  if (value === null || value === undefined || value === '') return '';
  const date = toDate(value);
  if (!date) return '';
  const zone = timeZone && isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE;
  return formatter(zone, false, 'en-IN').format(date);
}
