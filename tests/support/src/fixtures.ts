import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The shared, real-world fixtures: shared/ beside the checkout (as CI lays it out), or $SHARED_DIR. This package sits
 * at tests/support in the checkout, so the checkout's parent is three levels up from dist/ or src/.
 */
export function sharedDir(): string {
  const candidates = [process.env.SHARED_DIR, resolve(__dirname, '..', '..', '..', '..', 'shared')].filter(
    (dir): dir is string => Boolean(dir),
  );
  for (const dir of candidates) if (existsSync(join(dir, 'fixtures'))) return dir;
  throw new Error(
    `The shared fixtures were not found (looked in ${candidates.join(', ')}). ` +
      'Keep shared/ beside the checkout or set SHARED_DIR.',
  );
}

export function fixturePath(...parts: string[]): string {
  return join(sharedDir(), 'fixtures', ...parts);
}

export function readFixture(...parts: string[]): Buffer {
  return readFileSync(fixturePath(...parts));
}

/** A PDF of the shared fixtures (normal.pdf unless named). */
export const fixturePdf = (name = 'normal.pdf'): string => fixturePath('pdfs', name);
