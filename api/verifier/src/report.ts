import type { X509Certificate } from 'node:crypto';
import { certificateFrom } from './asn1';
import type { SignatureLevel } from '@esign/contract';
import { PdfObjects } from '@esign/pdf-syntax';
import { checkChain, commonName, type ChainCheck } from './chain';
import { checkCms, type CmsCheck } from './cms';
import { coverageOf, type CoverageReport } from './coverage';
import {
  pathOf,
  pathStatuses,
  revokedProblem,
  signatureLevel,
  validateAt,
  type AtCheck,
  type Evidence,
  type Proof,
} from './levels';
import { reasonRefId, signatureMethod, type SignatureMethod } from './method';
import { findSignatures, type ByteRange, type PdfSignature } from './pdf';
import { readDss } from './pdf-objects';
import { parseRevocationData, type RevocationStatus } from './revocation';
import { checkTimestampToken, type TimestampCheck } from './timestamp';

export type { CoverageReport } from './coverage';

/** A timestamp token as the report shows it (a signature's, or a document timestamp's). */
export interface TimestampReport {
  /** The time the TSA vouches for (ISO 8601). */
  time: string | null;
  /** The TSA certificate's common name. */
  tsa: string | null;
  serial: string | null;
  policy: string | null;
  hashAlgorithm: string | null;
  /** The message imprint (hex) and whether it is the digest of what it should cover. */
  imprint: string | null;
  imprintMatches: boolean;
  /** The TSA's signature over the token holds. */
  signatureValid: boolean;
  /** The TSA certificate carries the extended key usage id-kp-timeStamping. */
  timestampUsage: boolean;
  /** The TSA certificate's chain to the --ca anchors at the token's time. */
  chain: ChainCheck;
  /** Why the token does not hold (null when it does). */
  problem: string | null;
}

/** One signature's verdicts, as the table and --json show them. */
export interface SignatureReport {
  field: string;
  signer: string | null;
  /**
   * ISO time: the time the signature timestamp proves when it holds, else the signingTime attribute, else the
   * dictionary's /M (the signer's claim).
   */
  signedAt: string | null;
  signedAtSource: 'timestamp' | 'signingTime' | 'M' | null;
  /** The claimed time (signingTime attribute, else /M), whatever the timestamp says. */
  claimedAt: string | null;
  subFilter: string | null;
  byteRange: ByteRange;
  digestAlgorithm: string | null;
  integrity: 'ok' | 'BROKEN';
  /** Why integrity is BROKEN (null when ok). */
  integrityProblem: string | null;
  /** The same as integrity: the messageDigest over the ByteRange and the signature over the signed attributes hold. */
  intact: boolean;
  chain: ChainCheck;
  coversWholeFile: boolean;
  issuer: string | null;
  serialNumber: string | null;
  /** How it was made, from /Reason: Aadhaar eSign, DSC, e-Signature, organisation seal (null: not this product's). */
  method: SignatureMethod | null;
  /** The dictionary's /Name and /Reason, and the Ref ID the reason names. */
  name: string | null;
  reason: string | null;
  refId: number | null;
  /** The PAdES baseline level it reaches (null when broken), and what it lacks for the next level. */
  level: SignatureLevel | null;
  levelMissing: string[];
  /** The signature-timestamp token (unsigned attribute 1.2.840.113549.1.9.16.2.14), null without one. */
  timestamp: TimestampReport | null;
  /** What the document's revocation data says of each certificate of its chain and its TSA's (roots left out). */
  revocation: RevocationStatus[];
  /** With a date to check at: would it still validate then, using only the file? */
  at: AtCheck | null;
  /** Every check passed (what `problems` says otherwise, without the signature's name). */
  valid: boolean;
  problems: string[];
}

/** A document timestamp (/Type /DocTimeStamp): the archive timestamp of PAdES B-LTA. */
export interface DocumentTimestampReport extends TimestampReport {
  field: string;
  byteRange: ByteRange;
  coversWholeFile: boolean;
  /** Its imprint matches the bytes its /ByteRange covers and the TSA's signature holds. */
  intact: boolean;
  revocation: RevocationStatus[];
  at: AtCheck | null;
  valid: boolean;
  problems: string[];
}

export interface DssReport {
  present: boolean;
  certificates: number;
  ocsps: number;
  crls: number;
}

