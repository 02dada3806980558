import { DEFAULT_TIME_ZONE, Messages, inputMessage, isTimeZone, updateOrganisationSchema } from '@esign/contract';
import type { OrganisationSettings } from '@esign/contract';

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

/** What the page edits: the switches, the liveness threshold, the DSC panel's links and the time zone. */
export type SettingsForm = Pick<
  OrganisationSettings,
  SettingsFlag | 'live_video_threshold' | 'time_zone' | 'signature_level'
> &
  Record<SettingsLink, string>;

/** The body of PUT /api/organisations/{orgId}: the settings that changed, links as null when emptied. */
export type SettingsChanges = Partial<Pick<OrganisationSettings, keyof SettingsForm>>;

const FIELDS: readonly (keyof SettingsForm)[] = [
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
];

export const LINKS: readonly SettingsLink[] = ['dsc_download_url', 'dsc_tutorial_url'];

/** The liveness threshold's range on the page (the API takes 0 to 1; at 1 no video can pass). */
export const THRESHOLD = { min: 0, max: 0.95, step: 0.05, default: 0.5 } as const;

/** Two decimals: the slider's steps are 0.05 and floating point must not show through. */
export const roundThreshold = (value: number): number => Math.round(value * 100) / 100;

export const toForm = (settings: OrganisationSettings): SettingsForm => ({
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
});

/** A link as the API stores it: trimmed, null for none. */
const linkValue = (text: string): string | null => text.trim() || null;

const valueOf = (form: SettingsForm, field: keyof SettingsForm) =>
  (LINKS as readonly string[]).includes(field) ? linkValue(form[field as SettingsLink]) : form[field];

/** The fields whose value differs from the saved one: the body of PUT /api/organisations/{orgId}. */
export const changedFields = (saved: SettingsForm, edited: SettingsForm): SettingsChanges =>
  Object.fromEntries(
    FIELDS.filter((field) => valueOf(saved, field) !== valueOf(edited, field)).map((field) => [
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

export type SettingsProblems = Partial<Record<SettingsLink | 'time_zone', string>>;

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
