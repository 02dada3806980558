import { readFileSync, statSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import type { Command } from 'commander';
import { ApiClient, connection } from '../core/client';
import { action, type CommandContext } from '../core/command';
import { CliError, ExitCode } from '../core/errors';
import { emit, table } from '../core/output';
import { pdfText, readCertificate, type AuditCheck } from '../verify/audit';
import { certificatesFromPem } from '../verify/chain';
import { looksLikePdf } from '../verify/pdf';
import { verifyDocument, type DocumentReport } from '../verify/report';

interface VerifyOptions {
  ca: string[];
  offline?: boolean;
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

function human(result: VerifyResult): string[] {
  const rows = result.signatures.map((s) => [
    s.field,
    s.signer ?? '?',
    s.signedAt ? s.signedAt.replace('.000Z', 'Z') : '?',
    s.integrity,
    s.chain.status === 'not checked' ? `not checked: ${s.chain.reason}` : s.chain.status,
    s.coversWholeFile ? 'yes' : 'no',
  ]);
  const lines = [
    `${result.file}: ${result.signatures.length} signature${result.signatures.length === 1 ? '' : 's'}`,
    ...(rows.length ? table(['FIELD', 'SIGNER', 'SIGNED AT', 'INTEGRITY', 'CHAIN', 'COVERS WHOLE FILE'], rows) : []),
    ...result.ignored.map((s) => `not checked: ${s.field}, a ${s.kind} signature (not a signer's)`),
    result.coverage.uncoveredBytes === 0
      ? 'coverage: the newest signature covers the whole file'
      : result.coverage.uncovered === 'whitespace'
        ? `coverage: only ${result.coverage.uncoveredBytes} bytes of whitespace after the newest signature`
        : `coverage: ${result.coverage.uncoveredBytes} bytes after the newest signature are not signed (${result.coverage.uncovered}): modified after signing`,
    `audit: ${result.audit.status}: ${result.audit.detail}`,
  ];
  for (const problem of result.problems) lines.push(`problem: ${problem}`);
  lines.push(result.ok ? 'verified: every check passed' : 'NOT verified');
  return lines;
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
  const anchors = readAnchors(opts.ca);
  const report = verifyDocument(bytes, anchors, opts.ca.length > 0);
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
  emit(ctx.io, result, () => human(result));
  if (result.ok) return ExitCode.ok;
  const more =
    problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'})` : '';
  ctx.io.err(`esign-cli: ${problems[0]}${more}`);
  return ExitCode.verification;
}

/** esign-cli verify FILE.pdf: checks every signature, the chain to a CA, what is covered, and the audit trail. */
export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      "Check a signed PDF: each signature's integrity, signer, time and chain, what it covers, and the audit trail",
    )
    .argument('<file>', 'the signed PDF')
    .option('--ca <file>', 'trust this CA certificate (PEM; repeatable)', collect, [])
    .option('--offline', 'do not ask the API for the audit trail')
    .action(action(program, (ctx, file: string, opts: VerifyOptions) => verifyFile(ctx, file, opts)));
}