export interface DocumentReport {
  signatures: SignatureReport[];
  /** Document timestamps, in file order. */
  documentTimestamps: DocumentTimestampReport[];
  /** What the Document Security Store holds. */
  dss: DssReport;
  coverage: CoverageReport;
  /** Signature dictionaries that are not a signer's (Reader's usage rights): listed, not checked. */
  ignored: { field: string; kind: string }[];
  /** The date of the long-term check (--at), or null. */
  at: string | null;
  /** One line per failed check, naming the signature. */
  problems: string[];
}

export interface VerifyOptions {
  /** Judge too whether each signature would still validate at this date, using only what the file carries. */
  at?: Date | null;
}

const label = (s: { field: string; signer: string | null }) =>
  `signature '${s.field}'${s.signer ? ` (${s.signer})` : ''}`;

const certificatesFrom = (ders: Uint8Array[]): X509Certificate[] =>
  ders.flatMap((der) => {
    try {
      return [certificateFrom(der)];
    } catch {
      return [];
    }
  });

const uniqueCerts = (certs: X509Certificate[]) => {
  const seen = new Set<string>();
  return certs.filter((c) => !seen.has(c.fingerprint256) && seen.add(c.fingerprint256));
};

const covered = (bytes: Buffer, [o1, l1, o2, l2]: ByteRange): Uint8Array[] | null =>
  o2 + l2 <= bytes.length && o1 + l1 <= bytes.length
    ? [bytes.subarray(o1, o1 + l1), bytes.subarray(o2, o2 + l2)]
    : null;

function timestampProblem(check: TimestampCheck): string | null {
  if (check.error) return check.error;
  if (!check.imprintMatches) return 'its timestamp token is not over this signature (the message imprint differs)';
  if (!check.signatureValid) return "its timestamp token's signature does not verify";
  if (!check.timestampUsage) return "its timestamp token's certificate is not a timestamping certificate";
  return null;
}

function timestampReport(check: TimestampCheck | null, ev: Evidence, problem: string | null): TimestampReport {
  const chain: ChainCheck = check?.signer
    ? checkChain(check.signer, ev.pool, ev.anchors, check.time ?? new Date(), "the timestamp's time")
    : { status: 'untrusted', reason: "the timestamp authority's certificate is missing", path: [] };
  return {
    time: check?.time ? check.time.toISOString() : null,
    tsa: check?.tsa ?? null,
    serial: check?.serial ?? null,
    policy: check?.policy ?? null,
    hashAlgorithm: check?.hashAlgorithm ?? null,
    imprint: check?.imprint ?? null,
    imprintMatches: check?.imprintMatches ?? false,
    signatureValid: check?.signatureValid ?? false,
    timestampUsage: check?.timestampUsage ?? false,
    chain,
    problem,
  };
}

interface Parsed {
  sig: PdfSignature;
  cms: CmsCheck | null;
  timestamp: TimestampCheck | null;
}

/**
 * Checks every signature of the PDF: integrity, signer, method and time, chain to `anchors`, what it covers, its
 * timestamp, the revocation data the file carries and the PAdES level; document timestamps alike; and with
 * `options.at`, whether each would still validate at that date.
 */
