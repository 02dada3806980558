import type { X509Certificate } from 'node:crypto';
import type { SignatureLevel } from '@esign/contract';
import { buildPath, checkChain, commonName, selfSigned, validAt } from './chain';
import { revocationStatus, type RevocationData, type RevocationStatus } from './revocation';

/**
 * PAdES baseline levels (ETSI EN 319 142-1) and long-term validation at a date, judged only from what the file
 * carries: the signatures' certificates, their timestamp tokens, the DSS's certificates and revocation data, and the
 * document timestamps.
 */

/** Everything the file carries that a chain or a revocation check may use, and the caller's trust anchors. */
export interface Evidence {
  anchors: X509Certificate[];
  /** Every certificate of the file: the signatures', the timestamp tokens', the DSS's, the OCSP responses'. */
  pool: X509Certificate[];
  dssPresent: boolean;
  /** SHA-256 fingerprints of the DSS's certificates. */
  dssCertificates: Set<string>;
  revocation: RevocationData;
  /** Revocation statuses already worked out, by certificate and issuer (a TSA's recur in every signature). */
  statuses?: Map<string, RevocationStatus>;
}

/** Would it still validate at `date`, with only what the file carries? */
export interface AtCheck {
  date: string;
  valid: boolean;
  /** The earliest time a timestamp proves the signature existed (ISO 8601), or null when none does. */
  provenAt: string | null;
  /** Why not (empty when valid). */
  reasons: string[];
}

/** A timestamp that proves existence: its time and its TSA's certificate. */
export interface Proof {
  time: Date;
  tsa: X509Certificate;
  /** What it is, for the reasons: 'its signature timestamp', 'the document timestamp Timestamp_1'. */
  label: string;
}

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
const isAnchor = (ev: Evidence, c: X509Certificate) => ev.anchors.some((a) => a.fingerprint256 === c.fingerprint256);

/** The certificates from `cert` up to an anchor or a root, and whether it got there. */
export const pathOf = (cert: X509Certificate, ev: Evidence) => buildPath(cert, ev.pool, ev.anchors);

/** The revocation status of each certificate of a path that needs one (all but the anchor or root it ends at). */
export function pathStatuses(
  path: X509Certificate[],
  roles: [RevocationStatus['role'], RevocationStatus['role']],
  ev: Evidence,
): RevocationStatus[] {
  const out: RevocationStatus[] = [];
  ev.statuses ??= new Map();
  path.forEach((cert, i) => {
    if (selfSigned(cert) || isAnchor(ev, cert)) return;
    const issuer = path[i + 1] ?? null;
    const role = i === 0 ? roles[0] : roles[1];
    const key = `${cert.fingerprint256}/${issuer?.fingerprint256 ?? ''}`;
    let status = ev.statuses!.get(key);
    if (!status) {
      status = revocationStatus(cert, issuer, role, ev.revocation, ev.pool);
      ev.statuses!.set(key, status);
    }
    out.push({ ...status, role });
  });
  return out;
}

/** Why the revocation data does not clear a certificate for use at `time` (null when it does). */
function revocationProblem(status: RevocationStatus, time: Date | null): string | null {
  if (status.status === 'no data') return `the file carries no revocation data for '${status.subject}'`;
  if (!status.verified) return `the revocation data for '${status.subject}' does not verify`;
  if (status.status === 'revoked') {
    const at = status.revokedAt ? new Date(status.revokedAt) : null;
    if (!at || !time || at.getTime() <= time.getTime())
      return `the certificate '${status.subject}' was revoked${at ? ` on ${iso(at)}` : ''}`;
  }
  if (status.status === 'unknown') return `the OCSP responder does not know the certificate '${status.subject}'`;
  return null;
}

/** Why `cert`'s chain is not valid at `time` (each certificate within its validity, trusted when anchors are given). */
function chainProblem(cert: X509Certificate, ev: Evidence, time: Date, when: string): string | null {
  if (ev.anchors.length) {
    const check = checkChain(cert, ev.pool, ev.anchors, time, when);
    return check.status === 'trusted' ? null : check.reason;
  }
  for (const c of pathOf(cert, ev).path)
    if (!validAt(c, time))
      return `the certificate '${commonName(c)}' was not valid at ${when} (${c.validFrom} to ${c.validTo})`;
  return null;
}

