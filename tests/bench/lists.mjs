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
 * reporting p50, p95 and p99 against the targets (p95 under 20 ms, 5 ms and 50 ms). Exit code 1 when a target is
 * missed. Options: BENCH_REQUESTS (default 100000), BENCH_SAMPLES (default 200).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { demoKey, entry, freePort, repoRoot, startServer, stop } from './server.mjs';

const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
const Database = require('better-sqlite3');

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const TARGETS = { page: 20, refId: 5, filename: 50 };

const WORDS = [
  'Lease',
  'Agreement',
  'NDA',
  'Offer',
  'Letter',
  'Invoice',
  'Contract',
  'Renewal',
  'Policy',
  'Mandate',
  'Loan',
  'Sale',
  'Deed',
];

function seed(file, orgId) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const geometry = JSON.stringify([
    { pages: '1-2', mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 0 },
  ]);
  const insertRequest = db.prepare(
    `INSERT INTO requests (ref_id, org_id, filename, file_key, file_size, total_pages, geometry, check_order, otp_required,
      reminder, reminder_duration, status, is_draft, signers_total, signers_done, template_id, created_by, submitted_at,
      expires_at, completed_at, signed_file_key, deleted_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 75959, 2, ?, 0, 1, 0, NULL, ?, ?, 2, ?, NULL, 'bench', ?, NULL, NULL, NULL, NULL, ?, ?)`,
  );
  const insertParty = db.prepare(
    `INSERT INTO parties (id, ref_id, org_id, party_order, name, email, phone_number, observer, signature_type, status,
      token_hash, token_nonce, page_no, apply_all, rectangle, drag_coord, boxes, invited_at, reminded_at, signed_at,
      created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, '+919876543210', ?, ?, ?, NULL, NULL, '[1]', 0, '0,790,150,840', NULL, ?, NULL, NULL, NULL, ?, ?)`,
  );
  const boxes = JSON.stringify([{ pages: '1', x: 0, y: 0, width: 141.43, height: 47.14 }]);
  const refIds = [];
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  const run = db.transaction(() => {
    for (let i = 0; i < REQUESTS; i++) {
      const refId = 1_000_000_000 + i * 7919 + (i % 7);
      refIds.push(refId);
      const filename = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}.pdf`;
      const at = new Date(t0 + i * 60_000).toISOString().replace('T', ' ').replace('Z', '');
      const draft = i % 10 === 0 ? 1 : 0;
      const status = draft ? 'draft' : i % 3 === 0 ? 'completed' : 'in-progress';
      insertRequest.run(
        refId,
        orgId,
        filename,
        'f'.repeat(64),
        geometry,
        status,
        draft,
        status === 'completed' ? 2 : 0,
        draft ? null : at,
        at,
        at,
      );
      for (let order = 1; order <= 3; order++) {
        const observer = order === 3 ? 1 : 0;
        insertParty.run(
          randomUUID(),
          refId,
          orgId,
          order,
          `Party ${order} of ${i}`,
          `p${order}.${i}@example.in`,
          observer,
          observer ? null : 'e-Signature',
          draft ? 'saved' : observer ? 'waiting' : status === 'completed' ? 'completed' : 'in-progress',
          boxes,
          at,
          at,
        );
      }
    }
  });
  run();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  db.close();
  return refIds;
}

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

async function main() {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first.`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-'));
  try {
    const port = await freePort();
    let { child } = await startServer(dataDir, port);
    await stop(child);
    const t0 = Date.now();
    const refIds = seed(path.join(dataDir, 'esign.sqlite'), 'demo');
    console.log(
      `seeded ${REQUESTS.toLocaleString('en')} requests with 3 parties each in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    const started = await startServer(dataDir, port);
    child = started.child;
    const key = await demoKey(started.base);

    const sent = refIds.filter((_, i) => i % 10 !== 0);
    const results = {
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
    await stop(child);

    let ok = true;
    console.log(`\nGET /api/requests on SQLite, ${REQUESTS.toLocaleString('en')} requests, ${SAMPLES} samples each`);
    console.log('case                 p50 ms   p95 ms   p99 ms   target p95   Content-Range');
    for (const [name, r] of Object.entries(results)) {
      const pass = r.p95 < TARGETS[name];
      ok &&= pass;
      console.log(
        `${name.padEnd(20)} ${r.p50.toFixed(2).padStart(6)}   ${r.p95.toFixed(2).padStart(6)}   ${r.p99.toFixed(2).padStart(6)}   < ${String(TARGETS[name]).padStart(3)} ${pass ? 'ok  ' : 'MISS'}   ${r.range}`,
      );
    }
    console.log(ok ? '\nbench: every target met' : '\nbench: a target was missed');
    process.exitCode = ok ? 0 : 1;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
