import {
  RecipientMessages,
  SigningMethod,
  type EsignStatus,
  type OriginalSignatureType,
  type PartyStatus,
  type RequestStatus,
  type SignatureType,
  type SigningMethodCode,
} from '@esign/contract';
import { fieldsProblem, type PartyField } from './fields';

/**
 * The rules of a request as pure functions: party state transitions, the methods a party may use, when a party may
 * sign, and the status the signer app shows. The services call these inside their transactions, on rows they have
 * just read, so the server (not the page) decides. They are the request's rules, so they live in requests: recipients
 * (and signing, which completes parties) read them from here without a backward import.
 */

export type PartyEvent = 'invite' | 'open' | 'accept' | 'reject' | 'fail' | 'retry' | 'complete' | 'expire' | 'cancel';

const ENDED: readonly PartyStatus[] = ['completed', 'rejected', 'expired', 'cancelled'];
const OPEN: readonly PartyStatus[] = ['waiting', 'in-progress', 'opened', 'signing', 'failed'];

const TRANSITIONS: Record<PartyEvent, Partial<Record<PartyStatus, PartyStatus>>> = {
  invite: { saved: 'in-progress', waiting: 'in-progress', 'in-progress': 'in-progress' },
  // Opening again after accepting (a reload) keeps the party where it was.
  open: { 'in-progress': 'opened', opened: 'opened', signing: 'signing', failed: 'failed' },
  accept: { 'in-progress': 'signing', opened: 'signing', signing: 'signing' },
  reject: { 'in-progress': 'rejected', opened: 'rejected', signing: 'rejected', failed: 'rejected' },
  fail: { signing: 'failed', failed: 'failed' },
  retry: { failed: 'signing' },
  complete: { signing: 'completed', waiting: 'completed' },
  expire: Object.fromEntries(OPEN.map((s) => [s, 'expired'])),
  cancel: Object.fromEntries(OPEN.map((s) => [s, 'cancelled'])),
};

/** The party's next status, or null when the event is not allowed in its current status. */
export function partyTransition(status: PartyStatus, event: PartyEvent): PartyStatus | null {
  return TRANSITIONS[event][status] ?? null;
}

export const isEnded = (status: PartyStatus): boolean => ENDED.includes(status);

/** Spec section 4, step 4: a single type offers itself; dual Aadhaar and e-Signature; All adds DSC when configured. */
export function allowedMethods(type: SignatureType | null, dscConfigured: boolean): SigningMethodCode[] {
  switch (type) {
    case 'Aadhaar':
      return [SigningMethod.Aadhaar];
    case 'DSC':
      return [SigningMethod.DSC];
    case 'e-Signature':
      return [SigningMethod.ESignature];
    case 'Dual':
      return [SigningMethod.Aadhaar, SigningMethod.ESignature];
    case 'All':
      return dscConfigured
        ? [SigningMethod.Aadhaar, SigningMethod.ESignature, SigningMethod.DSC]
        : [SigningMethod.Aadhaar, SigningMethod.ESignature];
    default:
      return [];
  }
}

export function originalSignatureType(type: SignatureType | null): OriginalSignatureType | null {
  if (type === null) return null;
  return type === 'Dual' ? 'dual' : type;
}

/** What the rules look at: the request, the party, every party of the request, and the organisation's policy. */
export interface RuleRequest {
  status: RequestStatus;
  checkOrder: boolean;
  otpRequired: boolean;
}
export interface RuleParty {
  order: number;
  observer: boolean;
  status: PartyStatus;
  signatureType: SignatureType | null;
  acceptedAt: Date | null;
  otpVerifiedAt: Date | null;
  signatureSubmittedAt: Date | null;
  selfieKey: string | null;
  liveness: { passed: boolean } | null;
  geo: { allowed: boolean; country: string | null } | null;
  failedAttempts: number;
  /** Fields beyond the signature box (issue 21): every required one filled, every value valid, before signing. */
  fields?: PartyField[] | null;
}
export interface RulePolicy {
  dscDownloadUrl: string | null;
  locationCapture: boolean;
  faceCapture: boolean;
  aadhaarFaceCapture: boolean;
  esignatureFaceCapture: boolean;
  liveVideo: boolean;
}

