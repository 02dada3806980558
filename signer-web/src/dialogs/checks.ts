import { SigningMethod } from '@esign/contract';
import type { SigningMethodCode, SigningRequest } from '@esign/contract';

/**
 * Which identity checks to ask for before signing (spec section 4, step 8), kept apart from the dialogs (a chunk of
 * their own) so the signing page decides without loading them.
 */
export interface CheckNeeds {
  location: boolean;
  face: boolean;
  liveness: boolean;
}

/** Whether signing with `method` needs a face capture (face capture for all, or for that method). */
export const faceNeededFor = (request: SigningRequest, method: SigningMethodCode): boolean =>
  request.face_capture === 'true' ||
  (method === SigningMethod.Aadhaar && request.aadhaar_face_capture === 'true') ||
  (method === SigningMethod.ESignature && request.esignature_face_capture === 'true');

/**
 * The checks still to pass before signing with `method`, or, before the method is known (null), those every method
 * the signer may use needs: the selfie for one method only is asked once that method is chosen.
 */
export const checkNeeds = (request: SigningRequest, method: SigningMethodCode | null): CheckNeeds => {
  const methods = method === null ? request.signing_methods : [method];
  const face = methods.length > 0 && methods.every((m) => faceNeededFor(request, m));
  return {
    location: request.location_capture === 'true' && !request.checks.location,
    face: face && !request.checks.face,
    liveness: request.live_video === 'true' && !request.checks.liveness,
  };
};

export const anyNeeded = (needs: CheckNeeds): boolean => needs.location || needs.face || needs.liveness;
