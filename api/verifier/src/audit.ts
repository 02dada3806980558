import { spawnSync } from 'node:child_process';

/** What the certificate of completion prints about the audit trail. */
export interface CompletionCertificate {
  refId: number;
  chainIntact: boolean | null;
  lastHash: string | null;
}

/** What the audit trail check found: compared with the API, or why not. */
export interface AuditCheck {
  status: 'matches' | 'MISMATCH' | 'not checked' | 'skipped' | 'absent';
  detail: string;
  refId: number | null;
  certificateLastHash: string | null;
  apiLastHash: string | null;
  apiIntact: boolean | null;
}

/** The document's text by pdftotext (poppler-utils); null when pdftotext is not installed or fails. */
export function pdfText(file: string): string | null {
  const run = spawnSync('pdftotext', ['-q', '-enc', 'UTF-8', file, '-'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  if (run.error || run.status !== 0) return null;
  return run.stdout;
}

/** Finds the certificate of completion in the document's text: its Ref ID, chain flag and last hash. */
export function readCertificate(text: string): CompletionCertificate | null {
  const at = text.search(/Certificate of completion/i);
  const chain = /Audit chain intact:\s*(yes|no)\s*\W*\s*last hash\s*([0-9a-f\s]{64,200})/i.exec(text);
  const refText =
    (at >= 0 ? /Ref ID\s*(\d+)/.exec(text.slice(at)) : null) ??
    /Certificate of completion\s*\W*\s*Ref ID\s*(\d+)/i.exec(text);
  if (!refText && !chain) return null;
  if (!refText) return null;
  let lastHash: string | null = null;
  if (chain) {
    const digits = chain[2].replace(/\s+/g, '');
    lastHash = /^[0-9a-f]{64}/i.exec(digits)?.[0].toLowerCase() ?? null;
  }
  return {
    refId: Number(refText[1]),
    chainIntact: chain ? chain[1].toLowerCase() === 'yes' : null,
    lastHash,
  };
}
