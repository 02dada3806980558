import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * One PDF library (issue 20): documents are read, drawn, filled and signed with @libpdf/core, and PDF syntax is read by
 * @esign/pdf-syntax. pdf-lib (unreleased since 2021) and its forks were removed; this fails if any comes back, through
 * the lockfile, a workspace's manifest or an import.
 */
const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const isPdfLib = (name: string) => name === 'pdf-lib' || name === '@cantoo/pdf-lib' || name.startsWith('@pdf-lib/');

interface Manifest {
  workspaces?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readJson = <T>(...path: string[]): T => JSON.parse(readFileSync(join(ROOT, ...path), 'utf8')) as T;
const dependencyNames = (manifest: Manifest) =>
  [manifest.dependencies, manifest.devDependencies, manifest.optionalDependencies, manifest.peerDependencies].flatMap(
    (deps) => Object.keys(deps ?? {}),
  );

describe('one PDF library: no pdf-lib', () => {
  it('package-lock.json installs no pdf-lib, @cantoo/pdf-lib or @pdf-lib/* package, and nothing depends on one', () => {
    const lock = readJson<{ packages: Record<string, Manifest> }>('package-lock.json');
    const installed = Object.keys(lock.packages).filter((path) => isPdfLib(path.split('node_modules/').at(-1) ?? ''));
    expect(installed).toEqual([]);
    const dependents = Object.entries(lock.packages)
      .filter(([, entry]) => dependencyNames(entry).some(isPdfLib))
      .map(([path]) => path || '(root)');
    expect(dependents).toEqual([]);
  });

  it('no workspace lists one in its package.json', () => {
    const root = readJson<Manifest>('package.json');
    const manifests = ['.', ...(root.workspaces ?? [])];
    const listing = manifests.filter((dir) => dependencyNames(readJson<Manifest>(dir, 'package.json')).some(isPdfLib));
    expect(listing).toEqual([]);
  });

  it('no source file imports one', () => {
    const importRe = /(?:from\s+|require\(\s*|import\(\s*)['"](pdf-lib|@cantoo\/pdf-lib|@pdf-lib\/[^'"]+)['"]/;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|tsx|js|mjs|cjs)$/.test(entry) && importRe.test(readFileSync(path, 'utf8')))
          offenders.push(relative(ROOT, path));
      }
    };
    for (const dir of [
      'api/src',
      'api/test',
      'api/scripts',
      'api/pdf-syntax',
      'api/verifier',
      'cli',
      'tests',
      'admin',
      'signer-web',
    ])
      walk(join(ROOT, dir));
    expect(offenders).toEqual([]);
  });
});
