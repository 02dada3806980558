/** The organisation's settings (PUT /api/organisations/{orgId}). */
import { z } from 'zod';
import { DEFAULT_TIME_ZONE, isTimeZone } from '../dates';
import { Limits } from '../limits';
import { RETENTION_MAX_DAYS } from '../reliability';
import { ORG_MODES, SIGNATURE_LEVELS, SIGNATURE_TYPES } from '../status';
import { absentable, reportsEveryIssue, strictFields } from './core';

/** A web address as the settings take it (the scheme may be left out: https:// is added before a redirect). */
export const SETTINGS_URL_PATTERN = /^(https?:\/\/)?[^\s/$.?#][^\s]*$/i;

const text = (field: string, min: number | null, max: number) => {
  let schema = z.string({ error: `${field} must be a string` });
  if (min !== null) schema = schema.min(min, `${field} must be longer than or equal to ${min} characters`);
  return schema.max(max, `${field} must be shorter than or equal to ${max} characters`);
};
const yesNo = (field: string) => absentable(z.boolean({ error: `${field} must be a boolean value` }));
const url = (field: string) => text(field, null, 2048).regex(SETTINGS_URL_PATTERN, `${field} must be a URL`).nullish();
const between = (field: string, min: number, max: number, integer: boolean) =>
  absentable(
    z
      .number({
        error: integer
          ? `${field} must be an integer number`
          : `${field} must be a number conforming to the specified constraints`,
      })
      .refine((n) => !integer || Number.isInteger(n), `${field} must be an integer number`)
      .refine((n) => n >= min, `${field} must not be less than ${min}`)
      .refine((n) => n <= max, `${field} must not be greater than ${max}`),
  );
const oneOf = <T extends string>(field: string, values: readonly T[], message?: string) =>
  z.enum(values as [T, ...T[]], {
    error: message ?? `${field} must be one of the following values: ${values.join(', ')}`,
  });

const days = (field: string) =>
  z
    .number({ error: `${field} must be a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or null` })
    .int(`${field} must be a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or null`)
    .min(1, `${field} must be a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or null`)
    .max(RETENTION_MAX_DAYS, `${field} must be a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or null`)
    .nullable()
    .optional();

/** PUT /api/organisations/{orgId}: every field optional; only those sent change. */
export const updateOrganisationSchema = reportsEveryIssue(
  strictFields({
    name: absentable(text('name', 1, 200)),
    mode: absentable(oneOf('mode', ORG_MODES)),
    tag: absentable(text('tag', null, 64)),
    signature_types: absentable(
      z
        .array(
          oneOf(
            '',
            SIGNATURE_TYPES,
            `each value in signature_types must be one of the following values: ${SIGNATURE_TYPES.join(', ')}`,
          ),
          {
            error: 'signature_types must be an array',
          },
        )
        .min(1, 'signature_types must contain at least 1 elements')
        .max(SIGNATURE_TYPES.length, `signature_types must contain no more than ${SIGNATURE_TYPES.length} elements`),
    ),
    face_capture: yesNo('face_capture'),
    aadhaar_face_capture: yesNo('aadhaar_face_capture'),
    esignature_face_capture: yesNo('esignature_face_capture'),
    location_capture: yesNo('location_capture'),
    allow_signing_from_india: yesNo('allow_signing_from_india'),
    live_video: yesNo('live_video'),
    live_video_threshold: between('live_video_threshold', 0, 1, false),
    return_url: url('return_url'),
    dsc_download_url: url('dsc_download_url'),
    dsc_tutorial_url: url('dsc_tutorial_url').meta({ description: "The DSC panel's tutorial video" }),
    time_zone: absentable(
      z
        .string({ error: 'time_zone must be a string' })
        .refine(isTimeZone, 'time_zone must be an IANA time zone such as Asia/Kolkata')
        .meta({ description: 'IANA time zone for every time shown to people', examples: [DEFAULT_TIME_ZONE] }),
    ),
    signature_level: absentable(
      oneOf('signature_level', SIGNATURE_LEVELS, `signature_level must be one of ${SIGNATURE_LEVELS.join(', ')}`).meta({
        description:
          'The PAdES level every signature reaches: B-B, B-T (timestamped), B-LT (with revocation data), B-LTA (archived)',
      }),
    ),
    request_expiry_days: between('request_expiry_days', 1, 365, true),
    // null is a value here (no reminder by default), not "absent" as for the other fields.
    reminder_default_hours: z
      .union(
        [z.literal(Limits.reminderHours[0]), z.literal(Limits.reminderHours[1]), z.literal(Limits.reminderHours[2])],
        {
          error: `reminder_default_hours must be one of ${Limits.reminderHours.join(', ')} or null`,
        },
      )
      .nullable()
      .optional()
      .meta({ description: 'The reminder /request-initiate starts with: 12, 24 or 48 hours; null for none.' }),
    // null is a value here too: keep for ever.
    retention_days: days('retention_days').meta({
      description:
        'Days an ended request keeps its documents, selfies and signature images (its audit trail and the hashes stay); null keeps them for ever.',
    }),
    media_retention_days: days('media_retention_days').meta({
      description: 'Days selfies and videos are kept, when shorter than retention_days; null: as the documents.',
    }),
  }).meta({
    examples: [
      {
        live_video: true,
        live_video_threshold: 0.6,
        return_url: 'https://example.com/done',
        time_zone: 'Asia/Kolkata',
        reminder_default_hours: 24,
        retention_days: 3650,
        media_retention_days: 90,
      },
    ],
  }),
);

export type OrganisationUpdate = z.output<typeof updateOrganisationSchema>;

/** PUT /api/organisations/{orgId}/logo: the PNG in the multipart part `file`; no other field. */
export const logoSchema = z.object({}).meta({ examples: [{}] });