/** Why a request no longer accepts anything, or null while it is in progress. */
export function closedReason(status: RequestStatus): string | null {
  switch (status) {
    case 'in-progress':
      return null;
    case 'completed':
      return RecipientMessages.requestCompleted;
    case 'rejected':
      return RecipientMessages.requestRejected;
    case 'expired':
      return RecipientMessages.requestExpired;
    case 'cancelled':
      return RecipientMessages.requestCancelled;
    default:
      return RecipientMessages.invalidLink;
  }
}

/** Sequential requests: every signer before this one has signed. */
export function isTurnOf(party: RuleParty, parties: RuleParty[], checkOrder: boolean): boolean {
  if (!checkOrder) return true;
  return parties.every((p) => p.observer || p.order >= party.order || p.status === 'completed');
}

export function faceRequired(policy: RulePolicy, method: SigningMethodCode): boolean {
  if (policy.faceCapture) return true;
  if (method === SigningMethod.Aadhaar) return policy.aadhaarFaceCapture;
  if (method === SigningMethod.ESignature) return policy.esignatureFaceCapture;
  return false;
}

export function locationRemark(geo: RuleParty['geo']): string | null {
  if (!geo || geo.allowed) return null;
  return RecipientMessages.locationBlocked.replace('{country}', geo.country ?? 'unknown');
}

/** Anything that stops a party from acting on the request at all (reject, accept, OTP), or null. */
export function refuseAction(request: RuleRequest, party: RuleParty, parties: RuleParty[]): string | null {
  const closed = closedReason(request.status);
  if (closed) return closed;
  if (party.observer) return RecipientMessages.notASigner;
  if (party.status === 'completed' || party.signatureSubmittedAt) return RecipientMessages.alreadySigned;
  if (isEnded(party.status)) return closedReason(party.status === 'rejected' ? 'rejected' : 'cancelled');
  if (!isTurnOf(party, parties, request.checkOrder)) return RecipientMessages.notYourTurn;
  return null;
}

/** Why this party may not sign now with `method`, or null when it may (the server's check before every signature). */
export function refuseSigning(
  request: RuleRequest,
  party: RuleParty,
  parties: RuleParty[],
  policy: RulePolicy,
  method: SigningMethodCode,
): string | null {
  const refused = refuseAction(request, party, parties);
  if (refused) return refused;
  if (party.status === 'failed') return RecipientMessages.retryFirst;
  if (!party.acceptedAt || party.status !== 'signing') return RecipientMessages.acceptFirst;
  if (!allowedMethods(party.signatureType, Boolean(policy.dscDownloadUrl)).includes(method))
    return RecipientMessages.methodNotAllowed;
  if (request.otpRequired && !party.otpVerifiedAt) return RecipientMessages.otpFirst;
  const fields = fieldsProblem(party.fields);
  if (fields) return fields;
  if (policy.locationCapture) {
    if (!party.geo) return RecipientMessages.locationNeeded;
    const remark = locationRemark(party.geo);
    if (remark) return remark;
  }
  if (faceRequired(policy, method) && !party.selfieKey) return RecipientMessages.faceNeeded;
  if (policy.liveVideo && !party.liveness?.passed) return RecipientMessages.livenessNeeded;
  return null;
}

/**
 * esignStatus of the specification's status pages: completed (this party signed), rejected, expired, cancelled, or
 * signing when signing failed for good (attempts used up, or the signed document could not be produced).
 */
export function esignStatus(
  requestStatus: RequestStatus,
  party: Pick<RuleParty, 'status' | 'failedAttempts'>,
  maxAttempts: number,
): EsignStatus | null {
  if (party.status === 'completed') return 'completed';
  if (requestStatus === 'completed') return 'completed';
  if (party.status === 'rejected' || requestStatus === 'rejected') return 'rejected';
  if (requestStatus === 'expired' || party.status === 'expired') return 'expired';
  if (requestStatus === 'cancelled' || party.status === 'cancelled') return 'cancelled';
  if (party.status === 'failed' && party.failedAttempts >= maxAttempts) return 'signing';
  return null;
}
