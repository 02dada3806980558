#!/usr/bin/env node
/**
 * npm run bench: esign-cli bulk, 1,000 rows.
 *
 * Starts the built server (api/dist/main.js) on a free loopback port with an empty DATA_DIR (SQLite, the embedded
 * default; the demo organisation is seeded), writes a CSV of ROWS rows (one PDF, 1 or 2 signers), and runs the built
 * CLI (cli/dist/index.js) `bulk` with CONCURRENCY: upload, save and process per row. Reports rows, seconds and
 * requests per second against the target (1,000 requests in under 60 s, i.e. at least 16.7 a second). Exit code 1
 * when the target is missed or a row failed. Options: BENCH_BULK_ROWS (default 1000), BENCH_BULK_CONCURRENCY
 * (default 16: the server, not the CLI, is the limit).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { record } from './report.mjs';
import { demoKey, freePort, repoRoot, startServer, stop } from './server.mjs';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_BULK_CONCURRENCY ?? 16);
const TARGET_SECONDS = 60 * (ROWS / 1000);
const cli = path.join(repoRoot, 'cli', 'dist', 'index.js');
const pdf = path.join(repoRoot, '..', 'shared', 'fixtures', 'pdfs', 'normal.pdf');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-bulk-'));
const { child, base } = await startServer(path.join(dataDir, 'data'), await freePort(), {
  PUBLIC_URL: 'http://127.0.0.1',
});
try {
  const key = await demoKey(base);
  fs.copyFileSync(
    process.env.SHARED_DIR ? path.join(process.env.SHARED_DIR, 'fixtures', 'pdfs', 'normal.pdf') : pdf,
    path.join(dataDir, 'doc.pdf'),
  );
  const lines = ['reference,file,name1,email1,phone1,type1,name2,email2,phone2,type2'];
  for (let i = 0; i < ROWS; i++) {
    const second = i % 2 ? `Second ${i},t${i}@example.in,9123456789,Aadhaar` : ',,,';
    lines.push(
      `bench-${i},doc.pdf,Signer ${i},s${i}@example.in,98765${String(i).padStart(5, '0')},e-Signature,${second}`,
    );
  }
  const csv = path.join(dataDir, 'bench.csv');
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);

  const started = performance.now();
  const run = await new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, 'bulk', csv, '--concurrency', String(CONCURRENCY), '--json'], {
      env: { PATH: process.env.PATH, HOME: dataDir, CI: 'true', ESIGN_URL: base, ESIGN_API_KEY: key },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.on('exit', (code) => resolve({ code, out }));
  });
  const seconds = (performance.now() - started) / 1000;
  const summary = JSON.parse(run.out).summary;
  const perSecond = summary.sent / seconds;
  const ok = run.code === 0 && summary.sent === ROWS && seconds < TARGET_SECONDS;
  record({
    bench: 'bulk',
    measure: `esign-cli bulk: ${ROWS.toLocaleString('en')} rows (upload, save, process), concurrency ${CONCURRENCY}`,
    value: seconds.toFixed(1),
    unit: 's',
    target: `< ${TARGET_SECONDS} s, every row sent`,
    ok,
    note: `${perSecond.toFixed(1)} requests/s, ${summary.sent}/${ROWS} sent, ${summary.failed} failed`,
  });
  console.log(
    `bulk: ${summary.sent}/${ROWS} rows sent (failed ${summary.failed}) in ${seconds.toFixed(1)} s with concurrency ` +
      `${CONCURRENCY}: ${perSecond.toFixed(1)} requests/s (target: ${ROWS} in under ${TARGET_SECONDS} s) ${ok ? 'ok' : 'MISS'}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await stop(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
