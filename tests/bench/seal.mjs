#!/usr/bin/env node
/**
 * npm run bench: the seal figures. For freeculture.pdf (352 pages) and normal.pdf:
 *   1. the built server (api/dist, SQLite, JOBS_RUNNER=off) takes a request with 6 e-Signature signers, every page
 *      boxed for every signer, and each signer's submission through the /v1 calls (drawn, typed and uploaded images);
 *   2. the server stops, and the seal job's work runs once in this process, as the job runs it: SealService.run
 *      applies the 6 signatures (stamps on all pages, PAdES with a one-time certificate each), appends the
 *      certificate of completion and the final seal. Its wall time is the figure ("time to complete the request");
 *   3. beside it, the time to hash (SHA-256) and write the file once, and the ratio of the two;
 *   4. the result is checked: 7 signatures, each valid (pdfsig, through the shared pdf-verify tool).
 * freeculture.pdf is sealed twice, at B-LTA (the default: a timestamp on every signature from the built-in TSA, the
 * DSS and the archive timestamp) and at B-B, and the time the 8 timestamps took is reported (issue 19: < 150 ms).
 * Also the upload check (inspectPdf) of the two largest fixtures. Targets: seal of freeculture.pdf at B-B under 2 s;
 * upload check under 2 s each. Exit code 1 when one is missed.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { record } from './report.mjs';
import { demoKey, entry, freePort, repoRoot, startServer, stop } from './server.mjs';
import { fixture, hashAndWriteMs, openSealer, prepare, verify } from './seal-support.mjs';

const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
const TARGET_FRECULTURE_MS = 2000;
const TARGET_INSPECT_MS = 2000;
/** The timestamps of a B-LTA completion with the built-in TSA (issue 19). */
const TARGET_TIMESTAMPS_MS = 150;

/**
 * The seal job's work on each request, in one process: the organisation's level set first (B-LTA: every signature
 * timestamped, the DSS and the archive timestamp; B-B: none), and the time spent getting timestamps summed.
 */
async function sealInProcess(dataDir, runs, publicUrl) {
  const sealer = await openSealer(dataDir, publicUrl);
  try {
    const results = [];
    for (const { refId, level } of runs) results.push({ ...(await sealer.seal(refId, level)), pkiMs: sealer.pkiMs });
    return results;
  } finally {
    await sealer.close();
  }
}

