import {
  PARTY_STATUSES,
  RecipientMessages,
  signingMethodOf,
  type PartyStatus,
  type RequestStatus,
} from '@esign/contract';
import {
  allowedMethods,
  esignStatus,
  isTurnOf,
  originalSignatureType,
  partyTransition,
  refuseAction,
  refuseSigning,
  type PartyEvent,
  type RuleParty,
  type RulePolicy,
  type RuleRequest,
} from './rules';

/** Every (status, event) pair and where it leads; null: not allowed. */
const EXPECTED: Record<PartyEvent, Partial<Record<PartyStatus, PartyStatus>>> = {
  invite: { saved: 'in-progress', waiting: 'in-progress', 'in-progress': 'in-progress' },
  open: { 'in-progress': 'opened', opened: 'opened', signing: 'signing', failed: 'failed' },
  accept: { 'in-progress': 'signing', opened: 'signing', signing: 'signing' },
  reject: { 'in-progress': 'rejected', opened: 'rejected', signing: 'rejected', failed: 'rejected' },
  fail: { signing: 'failed', failed: 'failed' },
  retry: { failed: 'signing' },
  complete: { signing: 'completed', waiting: 'completed' },
  expire: { waiting: 'expired', 'in-progress': 'expired', opened: 'expired', signing: 'expired', failed: 'expired' },
  cancel: {
    waiting: 'cancelled',
    'in-progress': 'cancelled',
    opened: 'cancelled',
    signing: 'cancelled',
    failed: 'cancelled',
  },
};

describe('partyTransition', () => {
  const cases = (Object.keys(EXPECTED) as PartyEvent[]).flatMap((event) =>
    PARTY_STATUSES.map((status) => [event, status, EXPECTED[event][status] ?? null] as const),
  );
  it.each(cases)('%s from %s → %s', (event, status, to) => {
    expect(partyTransition(status, event)).toBe(to);
  });

  it('never leaves an ended status', () => {
    for (const status of ['completed', 'rejected', 'expired', 'cancelled'] as const)
      for (const event of Object.keys(EXPECTED) as PartyEvent[]) expect(partyTransition(status, event)).toBeNull();
  });
});

describe('allowedMethods (spec section 4, step 4)', () => {
  it.each([
    ['Aadhaar', false, [0]],
    ['DSC', false, [1]],
    ['e-Signature', true, [2]],
    ['Dual', true, [0, 2]],
    ['All', false, [0, 2]],
    ['All', true, [0, 2, 1]],
    [null, true, []],
  ] as const)('%s (DSC app configured: %s) → %j', (type, dsc, methods) => {
    expect(allowedMethods(type, dsc)).toEqual(methods);
  });

  it('names Dual "dual" and parses method codes strictly', () => {
    expect(originalSignatureType('Dual')).toBe('dual');
    expect(originalSignatureType('All')).toBe('All');
    expect([
      signingMethodOf('2'),
      signingMethodOf(0),
      signingMethodOf('3'),
      signingMethodOf('1.0'),
      signingMethodOf(undefined),
    ]).toEqual([2, 0, null, null, null]);
  });
});

const request = (over: Partial<RuleRequest> = {}): RuleRequest => ({
  status: 'in-progress',
  checkOrder: false,
  otpRequired: true,
  ...over,
});
const party = (over: Partial<RuleParty> = {}): RuleParty => ({
  order: 1,
  observer: false,
  status: 'signing',
  signatureType: 'e-Signature',
  acceptedAt: new Date(),
  otpVerifiedAt: new Date(),
  signatureSubmittedAt: null,
  selfieKey: null,
  liveness: null,
  geo: null,
  failedAttempts: 0,
  ...over,
});
const policy = (over: Partial<RulePolicy> = {}): RulePolicy => ({
  dscDownloadUrl: null,
  locationCapture: false,
  faceCapture: false,
  aadhaarFaceCapture: false,
  esignatureFaceCapture: false,
  liveVideo: false,
  ...over,
});

