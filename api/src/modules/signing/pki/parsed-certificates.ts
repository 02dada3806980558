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

/** A certificate just made here, kept under its PEM so that its first readers need not parse it back. */
export function rememberCertificate(pem: string, certificate: x509.X509Certificate): void {
  if (parsed.size >= KEPT) parsed.clear();
  parsed.set(pem, certificate);
}

/**
 * A pure function of a certificate's PEM (its key hashes, its CA id, its summary), computed once per PEM and process:
 * the seal asks them of the same organisation CA, root and seal certificates for every signer (issue 23's profile:
 * about a tenth of a 6-signer seal went to parsing those three again). Bounded like the parsed certificates.
 */
export function perCertificate<A extends unknown[], R>(
  fn: (pem: string, ...rest: A) => R,
): (pem: string, ...rest: A) => R {
  const kept = new Map<string, R>();
  return (pem: string, ...rest: A): R => {
    const key = rest.length ? `${rest.map(String).join('\u0000')}\u0000${pem}` : pem;
    if (kept.has(key)) return kept.get(key) as R;
    const value = fn(pem, ...rest);
    if (kept.size >= KEPT) kept.clear();
    kept.set(key, value);
    return value;
  };
}
