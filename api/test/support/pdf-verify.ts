import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedDir } from './fixtures';
import type { Verified } from './signing';

/** qpdf --check's warnings without the file's path, so two files' warnings can be compared. */
function qpdfWarnings(file: string): string[] {
  const run = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  return `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((line) => /WARNING/i.test(line))
    .map((line) => line.split(file).join('FILE'));
}

/**
 * The shared pdf-verify tool on a PDF, trusting the given CA certificates (PEM), without a TestApp: for unit tests that
 * make their own CA. `signatures` are the signatures; the archive timestamps are in `archives`. With `original`, qpdf warnings the original did not have are problems too (compared here, as
 * verifyPdf does: pdf-verify's own --original compares lines that carry each file's path).
 */
export function runPdfVerify(pdf: Uint8Array, caPems: string[], original?: Uint8Array): Verified {
  return withFiles(pdf, caPems, original, (args) => spawnSync(PDF_VERIFY(), args, { encoding: 'utf8' }));
}

/**
 * The same without blocking this process: pdfsig asks the OCSP responder named in each certificate, which is this very
 * process when a test app signed the PDF (its certificates point at the app's PUBLIC_URL).
 */
export async function runPdfVerifyAsync(pdf: Uint8Array, caPems: string[], original?: Uint8Array): Promise<Verified> {
  const dir = mkdtempSync(join(tmpdir(), 'esign-pdf-verify-'));
  try {
    const args = writeInputs(dir, pdf, caPems);
    const run = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(PDF_VERIFY(), args);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      child.on('error', reject);
      child.on('close', () => resolve({ stdout, stderr }));
    });
    return finish(dir, run, original);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The field name of an archive timestamp the seal adds (`esign_archive_<time>`). */
export const ARCHIVE_FIELD_PREFIX = 'esign_archive_';

const PDF_VERIFY = () => join(sharedDir(), 'tools', 'pdf-verify');

function writeInputs(dir: string, pdf: Uint8Array, caPems: string[]): string[] {
  writeFileSync(join(dir, 'signed.pdf'), pdf);
  const args = [join(dir, 'signed.pdf')];
  caPems.forEach((pem, i) => {
    writeFileSync(join(dir, `ca${i}.pem`), pem);
    args.push('--ca', join(dir, `ca${i}.pem`));
  });
  return args;
}

function withFiles(
  pdf: Uint8Array,
  caPems: string[],
  original: Uint8Array | undefined,
  run: (args: string[]) => { stdout: string; stderr: string },
): Verified {
  const dir = mkdtempSync(join(tmpdir(), 'esign-pdf-verify-'));
  try {
    return finish(dir, run(writeInputs(dir, pdf, caPems)), original);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function finish(dir: string, run: { stdout: string; stderr: string }, original?: Uint8Array): Verified {
  if (!run.stdout) throw new Error(`pdf-verify failed: ${run.stderr}`);
  const parsed = JSON.parse(run.stdout) as Omit<Verified, 'archives'>;
  // The archive timestamps (document timestamps, which poppler's pdfsig cannot read: pdf-verify checks them with
  // OpenSSL against the first CA) apart from the signatures.
  const archive = (s: { field: string }) => s.field.startsWith(ARCHIVE_FIELD_PREFIX);
  const verified: Verified = {
    ...parsed,
    signatures: parsed.signatures.filter((s) => !archive(s)),
    archives: parsed.signatures.filter(archive),
  };
  if (original) {
    writeFileSync(join(dir, 'original.pdf'), original);
    const before = new Set(qpdfWarnings(join(dir, 'original.pdf')));
    verified.qpdf.newWarnings = qpdfWarnings(join(dir, 'signed.pdf')).filter((w) => !before.has(w));
    if (verified.qpdf.newWarnings.length) {
      verified.ok = false;
      verified.problems.push(`qpdf warnings the original did not have: ${verified.qpdf.newWarnings.join('; ')}`);
    }
  }
  return verified;
}