function inspectMs(name) {
  const { inspectPdf } = require(path.join(repoRoot, 'api', 'dist', 'modules', 'documents', 'pdf', 'inspect.js'));
  const bytes = fs.readFileSync(fixture(name));
  const cpu = process.cpuUsage();
  const t = process.hrtime.bigint();
  return inspectPdf({ bytes, filename: 'document.pdf', mimeType: 'application/pdf' }).then((r) => ({
    wall: Number(process.hrtime.bigint() - t) / 1e6,
    cpu: (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000,
    pages: r.totalPages,
  }));
}

async function main() {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first.`);
  let ok = true;
  const rows = [];
  const plan = [
    { name: 'freeculture.pdf', levels: ['B-LTA', 'B-B'] },
    // Issue 21: the B-B figure again with 10 fields per signer, drawn into each signer's revision.
    { name: 'freeculture.pdf', levels: ['B-B'], fields: true },
    { name: 'normal.pdf', levels: ['B-LTA'] },
  ];
  for (const { name, levels, fields = false } of plan) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-seal-'));
    try {
      const port = await freePort();
      // The certificates name ${PUBLIC_URL}/pki/ocsp: the server answers pdfsig's OCSP questions at the end.
      const publicUrl = `http://127.0.0.1:${port}`;
      const { child, base } = await startServer(dataDir, port, { JOBS_RUNNER: 'off', PUBLIC_URL: publicUrl });
      const runs = [];
      try {
        const key = await demoKey(base);
        for (const level of levels) runs.push({ level, refId: await prepare(base, key, name, fields) });
      } finally {
        await stop(child);
      }
      const baseline = hashAndWriteMs(fs.readFileSync(fixture(name)), dataDir);
      const sealedRuns = await sealInProcess(dataDir, runs, publicUrl);
      const answering = await startServer(dataDir, port, { JOBS_RUNNER: 'off', PUBLIC_URL: publicUrl });
      const checks = [];
      try {
        for (const sealed of sealedRuns) checks.push(verify(sealed.pdf, sealed.ca, dataDir));
      } finally {
        await stop(answering.child);
      }
      for (const [i, sealed] of sealedRuns.entries()) {
        const checked = checks[i];
        const evidence = sealed.level === 'B-LTA' ? checked.dss && checked.archives === 1 : checked.archives === 0;
        const good =
          sealed.status === 'completed' &&
          sealed.reached === sealed.level &&
          sealed.outcome.applied === 6 &&
          checked.signatures === 7 &&
          checked.valid &&
          evidence;
        // The 2 s target is the B-B seal's (set before issue 19); at B-LTA the target is the timestamps' time, and the
        // DSS and archive timestamp's cost is reported beside it.
        const target = name === 'freeculture.pdf' && sealed.level === 'B-B' && !fields ? TARGET_FRECULTURE_MS : null;
        const tsTarget = sealed.level === 'B-LTA' ? TARGET_TIMESTAMPS_MS : null;
        const pass =
          good && (target === null || sealed.ms < target) && (tsTarget === null || sealed.timestamps.ms < tsTarget);
        ok &&= pass;
        rows.push({ name, fields, ...sealed, baseline, checked, target, pass });
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(
    '\nSeal: a request with 6 e-Signature signers, every page boxed for each; 6 signatures, certificate, seal; at B-LTA also a timestamp on each, the DSS and the archive timestamp',
  );
  console.log(
    'document            pages  level  complete ms   timestamps ms (n)   hash+write ms   signatures   target',
  );
  for (const r of rows) {
    const pages = r.name === 'freeculture.pdf' ? 352 : 2;
    const stamps = `${r.timestamps.ms.toFixed(1)} (${r.timestamps.count})`;
    record({
      bench: 'seal',
      measure: `complete a request with 6 e-Signature signers, every page boxed${r.fields ? ', 10 fields each' : ''}, at ${r.level}: ${r.name} (${pages} pages)`,
      value: r.ms.toFixed(0),
      unit: 'ms',
      target: `${r.target ? `< ${r.target} ms, ` : ''}7 valid signatures${r.level === 'B-LTA' ? ', DSS and archive timestamp' : ''}`,
      ok: r.pass,
      note:
        `hash+write ${r.baseline.toFixed(2)} ms, ratio ${(r.ms / r.baseline).toFixed(0)}x, ` +
        `${r.checked.signatures} ${r.checked.valid ? 'valid' : 'INVALID'} signatures, level reached ${r.reached}`,
    });
    if (r.level === 'B-LTA')
      record({
        bench: 'seal',
        measure: `timestamps from the built-in TSA for that completion: ${r.name}`,
        value: r.timestamps.ms.toFixed(1),
        unit: 'ms',
        target: `< ${TARGET_TIMESTAMPS_MS} ms in all`,
        ok: r.timestamps.ms < TARGET_TIMESTAMPS_MS,
        note: `${r.timestamps.count} tokens (6 signatures, the seal, the archive timestamp)`,
      });
    console.log(
      `${(r.fields ? `${r.name} +60 fields` : r.name).padEnd(19)} ${String(pages).padStart(5)}  ${r.level.padEnd(5)}  ${r.ms.toFixed(0).padStart(11)}   ${stamps.padStart(17)}   ${r.baseline.toFixed(2).padStart(13)}   ${`${r.checked.signatures} ${r.checked.valid ? 'valid' : 'INVALID'}`.padStart(10)}   ${r.target ? `< ${r.target} ms` : '-'.padEnd(9)} ${r.pass ? 'ok' : 'MISS'}`,
    );
  }
  const lta = rows.find((r) => r.name === 'freeculture.pdf' && r.level === 'B-LTA');
  const bb = rows.find((r) => r.name === 'freeculture.pdf' && r.level === 'B-B' && !r.fields);
  const withFields = rows.find((r) => r.name === 'freeculture.pdf' && r.fields);
  if (bb && withFields)
    console.log(
      `freeculture.pdf at B-B: ${bb.ms.toFixed(0)} ms with signature boxes only, ${withFields.ms.toFixed(0)} ms with 10 fields per signer (${(withFields.ms - bb.ms).toFixed(0)} ms more)`,
    );
  if (lta && bb)
    console.log(
      `freeculture.pdf: B-LTA took ${(lta.ms - bb.ms).toFixed(0)} ms more than B-B in all; the ${lta.timestamps.count} timestamps ${lta.timestamps.ms.toFixed(1)} ms of it (target < ${TARGET_TIMESTAMPS_MS} ms)`,
    );
  console.log(
    `(first use only: the development root CA and the organisation's certificates took ${rows[0].pkiMs.toFixed(0)} ms to make)`,
  );
  console.log('\nUpload check (inspectPdf), first call in this process');
  for (const name of ['freeculture.pdf', 'linearized_with_object_streams.pdf']) {
    const r = await inspectMs(name);
    const pass = r.wall < TARGET_INSPECT_MS;
    ok &&= pass;
    record({
      bench: 'seal',
      measure: `upload check (inspectPdf): ${name} (${r.pages} pages)`,
      value: r.wall.toFixed(0),
      unit: 'ms',
      target: `< ${TARGET_INSPECT_MS} ms`,
      ok: pass,
    });
    console.log(
      `${name.padEnd(36)} ${String(r.pages).padStart(4)} pages  ${r.wall.toFixed(0).padStart(6)} ms  (< ${TARGET_INSPECT_MS} ms ${pass ? 'ok' : 'MISS'})`,
    );
  }
  console.log(
    `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  );
  console.log(ok ? 'seal bench: every target met' : 'seal bench: a target was missed');
  process.exitCode = ok ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
