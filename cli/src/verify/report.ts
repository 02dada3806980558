import type { X509Certificate } from 'node:crypto';
import { checkChain, commonName, type ChainCheck } from './chain';
import { checkCms } from './cms';
import { findSignatures, revisionEnds, type ByteRange } from './pdf';

/** One signature's verdicts, as the table and --json show them. */
export interface SignatureReport {
  field: string;
  signer: string | null;
  /** ISO time: the signingTime attribute, else the dictionary's /M. */
  signedAt: string | null;
  signedAtSource: 'signingTime' | 'M' | null;
  subFilter: string | null;
  byteRange: ByteRange;
  digestAlgorithm: string | null;
  integrity: 'ok' | 'BROKEN';
  /** Why integrity is BROKEN (null when ok). */
  integrityProblem: string | null;
  chain: ChainCheck;
  coversWholeFile: boolean;
  issuer: string | null;
  serialNumber: string | null;
}

export interface CoverageReport {
  fileSize: number;
  /** Where the newest signature's coverage ends. */
  coveredUpTo: number;
  /** Bytes after the newest signature's /ByteRange. */
  uncoveredBytes: number;
  /** What the uncovered bytes look like: nothing, an unsigned incremental update, or not a PDF update at all. */
  uncovered: 'none' | 'whitespace' | 'incremental update' | 'not a PDF update';
  /** Earlier signatures whose coverage does not end at a revision's end (%%EOF). */
  problems: string[];
}

export interface DocumentReport {
  signatures: SignatureReport[];
  coverage: CoverageReport;
  /** Signature dictionaries that are not a signer's (Reader's usage rights): listed, not checked. */
  ignored: { field: string; kind: string }[];
  /** One line per failed check, naming the signature. */
  problems: string[];
}

const label = (s: { field: string; signer: string | null }) =>
  `signature '${s.field}'${s.signer ? ` (${s.signer})` : ''}`;

/** Checks every signature of the PDF: integrity, signer and time, chain to `anchors`, and what it covers. */
export function verifyDocument(bytes: Buffer, anchors: X509Certificate[], caGiven: boolean): DocumentReport {
  const all = findSignatures(bytes);
  const found = all.filter((s) => s.kind === 'field');
  const ignored = all.filter((s) => s.kind !== 'field').map((s) => ({ field: s.field, kind: s.kind }));
  const ends = revisionEnds(bytes);
  const signatures: SignatureReport[] = [];
  const problems: string[] = [];
  for (const sig of found) {
    const [o1, l1, o2, l2] = sig.byteRange;
    const inFile = o2 + l2 <= bytes.length && o1 + l1 <= bytes.length;
    const cms = sig.cms.length
      ? checkCms(sig.cms, inFile ? [bytes.subarray(o1, o1 + l1), bytes.subarray(o2, o2 + l2)] : [])
      : null;
    const signer = cms?.signer ?? null;
    const signedAt = cms?.signingTime ?? sig.m;
    let integrityProblem: string | null = sig.problems[0] ?? null;
    if (!integrityProblem) {
      if (!cms) integrityProblem = 'its /Contents holds no signature';
      else if (cms.error) integrityProblem = cms.error;
      else if (!cms.digestMatches) integrityProblem = 'the document changed after it was signed';
      else if (!cms.signatureValid) integrityProblem = "its signature does not match the signer's certificate";
    }
    const chain: ChainCheck = signer
      ? checkChain(signer, cms?.certificates ?? [], anchors, signedAt ?? new Date())
      : { status: 'untrusted', reason: "the signer's certificate is missing", path: [] };
    const report: SignatureReport = {
      field: sig.field,
      signer: signer ? commonName(signer) : sig.name,
      signedAt: signedAt ? signedAt.toISOString() : null,
      signedAtSource: cms?.signingTime ? 'signingTime' : sig.m ? 'M' : null,
      subFilter: sig.subFilter,
      byteRange: sig.byteRange,
      digestAlgorithm: cms?.digestAlgorithm ?? null,
      integrity: integrityProblem ? 'BROKEN' : 'ok',
      integrityProblem,
      chain,
      coversWholeFile: o1 === 0 && o2 + l2 === bytes.length,
      issuer: signer ? signer.issuer.replace(/\n/g, ', ') : null,
      serialNumber: signer?.serialNumber ?? null,
    };
    signatures.push(report);
    if (integrityProblem) problems.push(`${label(report)} is broken: ${integrityProblem}`);
    if (chain.status === 'untrusted' && (caGiven || !signer))
      problems.push(`${label(report)} is not trusted: ${chain.reason}`);
  }

  // Coverage: only the newest signature may reach the end; what follows it is not signed by anyone.
  const last = found.at(-1);
  const coveredUpTo = last ? last.byteRange[2] + last.byteRange[3] : 0;
  const tail = bytes.subarray(Math.min(coveredUpTo, bytes.length));
  const tailText = tail.toString('latin1');
  const uncovered: CoverageReport['uncovered'] =
    !last || tail.length === 0
      ? 'none'
      : /^[\s\0]*$/.test(tailText)
        ? 'whitespace'
        : /(xref|\/Type\s*\/XRef)[\s\S]*startxref\s+\d+\s+%%EOF\s*$/.test(tailText)
          ? 'incremental update'
          : 'not a PDF update';
  const coverage: CoverageReport = {
    fileSize: bytes.length,
    coveredUpTo,
    uncoveredBytes: last ? Math.max(0, bytes.length - coveredUpTo) : 0,
    uncovered,
    problems: [],
  };
  for (const [i, s] of signatures.entries()) {
    const end = s.byteRange[2] + s.byteRange[3];
    if (i < signatures.length - 1 && !ends.includes(end) && !/^[\s\0]*$/.test(bytes.toString('latin1', end, end + 2)))
      coverage.problems.push(`${label(s)} does not end at the end of a revision`);
  }
  if (last && (uncovered === 'incremental update' || uncovered === 'not a PDF update')) {
    const lastReport = signatures[signatures.length - 1];
    coverage.problems.push(
      uncovered === 'incremental update'
        ? `the document was modified after signing: ${coverage.uncoveredBytes} bytes after ${label(lastReport)} are an unsigned incremental update`
        : `the document was modified after signing: ${coverage.uncoveredBytes} bytes after ${label(lastReport)} are not covered by any signature (not a PDF update)`,
    );
  }
  problems.push(...coverage.problems);
  if (!signatures.length) problems.push('the document carries no signatures');
  return { signatures, ignored, coverage, problems };
}
