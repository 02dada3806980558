import type { OrganisationSettings } from '@esign/contract';

/** The switches of the settings page: the organisation's identity checks for signers. */
export type SettingsFlag =
  | 'face_capture'
  | 'aadhaar_face_capture'
  | 'esignature_face_capture'
  | 'live_video'
  | 'location_capture'
  | 'allow_signing_from_india';

/** What the page edits: the switches and the liveness threshold. */
export type SettingsForm = Pick<OrganisationSettings, SettingsFlag | 'live_video_threshold'>;

const FIELDS: readonly (keyof SettingsForm)[] = [
  'face_capture',
  'aadhaar_face_capture',
  'esignature_face_capture',
  'live_video',
  'live_video_threshold',
  'location_capture',
  'allow_signing_from_india',
];

/** The liveness threshold's range on the page (the API takes 0 to 1; at 1 no video can pass). */
export const THRESHOLD = { min: 0, max: 0.95, step: 0.05, default: 0.5 } as const;

/** Two decimals: the slider's steps are 0.05 and floating point must not show through. */
export const roundThreshold = (value: number): number => Math.round(value * 100) / 100;

export const toForm = (settings: OrganisationSettings): SettingsForm =>
  Object.fromEntries(FIELDS.map((field) => [field, settings[field]])) as unknown as SettingsForm;

/** The fields whose value differs from the saved one: the body of PUT /api/organisations/{orgId}. */
export const changedFields = (saved: SettingsForm, edited: SettingsForm): Partial<SettingsForm> =>
  Object.fromEntries(FIELDS.filter((field) => saved[field] !== edited[field]).map((field) => [field, edited[field]]));
