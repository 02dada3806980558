import {
  DEFAULT_TIME_ZONE,
  Messages,
  RetentionMessages,
  inputMessage,
  isTimeZone,
  updateOrganisationSchema,
} from '@esign/contract';
import type { OrgMode, Organisation, OrganisationSettings } from '@esign/contract';

/** The switches of the settings page: the organisation's identity checks for signers. */
export type SettingsFlag =
  | 'face_capture'
  | 'aadhaar_face_capture'
  | 'esignature_face_capture'
  | 'live_video'
  | 'location_capture'
  | 'allow_signing_from_india';

/** The links of the DSC panel (null when not set: the form holds them as text, '' for none). */
export type SettingsLink = 'dsc_download_url' | 'dsc_tutorial_url';

/**
 * What the page edits: the organisation's name and mode (issue 22), the signature types, the switches, the liveness
 * threshold, the DSC panel's links, the time zone, the signature level, the reminder a request starts with and the
 * days until it expires; retention (issue 24): the days an ended request keeps its documents, and its selfies and videos.
 * The expiry and the retention periods are text while typed ('' for a period: for ever).
 */
export type SettingsForm = Pick<
  OrganisationSettings,
  SettingsFlag | 'live_video_threshold' | 'time_zone' | 'signature_level' | 'signature_types' | 'reminder_default_hours'
> &
  Record<SettingsLink, string> &
  Record<RetentionField, string> & { name: string; mode: OrgMode; request_expiry_days: string };

/** The retention periods (issue 24): days, or null for ever. */
export type RetentionField = 'retention_days' | 'media_retention_days';
export const RETENTION_FIELDS: readonly RetentionField[] = ['retention_days', 'media_retention_days'];

/** The body of PUT /api/organisations/{orgId}: the fields that changed, links as null when emptied. */
export type SettingsChanges = Partial<
  Omit<
    Pick<OrganisationSettings, Exclude<keyof SettingsForm, 'name' | 'mode'>>,
    'request_expiry_days' | RetentionField
  > & {
    name: string;
    mode: OrgMode;
    request_expiry_days: number;
    retention_days: number | null;
    media_retention_days: number | null;
  }
>;

const FIELDS: readonly (keyof SettingsForm)[] = [
  'name',
  'mode',
  'signature_types',
  'reminder_default_hours',
  'request_expiry_days',
  'face_capture',
  'aadhaar_face_capture',
  'esignature_face_capture',
  'live_video',
  'live_video_threshold',
  'location_capture',
  'allow_signing_from_india',
  'dsc_download_url',
  'dsc_tutorial_url',
  'time_zone',
  'signature_level',
  'retention_days',
  'media_retention_days',
];

export const LINKS: readonly SettingsLink[] = ['dsc_download_url', 'dsc_tutorial_url'];

/** The liveness threshold's range on the page (the API takes 0 to 1; at 1 no video can pass). */
export const THRESHOLD = { min: 0, max: 0.95, step: 0.05, default: 0.5 } as const;

/** Two decimals: the slider's steps are 0.05 and floating point must not show through. */
export const roundThreshold = (value: number): number => Math.round(value * 100) / 100;

export const toForm = ({ name, mode, settings }: Organisation): SettingsForm => ({
  name,
  mode,
  signature_types: [...settings.signature_types],
  reminder_default_hours: settings.reminder_default_hours ?? null,
  request_expiry_days: String(settings.request_expiry_days),
  face_capture: settings.face_capture,
  aadhaar_face_capture: settings.aadhaar_face_capture,
  esignature_face_capture: settings.esignature_face_capture,
  live_video: settings.live_video,
  live_video_threshold: settings.live_video_threshold,
  location_capture: settings.location_capture,
  allow_signing_from_india: settings.allow_signing_from_india,
  dsc_download_url: settings.dsc_download_url ?? '',
  dsc_tutorial_url: settings.dsc_tutorial_url ?? '',
  time_zone: settings.time_zone || DEFAULT_TIME_ZONE,
  signature_level: settings.signature_level ?? 'B-LTA',
  retention_days: settings.retention_days == null ? '' : String(settings.retention_days),
  media_retention_days: settings.media_retention_days == null ? '' : String(settings.media_retention_days),
});

/** The signature types' problem, as a key of the catalogue (the page says it in its language). */
export const SIGNATURE_TYPES_NONE = 'console.organisation.signatureTypesNone';

