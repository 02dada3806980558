import * as x509 from '@peculiar/x509';

/*
 * Certificates parsed once per process (issue 23: parsing the same organisation CA, root and TSA certificates again
 * for every signature, OCSP answer and validation-data look-up was a large share of a B-LTA seal). Keyed by the PEM
 * text or the DER's base64; @peculiar/x509's certificates are only read, never changed, so one parse can be shared.
 */
const parsed = new Map<string, x509.X509Certificate>();
const KEPT = 256;

/** The certificate of a PEM or DER, parsed on first use. */
export function parsedCertificate(input: string | Uint8Array): x509.X509Certificate {
  const key = typeof input === 'string' ? input : Buffer.from(input).toString('base64');
  let certificate = parsed.get(key);
  if (!certificate) {
    certificate = new x509.X509Certificate(typeof input === 'string' ? input : Buffer.from(input));
    // One-time signer certificates pass through too: the map is emptied rather than grown without bound.
    if (parsed.size >= KEPT) parsed.clear();
    parsed.set(key, certificate);
  }
  return certificate;
}