export function verifyDocument(
  bytes: Buffer,
  anchors: X509Certificate[],
  caGiven: boolean,
  options: VerifyOptions = {},
): DocumentReport {
  const objects = new PdfObjects(bytes);
  const all = findSignatures(bytes, objects);
  const found = all.filter((s) => s.kind === 'field');
  const ignored = all.filter((s) => s.kind !== 'field').map((s) => ({ field: s.field, kind: s.kind }));
  const dss = readDss(objects);
  const dssCerts = certificatesFrom(dss.certificates);
  const revocation = parseRevocationData(dss.ocsps, dss.crls);

  // Parse everything first: the chains may need any certificate the file carries.
  const parsed: Parsed[] = found.map((sig) => {
    const parts = covered(bytes, sig.byteRange);
    if (sig.documentTimestamp)
      return { sig, cms: null, timestamp: sig.cms.length ? checkTimestampToken(sig.cms, parts ?? []) : null };
    const cms = sig.cms.length ? checkCms(sig.cms, parts ?? []) : null;
    const token = cms?.timestampTokens[0];
    return {
      sig,
      cms,
      timestamp: token && cms?.signatureValue ? checkTimestampToken(token, [cms.signatureValue]) : null,
    };
  });
  const ev: Evidence = {
    anchors,
    pool: uniqueCerts([
      ...parsed.flatMap((p) => [...(p.cms?.certificates ?? []), ...(p.timestamp?.certificates ?? [])]),
      ...dssCerts,
      ...revocation.ocsp.flatMap((o) => o.certificates),
    ]),
    dssPresent: dss.present,
    dssCertificates: new Set(dssCerts.map((c) => c.fingerprint256)),
    revocation,
  };
  const at = options.at ?? null;

  // Document timestamps first: a signature's B-LTA and its long-term check lean on those after it.
  const documentTimestamps: DocumentTimestampReport[] = [];
  const archives: (Proof & { statuses: RevocationStatus[]; end: number; report: DocumentTimestampReport })[] = [];
  for (const { sig, timestamp } of parsed) {
    if (!sig.documentTimestamp) continue;
    const problem =
      sig.problems[0] ?? (timestamp ? timestampProblem(timestamp) : 'its /Contents holds no timestamp token');
    const tsaPath = timestamp?.signer ? pathOf(timestamp.signer, ev) : null;
    const statuses = tsaPath ? pathStatuses(tsaPath.path, ['TSA', 'TSA CA'], ev) : [];
    const end = sig.byteRange[2] + sig.byteRange[3];
    const report: DocumentTimestampReport = {
      ...timestampReport(timestamp, ev, problem),
      field: sig.field,
      byteRange: sig.byteRange,
      coversWholeFile: sig.byteRange[0] === 0 && end === bytes.length,
      intact: problem === null,
      revocation: statuses,
      at: null,
      valid: true,
      problems: [],
    };
    if (problem) report.problems.push(`it is broken: ${problem}`);
    if (caGiven && report.chain.status === 'untrusted')
      report.problems.push(`its timestamp authority is not trusted: ${report.chain.reason}`);
    for (const status of statuses) {
      const revoked = revokedProblem(status, timestamp?.time ?? null);
      if (revoked) report.problems.push(revoked);
    }
    documentTimestamps.push(report);
    if (report.intact && timestamp?.signer && timestamp.time)
      archives.push({
        time: timestamp.time,
        tsa: timestamp.signer,
        label: `the document timestamp '${sig.field}'`,
        statuses,
        end,
        report,
      });
  }
  for (const report of documentTimestamps) {
    if (at) {
      const from = archives.findIndex((a) => a.report === report);
      report.at = validateAt({
        date: at,
        intact: report.intact,
        subject: null,
        proofs: from < 0 ? [] : archives.slice(from),
        ev,
      });
      if (!report.at.valid)
        report.problems.push(`it would not validate at ${report.at.date}: ${report.at.reasons.join('; ')}`);
    }
    report.valid = report.problems.length === 0;
  }

  const signatures: SignatureReport[] = [];
  for (const { sig, cms, timestamp } of parsed) {
    if (sig.documentTimestamp) continue;
    const signer = cms?.signer ?? null;
    const claimed = cms?.signingTime ?? sig.m;
    let integrityProblem: string | null = sig.problems[0] ?? null;
    if (!integrityProblem) {
      if (!cms) integrityProblem = 'its /Contents holds no signature';
      else if (cms.error) integrityProblem = cms.error;
      else if (!cms.digestMatches) integrityProblem = 'the document changed after it was signed';
      else if (!cms.signatureValid) integrityProblem = "its signature does not match the signer's certificate";
    }
    const tsProblem = timestamp ? timestampProblem(timestamp) : null;
    const tsHolds = Boolean(timestamp && !tsProblem && timestamp.time && timestamp.signer);
    const signedAt = tsHolds ? timestamp!.time : claimed;
    const chain: ChainCheck = signer
      ? checkChain(signer, ev.pool, anchors, signedAt ?? new Date())
      : { status: 'untrusted', reason: "the signer's certificate is missing", path: [] };
    const signerPath = signer ? pathOf(signer, ev) : { path: [], complete: false };
    const tsaPath = tsHolds ? pathOf(timestamp!.signer!, ev) : null;
    const statuses = [
      ...pathStatuses(signerPath.path, ['signer', 'CA'], ev),
      ...(tsaPath ? pathStatuses(tsaPath.path, ['TSA', 'TSA CA'], ev) : []),
    ];
    const end = sig.byteRange[2] + sig.byteRange[3];
    const later = archives.filter((a) => a.end > end);
    const intact = integrityProblem === null;
    const { level, missing } = signatureLevel({
      intact,
      timestampHolds: tsHolds,
      timestampProblem: tsProblem,
      signerPath,
      tsaPath,
      statuses,
      archived: later.length > 0,
      ev,
    });
    const tsReport = timestamp ? timestampReport(timestamp, ev, tsProblem) : null;
    const proofs = [
      ...(tsHolds
        ? [
            {
              time: timestamp!.time!,
              tsa: timestamp!.signer!,
              label: 'its signature timestamp',
              statuses: statuses.filter((s) => s.role === 'TSA' || s.role === 'TSA CA'),
            },
          ]
        : []),
      ...later,
    ];
    const signerStatuses = statuses.filter((s) => s.role === 'signer' || s.role === 'CA');
    const report: SignatureReport = {
      field: sig.field,
      signer: signer ? commonName(signer) : sig.name,
      signedAt: signedAt ? signedAt.toISOString() : null,
      signedAtSource: tsHolds ? 'timestamp' : cms?.signingTime ? 'signingTime' : sig.m ? 'M' : null,
      claimedAt: claimed ? claimed.toISOString() : null,
      subFilter: sig.subFilter,
      byteRange: sig.byteRange,
      digestAlgorithm: cms?.digestAlgorithm ?? null,
      integrity: intact ? 'ok' : 'BROKEN',
      integrityProblem,
      intact,
      chain,
      coversWholeFile: sig.byteRange[0] === 0 && end === bytes.length,
      issuer: signer ? signer.issuer.replace(/\n/g, ', ') : null,
      serialNumber: signer?.serialNumber ?? null,
      method: signatureMethod(sig.reason, sig.name),
      name: sig.name,
      reason: sig.reason,
      refId: reasonRefId(sig.reason),
      level,
      levelMissing: missing,
      timestamp: tsReport,
      revocation: statuses,
      at: at ? validateAt({ date: at, intact, subject: { cert: signer, statuses: signerStatuses }, proofs, ev }) : null,
      valid: true,
      problems: [],
    };
    if (integrityProblem) report.problems.push(`is broken: ${integrityProblem}`);
    if (chain.status === 'untrusted' && (caGiven || !signer)) report.problems.push(`is not trusted: ${chain.reason}`);
    if (tsProblem) report.problems.push(`has a timestamp that does not hold: ${tsProblem}`);
    else if (tsReport && caGiven && tsReport.chain.status === 'untrusted')
      report.problems.push(`has a timestamp from an authority that is not trusted: ${tsReport.chain.reason}`);
    const proven = proofs[0]?.time ?? null;
    for (const status of signerStatuses) {
      const revoked = revokedProblem(status, proven);
      if (revoked) report.problems.push(`is not valid: ${revoked}`);
    }
    for (const status of statuses.filter((s) => s.role === 'TSA' || s.role === 'TSA CA')) {
      const revoked = revokedProblem(status, timestamp?.time ?? null);
      if (revoked) report.problems.push(`has a timestamp that does not hold: ${revoked}`);
    }
    if (report.at && !report.at.valid)
      report.problems.push(`would not validate at ${report.at.date}: ${report.at.reasons.join('; ')}`);
    report.valid = report.problems.length === 0;
    signatures.push(report);
  }

  const coverage = coverageOf(
    bytes,
    objects,
    found.map((s) => {
      const signatureReport = signatures.find((r) => r.field === s.field && r.byteRange === s.byteRange);
      return {
        label: s.documentTimestamp
          ? `document timestamp '${s.field}'`
          : label({ field: s.field, signer: signatureReport?.signer ?? null }),
        byteRange: s.byteRange,
      };
    }),
  );
  const problems = [
    ...signatures.flatMap((s) => s.problems.map((p) => `${label(s)} ${p}`)),
    ...documentTimestamps.flatMap((d) => d.problems.map((p) => `document timestamp '${d.field}': ${p}`)),
    ...coverage.problems,
  ];
  if (!signatures.length && !documentTimestamps.length) problems.push('the document carries no signatures');
  return {
    signatures,
    documentTimestamps,
    dss: {
      present: dss.present,
      certificates: dss.certificates.length,
      ocsps: dss.ocsps.length,
      crls: dss.crls.length,
    },
    coverage,
    ignored,
    at: at ? at.toISOString() : null,
    problems,
  };
}
