/** Status names, method codes and enumerations shared by the API and every client. */
export const ORG_MODES = ['test', 'live'] as const;
export type OrgMode = (typeof ORG_MODES)[number];

export const REQUEST_STATUSES = ['draft', 'in-progress', 'completed', 'rejected', 'expired', 'cancelled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export const PARTY_STATUSES = [
  'saved',
  // A signer of a sequential request whose turn has not come, or a copy-receiver before completion.
  'waiting',
  'in-progress',
  'opened',
  'signing',
  'completed',
  'rejected',
  'failed',
  'expired',
  'cancelled',
] as const;
export type PartyStatus = (typeof PARTY_STATUSES)[number];

/** The signature types a staff user picks for a signer (spec section 9). */
export const SIGNATURE_TYPES = ['Aadhaar', 'DSC', 'e-Signature', 'All', 'Dual'] as const;
export type SignatureType = (typeof SIGNATURE_TYPES)[number];

/** Signing method codes (spec section 4, step 4). */
export const SigningMethod = { Aadhaar: 0, DSC: 1, ESignature: 2 } as const;
export type SigningMethodCode = (typeof SigningMethod)[keyof typeof SigningMethod];

export const RECIPIENT_TYPES = ['Needs to sign', 'Receives a copy'] as const;
export const FILE_UPLOAD_TYPES = ['Choose File', 'Choose template'] as const;

/** Reminder options as the console shows them. */
export const REMINDER_LABELS: Record<number, string> = { 12: '12 hours', 24: '1 day', 48: '2 days' };

/**
 * PAdES baseline levels (ETSI EN 319 142-1) a signature reaches: B-B (signed), B-T (with a trusted time), B-LT (with
 * the certificates and revocation data to check it later), B-LTA (under an archive timestamp).
 */
export const SIGNATURE_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type SignatureLevel = (typeof SIGNATURE_LEVELS)[number];
