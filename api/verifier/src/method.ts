/**
 * How a signature was made, as the product writes it in the signature dictionary's /Reason: 'Signed by {name} with
 * Aadhaar eSign (Ref ID …)', '… with a DSC (Ref ID …)', '… with an electronic signature (Ref ID …)', and the final
 * 'Sealed by {organisation}: every party has signed (Ref ID …)'. Signatures made elsewhere have no method (null).
 */
export const SIGNATURE_METHODS = ['Aadhaar eSign', 'DSC', 'e-Signature', 'organisation seal'] as const;
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];

export function signatureMethod(reason: string | null, name: string | null): SignatureMethod | null {
  const text = `${reason ?? ''} ${name ?? ''}`;
  if (/^\s*Sealed by\b/i.test(reason ?? '') || /\borganisation seal\b/i.test(text)) return 'organisation seal';
  if (/\bAadhaar\b/i.test(text)) return 'Aadhaar eSign';
  if (/\bDSC\b|digital signature certificate/i.test(text)) return 'DSC';
  if (/\belectronic signature\b|\be-Signature\b/i.test(text)) return 'e-Signature';
  return null;
}

/** The request's Ref ID the product writes in every /Reason, or null. */
export function reasonRefId(reason: string | null): number | null {
  const m = /\bRef ID (\d+)\b/.exec(reason ?? '');
  return m ? Number(m[1]) : null;
}
