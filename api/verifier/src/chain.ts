import { X509Certificate } from 'node:crypto';

/** The outcome of building a signer certificate's chain to a trusted root. */
export interface ChainCheck {
  status: 'trusted' | 'untrusted' | 'not checked';
  /** Why untrusted / not checked; null when trusted. */
  reason: string | null;
  /** Subjects' common names from the signer up to the trust anchor. */
  path: string[];
}

/** Every certificate in a PEM text (a file may hold a bundle). */
export function certificatesFromPem(text: string): X509Certificate[] {
  const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return pems.map((pem) => new X509Certificate(pem));
}

/** The CN of a certificate's subject (or the whole subject when it has none). */
export function commonName(cert: X509Certificate): string {
  const cn = /^CN=(.*)$/m.exec(cert.subject)?.[1];
  return (cn ?? cert.subject.replace(/\n/g, ', ')).trim();
}

export const validAt = (cert: X509Certificate, at: Date) =>
  new Date(cert.validFrom).getTime() <= at.getTime() && at.getTime() <= new Date(cert.validTo).getTime();

export const issued = (child: X509Certificate, parent: X509Certificate): boolean => {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
};

/**
 * Builds the chain from the signer certificate through the CMS's certificates to one of the trust anchors, each
 * certificate valid at `at` (the signing time, or what `when` names). Without anchors the chain is not checked.
 */
export function checkChain(
  signer: X509Certificate,
  pool: X509Certificate[],
  anchors: X509Certificate[],
  at: Date,
  when = 'the signing time',
): ChainCheck {
  const path = [commonName(signer)];
  if (!anchors.length) return { status: 'not checked', reason: 'no CA given', path };
  const isAnchor = (c: X509Certificate) => anchors.some((a) => a.fingerprint256 === c.fingerprint256);
  const candidates = [...pool, ...anchors];
  let current = signer;
  for (let depth = 0; depth < 10; depth++) {
    if (!validAt(current, at))
      return {
        status: 'untrusted',
        reason: `the certificate '${commonName(current)}' was not valid at ${when} (${current.validFrom} to ${current.validTo})`,
        path,
      };
    if (isAnchor(current)) return { status: 'trusted', reason: null, path };
    const anchor = anchors.find((a) => issued(current, a));
    if (anchor) {
      if (!validAt(anchor, at))
        return {
          status: 'untrusted',
          reason: `the CA '${commonName(anchor)}' was not valid at ${when}`,
          path: [...path, commonName(anchor)],
        };
      return { status: 'trusted', reason: null, path: [...path, commonName(anchor)] };
    }
    const parent = candidates.find((c) => c.fingerprint256 !== current.fingerprint256 && issued(current, c));
    if (!parent) {
      const selfSigned = issued(current, current);
      return {
        status: 'untrusted',
        reason: selfSigned
          ? `it chains to '${commonName(current)}', which is not a trusted CA`
          : `no certificate issued '${commonName(current)}' (issuer ${current.issuer.replace(/\n/g, ', ')}) among the signature's and the trusted CAs`,
        path,
      };
    }
    current = parent;
    path.push(commonName(current));
  }
  return { status: 'untrusted', reason: 'the certificate chain is too long', path };
}

/**
 * The certificates from `cert` up to a trust anchor or a self-signed root, whatever their validity times: the chain
 * whose certificates and revocation data long-term validation needs. `complete` when it ends at an anchor or a root.
 */
export function buildPath(
  cert: X509Certificate,
  pool: X509Certificate[],
  anchors: X509Certificate[],
): { path: X509Certificate[]; complete: boolean } {
  const isAnchor = (c: X509Certificate) => anchors.some((a) => a.fingerprint256 === c.fingerprint256);
  const candidates = [...anchors, ...pool];
  const path = [cert];
  for (let current = cert; path.length < 10;) {
    if (isAnchor(current) || issued(current, current)) return { path, complete: true };
    const parent = candidates.find((c) => c.fingerprint256 !== current.fingerprint256 && issued(current, c));
    if (!parent || path.some((p) => p.fingerprint256 === parent.fingerprint256)) return { path, complete: false };
    path.push(parent);
    current = parent;
  }
  return { path, complete: false };
}

/** A root: it issued itself. */
export const selfSigned = (cert: X509Certificate): boolean => issued(cert, cert);
