import { readFileSync, statSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import { formatDateTime } from '@esign/contract';
import {
  certificatesFromPem,
  looksLikePdf,
  pdfText,
  readCertificate,
  verifyDocument,
  type AuditCheck,
  type DocumentReport,
  type RevocationStatus,
  type SignatureReport,
} from '@esign/verifier';
import type { Command } from 'commander';
import { ApiClient, connection } from '../core/client';
import { action, type CommandContext } from '../core/command';
import { CliError, ExitCode } from '../core/errors';
import { emit, table } from '../core/output';
import { timeZoneOf } from './requests';

interface VerifyOptions {
  ca: string[];
  offline?: boolean;
  at?: string;
}

/** What `GET /api/requests/:refId/audit` answers (the parts compared). */
interface AuditTrail {
  refId: number;
  events: { hash: string }[];
  chain: { intact: boolean; lastHash: string | null };
}

export interface VerifyResult extends DocumentReport {
  ok: boolean;
  file: string;
  audit: AuditCheck;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function readAnchors(files: string[]): X509Certificate[] {
  const anchors: X509Certificate[] = [];
  for (const file of files) {
    let certs: X509Certificate[];
    try {
      certs = certificatesFromPem(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new CliError(`--ca ${file}: ${(error as Error).message}`, ExitCode.usage);
    }
    if (!certs.length) throw new CliError(`--ca ${file}: no PEM certificate in the file`, ExitCode.usage);
    anchors.push(...certs);
  }
  return anchors;
}

/** The certificate of completion's audit line against the API's audit trail of the same Ref ID. */
async function checkAudit(ctx: CommandContext, file: string, offline: boolean): Promise<AuditCheck> {
  const none = { refId: null, certificateLastHash: null, apiLastHash: null, apiIntact: null };
  const text = pdfText(file);
  if (text === null)
    return { ...none, status: 'skipped', detail: 'audit check skipped: pdftotext (poppler-utils) is not available' };
  const cert = readCertificate(text);
  if (!cert) return { ...none, status: 'absent', detail: 'no certificate of completion in the document' };
  const base = { refId: cert.refId, certificateLastHash: cert.lastHash, apiLastHash: null, apiIntact: null };
  if (cert.chainIntact === false)
    return { ...base, status: 'MISMATCH', detail: 'the certificate of completion says the audit chain was not intact' };
  if (offline) return { ...base, status: 'not checked', detail: 'audit trail not checked (--offline)' };
  const conn = connection(ctx.globals, ctx.env);
  if (!conn.key)
    return {
      ...base,
      status: 'not checked',
      detail: 'audit trail not checked: no key (--key, ESIGN_API_KEY or login)',
    };
  let trail: AuditTrail;
  try {
    trail = await new ApiClient(conn).request<AuditTrail>('GET', `/api/requests/${cert.refId}/audit`);
  } catch (error) {
    if (error instanceof CliError && error.exitCode === ExitCode.notFound)
      return {
        ...base,
        status: 'MISMATCH',
        detail: `the API knows no request ${cert.refId} in this organisation`,
      };
    // Unreachable API, refused key: the signatures are still reported; the audit line says why it was not checked.
    return { ...base, status: 'not checked', detail: `audit trail not checked: ${(error as Error).message}` };
  }
  const result = { ...base, apiLastHash: trail.chain.lastHash, apiIntact: trail.chain.intact };
  if (!trail.chain.intact)
    return { ...result, status: 'MISMATCH', detail: `the audit chain of request ${cert.refId} is broken in the API` };
  const at = cert.lastHash ? trail.events.findIndex((e) => e.hash === cert.lastHash) : -1;
  if (at < 0)
    return {
      ...result,
      status: 'MISMATCH',
      detail: `the certificate's last hash ${cert.lastHash ?? '(none)'} is not in the audit chain of request ${cert.refId}`,
    };
  const later = trail.events.length - 1 - at;
  return {
    ...result,
    status: 'matches',
    detail: `audit chain of request ${cert.refId} intact; the certificate's last hash is event ${at + 1} of ${trail.events.length}${later ? ` (${later} later event${later === 1 ? '' : 's'})` : ''}`,
  };
}

const STATUS_TEXT = (s: { valid: boolean }) => (s.valid ? 'valid' : 'NOT VALID');

/** One certificate's revocation status, as a person reads it. */
function revocationText(r: RevocationStatus, when: (iso: string | null) => string): string {
  if (r.status === 'no data') return `'${r.subject}' (${r.role}): no revocation data in the file`;
  const time = r.source === 'OCSP' ? `produced ${when(r.producedAt)}` : `this update ${when(r.thisUpdate)}`;
  const revoked = r.status === 'revoked' ? ` on ${when(r.revokedAt)}` : '';
  const unverified = r.verified ? '' : ', its signature does NOT verify';
  return `'${r.subject}' (${r.role}): ${r.status}${revoked} (${r.source}, ${time}${unverified})`;
}

function signatureLines(s: SignatureReport, when: (iso: string | null) => string, dss: boolean): string[] {
  const lines: string[] = [];
  if (s.timestamp)
    lines.push(
      `  ${s.field}: timestamp ${when(s.timestamp.time)} by '${s.timestamp.tsa ?? '?'}'${s.timestamp.problem ? `: ${s.timestamp.problem}` : ''}`,
    );
  if (s.level && s.levelMissing.length && s.level !== 'B-B')
    lines.push(`  ${s.field}: not ${nextLevel(s.level)}: ${s.levelMissing.join('; ')}`);
  // Without a DSS every certificate would read 'no revocation data': the dss line says it once.
  if (dss) for (const r of s.revocation) lines.push(`  ${s.field}: revocation: ${revocationText(r, when)}`);
  if (s.at)
    lines.push(
      `  ${s.field}: at ${when(s.at.date)}: ${s.at.valid ? 'would still validate' : `would NOT validate: ${s.at.reasons.join('; ')}`}`,
    );
  return lines;
}

const nextLevel = (level: string) => ({ 'B-B': 'B-T', 'B-T': 'B-LT', 'B-LT': 'B-LTA' })[level] ?? level;

function human(result: VerifyResult, zone: string | null): string[] {
  const when = (iso: string | null) => (iso ? formatDateTime(iso, zone) : '?');
  const rows = result.signatures.map((s) => [
    s.field,
    s.signer ?? '?',
    s.method ?? '-',
    s.level ?? '-',
    s.signedAt ? `${when(s.signedAt)}${s.signedAtSource === 'timestamp' ? ' (timestamp)' : ''}` : '?',
    s.integrity,
    s.chain.status === 'not checked' ? `not checked: ${s.chain.reason}` : s.chain.status,
    STATUS_TEXT(s),
  ]);
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const lines = [
    `${result.file}: ${count(result.signatures.length, 'signature')}${result.documentTimestamps.length ? `, ${count(result.documentTimestamps.length, 'document timestamp')}` : ''}`,
    ...(rows.length
      ? table(['FIELD', 'SIGNER', 'METHOD', 'LEVEL', 'SIGNED AT', 'INTEGRITY', 'CHAIN', 'STATUS'], rows)
      : []),
    ...result.signatures.flatMap((s) => signatureLines(s, when, result.dss.present)),
    ...result.documentTimestamps.flatMap((d) => [
      `document timestamp ${d.field}: ${when(d.time)} by '${d.tsa ?? '?'}', ${d.intact ? 'intact' : `BROKEN: ${d.problem}`}, chain ${d.chain.status === 'not checked' ? `not checked: ${d.chain.reason}` : d.chain.status}: ${STATUS_TEXT(d)}`,
      ...d.revocation.map((r) => `  ${d.field}: revocation: ${revocationText(r, when)}`),
      ...(d.at
        ? [
            `  ${d.field}: at ${when(d.at.date)}: ${d.at.valid ? 'would still validate' : `would NOT validate: ${d.at.reasons.join('; ')}`}`,
          ]
        : []),
    ]),
    result.dss.present
      ? `dss: ${count(result.dss.certificates, 'certificate')}, ${count(result.dss.ocsps, 'OCSP response')}, ${count(result.dss.crls, 'CRL')}`
      : 'dss: none (no validation data in the file)',
    ...result.ignored.map((s) => `not checked: ${s.field}, a ${s.kind} signature (not a signer's)`),
    result.coverage.uncoveredBytes === 0
      ? 'coverage: the newest signature covers the whole file'
      : result.coverage.uncovered === 'whitespace'
        ? `coverage: only ${result.coverage.uncoveredBytes} bytes of whitespace after the newest signature`
        : result.coverage.uncovered === 'validation data'
          ? `coverage: ${result.coverage.uncoveredBytes} bytes after the newest signature hold only validation data (DSS)`
          : `coverage: ${result.coverage.uncoveredBytes} bytes after the newest signature are not signed (${result.coverage.uncovered}): modified after signing`,
    `audit: ${result.audit.status}: ${result.audit.detail}`,
  ];
  for (const problem of result.problems) lines.push(`problem: ${problem}`);
  lines.push(result.ok ? 'verified: every check passed' : 'NOT verified');
  return lines;
}

/** --at: a date like 2027-01-31 (midnight UTC) or an ISO 8601 time. */
function atArg(text: string | undefined): Date | null {
  if (text === undefined) return null;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00.000Z`) : new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime()))
    throw new CliError(`--at takes a date like 2027-01-31 or 2027-01-31T10:00:00Z (got "${text}").`, ExitCode.usage);
  return date;
}

/** The organisation's time zone for the human output, when the API can be asked; else the default. */
async function zoneFor(ctx: CommandContext, offline: boolean): Promise<string | null> {
  const conn = connection(ctx.globals, ctx.env);
  if (offline || ctx.io.json || !conn.key) return null;
  try {
    return await timeZoneOf(new ApiClient(conn), ctx.io);
  } catch {
    return null;
  }
}

export async function verifyFile(ctx: CommandContext, file: string, opts: VerifyOptions): Promise<number> {
  let bytes: Buffer;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    bytes = readFileSync(file);
  } catch (error) {
    throw new CliError(
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      ExitCode.usage,
    );
  }
  if (!looksLikePdf(bytes)) throw new CliError(`${file} is not a PDF`, ExitCode.usage);
  const at = atArg(opts.at);
  const anchors = readAnchors(opts.ca);
  const report = verifyDocument(bytes, anchors, opts.ca.length > 0, { at });
  const audit = report.signatures.length
    ? await checkAudit(ctx, file, Boolean(opts.offline))
    : {
        status: 'absent' as const,
        detail: 'no signatures',
        refId: null,
        certificateLastHash: null,
        apiLastHash: null,
        apiIntact: null,
      };
  const problems = [...report.problems];
  if (audit.status === 'MISMATCH') problems.push(`the audit trail does not match: ${audit.detail}`);
  const result: VerifyResult = { ok: problems.length === 0, file, ...report, problems, audit };
  const zone = await zoneFor(ctx, Boolean(opts.offline));
  emit(ctx.io, result, () => human(result, zone));
  if (result.ok) return ExitCode.ok;
  const more =
    problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'})` : '';
  ctx.io.err(`esign-cli: ${problems[0]}${more}`);
  return ExitCode.verification;
}

/**
 * esign-cli verify FILE.pdf: checks every signature (integrity, signer, method, chain, timestamp, revocation data,
 * PAdES level), the document timestamps, what is covered, the audit trail, and with --at whether it would still
 * validate at a later date.
 */
export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      "Check a signed PDF: each signature's integrity, signer, method, time, chain, level and revocation data, the document timestamps, what is covered, and the audit trail",
    )
    .argument('<file>', 'the signed PDF')
    .option('--ca <file>', 'trust this CA certificate (PEM; repeatable)', collect, [])
    .option('--at <date>', 'also judge whether each signature would still validate at this date, from the file alone')
    .option('--offline', 'do not ask the API for the audit trail')
    .action(action(program, (ctx, file: string, opts: VerifyOptions) => verifyFile(ctx, file, opts)));
}
