#!/usr/bin/env node
/**
 * npm run bench: signing throughput with one node and with two nodes against the same MariaDB, side by side.
 *
 * Runs api/test/scale-out/throughput.ts (ts-node, from the repository root): MariaDB, Redis and S3 (s3rver) once; for
 * `1 node` (1 API node + 1 worker) and `2 nodes` (2 API nodes + 2 workers) behind nginx, each on a fresh database,
 * BENCH_SIGNATURES requests (default 40) with one e-Signature signer are signed through nginx, BENCH_CONCURRENCY
 * (default 8) at a time. Reports accepted signatures/s (every esignature POST answered), completed signatures/s
 * (every request sealed by the workers) and the esignature POST's p50/p95, in a Markdown table, and the ratio of two
 * nodes to one. Target: two nodes ≥ one node; reported, no fixed figure (on a machine with few cores the two nodes
 * and two workers share the same CPUs), so only a failure of the run makes the exit code 1. Needs api/dist (npm run
 * build -w api) and Debian's redis-server, nginx and mariadb-server. `--json FILE` keeps the results.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { record } from './report.mjs';
import { repoRoot } from './server.mjs';

const script = path.join('api', 'test', 'scale-out', 'throughput.ts');

const missing = [];
for (const file of ['main.js', 'worker.js']) {
  if (!fs.existsSync(path.join(repoRoot, 'api', 'dist', file)))
    missing.push(`api/dist/${file} (run \`npm run build -w api\`)`);
}
if (!fs.existsSync('/usr/bin/redis-server')) missing.push('redis-server (apt-get install redis-server)');
if (!fs.existsSync('/usr/sbin/nginx')) missing.push('nginx (apt-get install nginx-light)');
if (!['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].some((f) => fs.existsSync(f)))
  missing.push('mariadb-server (apt-get install mariadb-server)');
let tsNode = null;
try {
  tsNode = createRequire(path.join(repoRoot, 'api', 'package.json')).resolve('ts-node/dist/bin.js');
} catch {
  missing.push('ts-node (npm ci)');
}
if (missing.length) {
  console.log(`scale-out: cannot run, missing: ${missing.join('; ')}`);
  process.exit(1);
}

const args = process.argv.slice(2);
const keep = args.indexOf('--json') >= 0 ? args[args.indexOf('--json') + 1] : null;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-scale-out-'));
const json = keep ? path.resolve(keep) : path.join(dir, 'results.json');
try {
  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [tsNode, '--transpile-only', '-P', path.join('api', 'tsconfig.json'), script, '--json', json],
      { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    child.on('error', (err) => {
      console.error(err);
      resolve(1);
    });
  });
  if (code !== 0 || !fs.existsSync(json)) {
    console.log(`scale-out: the run failed (exit code ${code}) MISS`);
    process.exitCode = 1;
  } else {
    const { results, seconds, model = [] } = JSON.parse(fs.readFileSync(json, 'utf8'));
    const named = (name) => results.find((r) => r.configuration === name);
    const [one, two] = [named('1 node'), named('2 nodes')];
    const [onePinned, twoPinned] = [named('1 node, pinned'), named('2 nodes, pinned')];
    const ratio = (a, b) => (b > 0 ? a / b : NaN).toFixed(2);
    // Issue 23: the CPU each tier spends per signature (one node), the model that follows, the pinned runs.
    const tiers = Object.entries(one.cpuMsPerSignature)
      .map(([tier, ms]) => `${tier} ${ms} ms`)
      .join(', ');
    record({
      bench: 'scale-out',
      measure: 'CPU time per signature (accepted and completed) by tier, one node',
      value: Object.values(one.cpuMsPerSignature)
        .reduce((a, b) => a + b, 0)
        .toFixed(1),
      unit: ' ms in all',
      target: 'reported',
      ok: null,
      note: tiers,
    });
    if (model.length)
      record({
        bench: 'scale-out',
        measure: 'model: signatures/s with N API nodes and N workers on a core each (MariaDB, Redis, nginx one each)',
        value: model.map((m) => `N=${m.n}: ${m.perSecond}/s`).join('; '),
        target: 'reported',
        ok: null,
        note: `first to saturate: ${[...new Set(model.map((m) => m.saturates))].join(', then ')}`,
      });
    if (onePinned && twoPinned)
      for (const kind of ['accepted', 'completed'])
        record({
          bench: 'scale-out',
          measure: `${kind} signatures/s, two nodes / one node, pinned (node i on core i, the rest on the last core)`,
          value: ratio(twoPinned[`${kind}PerSecond`], onePinned[`${kind}PerSecond`]),
          unit: '×',
          target: 'reported beside the model',
          ok: null,
          note: `1 node ${onePinned[`${kind}PerSecond`]}/s, 2 nodes ${twoPinned[`${kind}PerSecond`]}/s`,
        });
    for (const kind of ['accepted', 'completed'])
      record({
        bench: 'scale-out',
        measure: `${kind} signatures/s, two nodes / one node (${one.signatures} signatures, concurrency ${one.concurrency}, MariaDB, nginx)`,
        value: ratio(two[`${kind}PerSecond`], one[`${kind}PerSecond`]),
        unit: '×',
        target: 'two nodes ≥ one node (reported)',
        ok: null,
        note: `1 node ${one[`${kind}PerSecond`]}/s, 2 nodes ${two[`${kind}PerSecond`]}/s`,
      });
    console.log(
      `scale-out: ${one.signatures} signatures, concurrency ${one.concurrency}, in ${seconds} s: ` +
        `1 node ${one.acceptedPerSecond} accepted/s, ${one.completedPerSecond} completed/s; ` +
        `2 nodes ${two.acceptedPerSecond} accepted/s, ${two.completedPerSecond} completed/s; ` +
        `two nodes / one node: ${ratio(two.acceptedPerSecond, one.acceptedPerSecond)}× accepted, ` +
        `${ratio(two.completedPerSecond, one.completedPerSecond)}× completed on ${os.cpus().length} cores ` +
        `(target: two nodes ≥ one node; reported, no fixed figure) reported`,
    );
    process.exitCode = 0;
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
