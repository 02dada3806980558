import { SigningMethod, formatDateTime, type SigningMethodCode } from '@esign/contract';

const METHOD_NAMES: Record<SigningMethodCode, string> = {
  [SigningMethod.Aadhaar]: 'Aadhaar eSign',
  [SigningMethod.DSC]: 'DSC',
  [SigningMethod.ESignature]: 'e-Signature',
};

/**
 * The visible signature's lines (issue 19), in the signer's first box: who, when (in the organisation's zone), how,
 * and which request.
 */
export function signedByLines(
  name: string,
  at: Date,
  method: SigningMethodCode,
  refId: number,
  timeZone: string,
): string[] {
  return [`Digitally signed by ${name}`, formatDateTime(at, timeZone), METHOD_NAMES[method], `Ref ID ${refId}`];
}