/** The level a signature reaches, and what it lacks for the next one. */
export function signatureLevel(args: {
  intact: boolean;
  timestampHolds: boolean;
  timestampProblem: string | null;
  signerPath: { path: X509Certificate[]; complete: boolean };
  tsaPath: { path: X509Certificate[]; complete: boolean } | null;
  statuses: RevocationStatus[];
  archived: boolean;
  ev: Evidence;
}): { level: SignatureLevel | null; missing: string[] } {
  if (!args.intact) return { level: null, missing: ['the signature is broken'] };
  if (!args.timestampHolds) return { level: 'B-B', missing: [args.timestampProblem ?? 'no signature timestamp'] };
  const missing: string[] = [];
  if (!args.ev.dssPresent) missing.push('the document has no DSS (validation data)');
  for (const [chain, whose] of [
    [args.signerPath, 'signer'],
    [args.tsaPath, 'timestamp authority'],
  ] as const) {
    if (!chain) continue;
    if (!chain.complete)
      missing.push(`the ${whose}'s chain cannot be completed from '${commonName(chain.path.at(-1)!)}'`);
    if (args.ev.dssPresent)
      for (const cert of chain.path)
        if (!args.ev.dssCertificates.has(cert.fingerprint256))
          missing.push(`the DSS lacks the certificate '${commonName(cert)}'`);
  }
  for (const status of args.statuses) {
    if (status.status === 'no data') missing.push(`the file carries no revocation data for '${status.subject}'`);
    else if (!status.verified) missing.push(`the revocation data for '${status.subject}' does not verify`);
    else if (status.status === 'unknown')
      missing.push(`the OCSP responder does not know the certificate '${status.subject}'`);
  }
  if (missing.length) return { level: 'B-T', missing };
  if (!args.archived) return { level: 'B-LT', missing: ['no document timestamp covers it'] };
  return { level: 'B-LTA', missing: [] };
}

/**
 * Would a signature (or a document timestamp: `subject` null) still validate at `date` using only the file? Its
 * certificate must be valid when the first timestamp proves it existed (else at `date`), each timestamp's TSA
 * certificate when the next timestamp proves it existed (the last one's at `date`), and revocation data must clear
 * every certificate for the time it was used.
 */
export function validateAt(args: {
  date: Date;
  intact: boolean;
  subject: { cert: X509Certificate | null; statuses: RevocationStatus[] } | null;
  proofs: (Proof & { statuses: RevocationStatus[] })[];
  ev: Evidence;
}): AtCheck {
  const { date, proofs, ev } = args;
  const reasons: string[] = [];
  if (!args.intact) reasons.push('the signature is broken');
  const first = proofs[0] ?? null;
  if (args.subject) {
    const time = first?.time ?? date;
    const when = first ? `the time ${first.label} proves (${iso(first.time)})` : iso(date);
    if (!args.subject.cert) reasons.push("the signer's certificate is missing");
    else {
      const problem = chainProblem(args.subject.cert, ev, time, when);
      if (problem) reasons.push(first ? problem : `${problem}, and no timestamp proves the signature existed earlier`);
    }
    for (const status of args.subject.statuses) {
      const problem = revocationProblem(status, first ? first.time : null);
      if (problem) reasons.push(problem);
    }
  }
  proofs.forEach((proof, i) => {
    const next = proofs[i + 1];
    const when = next ? `the time ${next.label} proves (${iso(next.time)})` : iso(date);
    const problem = chainProblem(proof.tsa, ev, next?.time ?? date, when);
    if (problem) reasons.push(`${proof.label}: ${problem}`);
    for (const status of proof.statuses) {
      const revoked = revocationProblem(status, proof.time);
      if (revoked) reasons.push(`${proof.label}: ${revoked}`);
    }
  });
  return {
    date: date.toISOString(),
    valid: reasons.length === 0,
    provenAt: first ? first.time.toISOString() : null,
    reasons,
  };
}

/** Revoked before the time a timestamp proves (or without such a proof): the reason, else null. */
export function revokedProblem(status: RevocationStatus, proven: Date | null): string | null {
  if (status.status !== 'revoked') return null;
  return revocationProblem(status, proven);
}
