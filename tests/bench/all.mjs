#!/usr/bin/env node
/**
 * npm run bench: every benchmark, one after another (each on its own server and data); fails if any target is missed
 * (scale-out.mjs only reports: it fails when its run fails).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
let failed = 0;
for (const script of [
  'lists.mjs',
  'seal.mjs',
  'bulk.mjs',
  'signer-page.mjs',
  'face-server.mjs',
  'face-browser.mjs',
  'scale-out.mjs',
]) {
  console.log(`\n=== ${script}`);
  const run = spawnSync(process.execPath, [path.join(here, script)], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
console.log(failed ? `\nbench: ${failed} benchmark(s) missed a target` : '\nbench: every target met');
process.exitCode = failed ? 1 : 0;
