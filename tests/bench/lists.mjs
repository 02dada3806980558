#!/usr/bin/env node
/**
 * npm run bench: the console's list endpoint under 100,000 requests.
 *
 * Starts the built server (api/dist/main.js) on a free loopback port with an empty DATA_DIR (SQLite, the embedded
 * default; the demo organisation is seeded), stops it, seeds REQUESTS requests with 3 parties each straight into the
 * database file, starts the server again, signs in as demo, and times SAMPLES calls each of
 *   - a page of 10, newest first       GET /api/requests?sort=["timestamp","DESC"]&range=[0,9]
 *   - a Ref ID search                  …&filter={"q":"<refId>"}
 *   - a file-name search               …&filter={"q":"<text>"}
 * reporting p50, p95 and p99 against issue 23's targets (p95 under 8 ms, 3 ms and 15 ms), each call building its page
 * (the server runs with LIST_PAGES=off). Exit code 1 when a target is
 * missed. The same three are then measured on a throwaway MariaDB (mariadb.mjs, the same rows) and reported. Options:
 * BENCH_REQUESTS (default 100000), BENCH_SAMPLES (default 200), BENCH_LISTS_MARIADB=0 (SQLite only).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { record } from './report.mjs';
import { SERVER as MARIADB_SERVER, startMariaDb } from './mariadb.mjs';
import { seedRequests, seedRequestsMysql } from './seed.mjs';
import { demoKey, entry, freePort, startServer, stop } from './server.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
// The same three on MariaDB (Debian's mariadbd, throwaway), reported: BENCH_LISTS_MARIADB=0 leaves it out.
const MARIADB = process.env.BENCH_LISTS_MARIADB !== '0' && Boolean(MARIADB_SERVER);
const TARGETS = { page: 8, refId: 3, filename: 15 };
const LABELS = { page: 'a page of 10', refId: 'a Ref ID search', filename: 'a file-name search' };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function time(base, key, query, samples) {
  const qs = Object.entries(query)
    .map(([k, v]) => `${k}=${encodeURIComponent(JSON.stringify(v))}`)
    .join('&');
  const url = `${base}/api/requests?${qs}`;
  const times = [];
  let total = null;
  for (let i = 0; i < samples + 10; i++) {
    const t = process.hrtime.bigint();
    const res = await fetch(url, { headers: { apikey: key } });
    const body = await res.json();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
    total = res.headers.get('content-range');
    if (i >= 10) times.push(ms); // the first 10 warm the caches
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), range: total };
}

/** Seeds REQUESTS requests, starts the server on them and times the three calls: { results, refIds }. */
async function measure(engine, dataDir, serverEnv, seed) {
  // Every call builds its page (LIST_PAGES=off): these figures are the page's reads on the index, not the kept page
  // a console polling an unchanged list gets (that one is http.mjs's console list).
  const env = { ...serverEnv, LIST_PAGES: 'off' };
  const port = await freePort();
  let { child } = await startServer(dataDir, port, env);
  await stop(child);
  const t0 = Date.now();
  const refIds = await seed();
  console.log(
    `${engine}: seeded ${REQUESTS.toLocaleString('en')} requests with 3 parties each in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const started = await startServer(dataDir, port, env);
  child = started.child;
  try {
    const key = await demoKey(started.base);
    const sent = refIds.filter((_, i) => i % 10 !== 0);
    return {
      page: await time(started.base, key, { sort: ['timestamp', 'DESC'], range: [0, 9] }, SAMPLES),
      refId: await time(
        started.base,
        key,
        { sort: ['timestamp', 'DESC'], range: [0, 9], filter: { q: String(sent[Math.floor(sent.length / 2)]) } },
        SAMPLES,
      ),
      filename: await time(
        started.base,
        key,
        { sort: ['timestamp', 'DESC'], range: [0, 9], filter: { q: 'renewal' } },
        SAMPLES,
      ),
    };
  } finally {
    await stop(child);
  }
}

/** Prints and records one engine's figures; SQLite's against the targets, MariaDB's reported. Answers whether met. */
function report(engine, results, withTargets) {
  let ok = true;
  console.log(`\nGET /api/requests on ${engine}, ${REQUESTS.toLocaleString('en')} requests, ${SAMPLES} samples each`);
  console.log('case                 p50 ms   p95 ms   p99 ms   target p95   Content-Range');
  for (const [name, r] of Object.entries(results)) {
    const pass = withTargets ? r.p95 < TARGETS[name] : null;
    if (pass === false) ok = false;
    record({
      bench: 'lists',
      measure: `GET /api/requests, ${LABELS[name]}, p95 (${engine}, ${REQUESTS.toLocaleString('en')} requests)`,
      value: r.p95.toFixed(2),
      unit: 'ms',
      target: withTargets ? `< ${TARGETS[name]} ms` : `reported (SQLite's: < ${TARGETS[name]} ms)`,
      ok: pass,
      note: `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`,
    });
    console.log(
      `${name.padEnd(20)} ${r.p50.toFixed(2).padStart(6)}   ${r.p95.toFixed(2).padStart(6)}   ${r.p99.toFixed(2).padStart(6)}   < ${String(TARGETS[name]).padStart(3)} ${pass === null ? '    ' : pass ? 'ok  ' : 'MISS'}   ${r.range}`,
    );
  }
  return ok;
}

async function main() {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first.`);
  let ok = true;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-'));
  try {
    const results = await measure('SQLite', dataDir, {}, () =>
      seedRequests(path.join(dataDir, 'esign.sqlite'), 'demo', REQUESTS),
    );
    ok = report('SQLite', results, true);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (MARIADB) {
    const db = await startMariaDb('esign_bench');
    const mariaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-'));
    try {
      const results = await measure('MariaDB', mariaDir, { DATABASE_URL: db.url }, () =>
        seedRequestsMysql(db.mysqlUrl, 'demo', REQUESTS),
      );
      report('MariaDB', results, false);
    } finally {
      await db.stop();
      fs.rmSync(mariaDir, { recursive: true, force: true });
    }
  }
  console.log(ok ? '\nbench: every target met' : '\nbench: a target was missed');
  process.exitCode = ok ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