describe('refuseSigning: the checks before every signature, in order', () => {
  const sign = (p: RuleParty, r = request(), all = [p], pol = policy(), method: 0 | 1 | 2 = 2) =>
    refuseSigning(r, p, all, pol, method);

  it('lets a party sign who accepted, verified the OTP and chose an allowed method', () => {
    expect(sign(party())).toBeNull();
    expect(sign(party({ otpVerifiedAt: null }), request({ otpRequired: false }))).toBeNull();
  });

  it.each([
    ['completed', RecipientMessages.requestCompleted],
    ['rejected', RecipientMessages.requestRejected],
    ['expired', RecipientMessages.requestExpired],
    ['cancelled', RecipientMessages.requestCancelled],
  ] as const)('refuses on a %s request', (status, message) => {
    expect(sign(party(), request({ status: status as RequestStatus }))).toBe(message);
  });

  it('refuses copy-receivers, a second signature, out of turn, before accepting, before the OTP, other methods', () => {
    expect(sign(party({ observer: true }))).toBe(RecipientMessages.notASigner);
    expect(sign(party({ signatureSubmittedAt: new Date() }))).toBe(RecipientMessages.alreadySigned);
    expect(sign(party({ status: 'completed' }))).toBe(RecipientMessages.alreadySigned);
    const second = party({ order: 2 });
    const first = party({ order: 1, status: 'in-progress' });
    expect(sign(second, request({ checkOrder: true }), [first, second])).toBe(RecipientMessages.notYourTurn);
    expect(sign(second, request({ checkOrder: false }), [first, second])).toBeNull();
    expect(sign(party({ status: 'opened', acceptedAt: null }))).toBe(RecipientMessages.acceptFirst);
    expect(sign(party({ status: 'failed', failedAttempts: 1 }))).toBe(RecipientMessages.retryFirst);
    expect(sign(party({ otpVerifiedAt: null }))).toBe(RecipientMessages.otpFirst);
    expect(sign(party({ signatureType: 'Aadhaar' }))).toBe(RecipientMessages.methodNotAllowed);
    expect(sign(party({ signatureType: 'All' }), request(), undefined, policy(), 1)).toBe(
      RecipientMessages.methodNotAllowed,
    );
    expect(
      sign(party({ signatureType: 'All' }), request(), undefined, policy({ dscDownloadUrl: 'https://x' }), 1),
    ).toBeNull();
  });

  it('asks for the location and applies its policy, then for the face capture the organisation wants', () => {
    const withLocation = policy({ locationCapture: true });
    expect(sign(party(), request(), undefined, withLocation)).toBe(RecipientMessages.locationNeeded);
    expect(sign(party({ geo: { allowed: false, country: 'India' } }), request(), undefined, withLocation)).toBe(
      RecipientMessages.locationBlocked.replace('{country}', 'India'),
    );
    expect(sign(party({ geo: { allowed: true, country: 'India' } }), request(), undefined, withLocation)).toBeNull();
    expect(sign(party(), request(), undefined, policy({ esignatureFaceCapture: true }))).toBe(
      RecipientMessages.faceNeeded,
    );
    expect(sign(party(), request(), undefined, policy({ aadhaarFaceCapture: true }))).toBeNull();
    expect(sign(party({ selfieKey: 'k' }), request(), undefined, policy({ faceCapture: true }))).toBeNull();
  });

  it('with live video on, refuses every method until a liveness video passed the threshold', () => {
    const live = policy({ liveVideo: true });
    for (const method of [0, 2] as const) {
      const p = party({ signatureType: 'All' });
      expect(sign(p, request(), undefined, live, method)).toBe(RecipientMessages.livenessNeeded);
      expect(
        sign(party({ signatureType: 'All', liveness: { passed: false } }), request(), undefined, live, method),
      ).toBe(RecipientMessages.livenessNeeded);
      expect(
        sign(party({ signatureType: 'All', liveness: { passed: true } }), request(), undefined, live, method),
      ).toBeNull();
    }
    // The face capture comes first when both are asked for.
    expect(sign(party(), request(), undefined, policy({ liveVideo: true, faceCapture: true }))).toBe(
      RecipientMessages.faceNeeded,
    );
  });

  it('isTurnOf ignores copy-receivers and signers already done', () => {
    const parties = [party({ order: 1, status: 'completed' }), party({ order: 2, observer: true, status: 'waiting' })];
    expect(isTurnOf(party({ order: 3 }), [...parties, party({ order: 3 })], true)).toBe(true);
  });

  it('refuseAction lets a party reject before accepting', () => {
    expect(refuseAction(request(), party({ status: 'in-progress', acceptedAt: null }), [])).toBeNull();
  });
});

describe('esignStatus (the status pages)', () => {
  it.each([
    ['in-progress', 'opened', 0, null],
    ['in-progress', 'completed', 0, 'completed'],
    ['completed', 'completed', 0, 'completed'],
    ['rejected', 'rejected', 0, 'rejected'],
    ['rejected', 'cancelled', 0, 'rejected'],
    ['expired', 'expired', 0, 'expired'],
    ['cancelled', 'cancelled', 0, 'cancelled'],
    ['in-progress', 'failed', 1, null],
    ['in-progress', 'failed', 3, 'signing'],
  ] as const)('request %s, party %s after %i failures → %s', (req, p, failures, status) => {
    expect(esignStatus(req, { status: p, failedAttempts: failures }, 3)).toBe(status);
  });
});