/** A link as the API stores it: trimmed, null for none. */
const linkValue = (text: string): string | null => text.trim() || null;

const valueOf = (form: SettingsForm, field: keyof SettingsForm): unknown => {
  if ((LINKS as readonly string[]).includes(field)) return linkValue(form[field as SettingsLink]);
  if (field === 'name') return form.name.trim();
  if (field === 'request_expiry_days')
    return form.request_expiry_days.trim() === '' ? NaN : Number(form.request_expiry_days);
  if ((RETENTION_FIELDS as readonly string[]).includes(field)) {
    const text = form[field as RetentionField].trim();
    return text === '' ? null : Number(text);
  }
  return form[field];
};

/** Lists (the signature types) compare by their members, whatever their order. */
const same = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x) => b.includes(x)) : Object.is(a, b);

/** The fields whose value differs from the saved one: the body of PUT /api/organisations/{orgId}. */
export const changedFields = (saved: SettingsForm, edited: SettingsForm): SettingsChanges =>
  Object.fromEntries(
    FIELDS.filter((field) => !same(valueOf(saved, field), valueOf(edited, field))).map((field) => [
      field,
      valueOf(edited, field),
    ]),
  ) as SettingsChanges;

/**
 * A link a signer's browser can open as it is: an absolute http(s) address with a host. (The API also takes one
 * without its scheme; the page asks for the whole address so that the signing page's link never turns relative.)
 */
export function isWebAddress(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && Boolean(url.hostname) && !/\s/.test(text);
  } catch {
    return false;
  }
}

export type SettingsProblems = Partial<
  Record<SettingsLink | RetentionField | 'time_zone' | 'name' | 'request_expiry_days' | 'signature_types', string>
>;

/** What a section of the settings' form gets: the form, its problems, and how to change it. */
export interface SettingsSectionProps {
  form: SettingsForm;
  problems: SettingsProblems;
  onChange: (patch: Partial<SettingsForm>) => void;
}

/**
 * What is wrong with the form, field by field, in words a person can act on; a link the page takes but the API would
 * refuse (the contract's updateOrganisationSchema: longer than 2048 characters) gets the API's own message.
 */
export function validateSettings(form: SettingsForm): SettingsProblems {
  const problems: SettingsProblems = {};
  for (const field of LINKS) {
    const text = form[field].trim();
    if (text && !isWebAddress(text)) problems[field] = Messages.settingsUrlInvalid;
    else {
      const refused = inputMessage(updateOrganisationSchema, { [field]: linkValue(text) });
      if (refused) problems[field] = refused;
    }
  }
  if (!isTimeZone(form.time_zone)) problems.time_zone = Messages.settingsTimeZoneInvalid;
  // The API's own checks, with its messages: a name of 1 to 200 characters, an expiry of 1 to 365 days.
  const name = inputMessage(updateOrganisationSchema, { name: form.name.trim() });
  if (name) problems.name = name;
  const expiry = inputMessage(updateOrganisationSchema, { request_expiry_days: valueOf(form, 'request_expiry_days') });
  if (expiry) problems.request_expiry_days = expiry;
  if (form.signature_types.length === 0) problems.signature_types = SIGNATURE_TYPES_NONE;
  // Retention: whole days within the API's range (its messages), and selfies never kept longer than the documents.
  for (const field of RETENTION_FIELDS) {
    const refused = inputMessage(updateOrganisationSchema, { [field]: valueOf(form, field) });
    if (refused) problems[field] = refused;
  }
  const documents = valueOf(form, 'retention_days');
  const media = valueOf(form, 'media_retention_days');
  if (!problems.media_retention_days && typeof documents === 'number' && typeof media === 'number' && media > documents)
    problems.media_retention_days = RetentionMessages.mediaLonger;
  return problems;
}

/**
 * The time zones offered: what this browser knows (IANA names), with the product's default under its current name
 * (some browsers still list it as Asia/Calcutta) and the organisation's own even if the browser does not list it.
 */
export function timeZoneOptions(current: string): string[] {
  let known: string[] = [];
  try {
    known = Intl.supportedValuesOf('timeZone');
  } catch {
    known = [];
  }
  const zones = new Set(known.map((zone) => (zone === 'Asia/Calcutta' ? DEFAULT_TIME_ZONE : zone)));
  zones.add(DEFAULT_TIME_ZONE);
  zones.add('UTC');
  if (current && isTimeZone(current)) zones.add(current);
  return [...zones].sort((a, b) => a.localeCompare(b));
}
