import { PDF } from '@libpdf/core';

/**
 * Why the signing engine (@libpdf/core) could not append to this file without rewriting it, or null when it can. A
 * rewrite turns every signature the file carries into a digest mismatch, so a signed file with a blocker is refused
 * at upload rather than broken when the first party signs (already_signed_twice.pdf: its startxref is one byte off,
 * which the engine can only read by brute-force recovery).
 */
export async function appendBlocker(bytes: Uint8Array): Promise<string | null> {
  try {
    return (await PDF.load(bytes)).canSaveIncrementally();
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
