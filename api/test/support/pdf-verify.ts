import { spawnSync } from 'node:child_process';
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
 * make their own CA. With `original`, qpdf warnings the original did not have are problems too (compared here, as
 * verifyPdf does: pdf-verify's own --original compares lines that carry each file's path).
 */
export function runPdfVerify(pdf: Uint8Array, caPems: string[], original?: Uint8Array): Verified {
  const dir = mkdtempSync(join(tmpdir(), 'esign-pdf-verify-'));
  try {
    writeFileSync(join(dir, 'signed.pdf'), pdf);
    const args = [join(dir, 'signed.pdf')];
    caPems.forEach((pem, i) => {
      writeFileSync(join(dir, `ca${i}.pem`), pem);
      args.push('--ca', join(dir, `ca${i}.pem`));
    });
    const run = spawnSync(join(sharedDir(), 'tools', 'pdf-verify'), args, { encoding: 'utf8' });
    if (!run.stdout) throw new Error(`pdf-verify failed: ${run.stderr}`);
    const verified = JSON.parse(run.stdout) as Verified;
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
