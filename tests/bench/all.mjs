#!/usr/bin/env node
/**
 * npm run bench: every benchmark, one after another (each on its own server and data); fails if any target is missed
 * (scale-out.mjs only reports: it fails when its run fails). Each bench records its figures (report.mjs) in a fresh
 * BENCH_RESULTS file; at the end one report (the machine, then benchmark | measure | result | target | ok) is printed
 * and written to tests/bench/results/<date>-<host>.md and tests/bench/results/latest.md. A bench that exited with an
 * error without recording a missed target shows as a row 'failed'.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, readRecords, renderReport } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const info = machine();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-results-'));
const results = path.join(work, 'results.jsonl');
fs.writeFileSync(results, '');
const rows = [];
const steal = [];
let failed = 0;

/** The CPU's counters from /proc/stat (Linux): all time and the time the hypervisor gave to other guests (steal). */
function cpuTimes() {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}
const stolen = (from, to) =>
  from && to && to.total > from.total ? Math.round((100 * (to.steal - from.steal)) / (to.total - from.total)) : null;
const runStart = cpuTimes();
const ALL = [
  'lists.mjs',
  'seal.mjs',
  'engine-compare.mjs',
  'bulk.mjs',
  'signer-page.mjs',
  'http.mjs',
  'face-server.mjs',
  'face-browser.mjs',
  'scale-out.mjs',
];
// BENCH_ONLY=lists,http runs those parts only; their report is written beside latest.md (which stays whole).
const only = process.env.BENCH_ONLY?.split(',').map((name) => `${name.trim().replace(/\.mjs$/, '')}.mjs`);
for (const script of only ? ALL.filter((s) => only.includes(s)) : ALL) {
  console.log(`\n=== ${script}`);
  const before = readRecords(results).length;
  const cpuBefore = cpuTimes();
  const run = spawnSync(process.execPath, [path.join(here, script)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_RESULTS: results },
  });
  const share = stolen(cpuBefore, cpuTimes());
  if (share !== null) steal.push(`${script.replace(/\.mjs$/, '')} ${share} %`);
  const recorded = readRecords(results).slice(before);
  rows.push(...recorded);
  if (run.status !== 0) {
    failed++;
    // A missed target is already a row with ✗; an exit code without one is a crash (or a failed run).
    if (!recorded.some((r) => r.ok === false))
      rows.push({
        bench: script.replace(/\.mjs$/, ''),
        measure: 'the run',
        value: 'failed',
        target: null,
        ok: false,
        note: run.signal ? `killed by ${run.signal}` : `exit code ${run.status}`,
      });
  }
}
fs.rmSync(work, { recursive: true, force: true });

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).stdout?.trim();
const report =
  renderReport(rows, info, [
    ...(steal.length
      ? [
          `CPU time taken by the host from this virtual machine (steal) during the run: ${stolen(runStart, cpuTimes())} %; ` +
            `per bench: ${steal.join(', ')}. Latencies and throughput vary with it.`,
        ]
      : []),
    ...(commit ? [`commit ${commit} (with the working tree's changes, if any)`] : []),
    '`npm run bench` (tests/bench/all.mjs); how each figure is measured: tests/README.md, "Benchmarks"',
  ]) +
  "\nThe targets of http.mjs and lists.mjs are issue 23's: the specification gives none for throughput. scale-out has no " +
  'fixed target: two nodes against one node is reported.' +
  (only ? ` This run: ${only.join(', ')} only (BENCH_ONLY).` : '') +
  '\n';
const host =
  os
    .hostname()
    .split('.')[0]
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 32) || 'host';
const dir = path.join(here, 'results');
fs.mkdirSync(dir, { recursive: true });
const part = only ? `-${only.map((s) => s.replace(/\.mjs$/, '')).join('-')}` : '';
const dated = path.join(dir, `${info.date.slice(0, 10)}-${host}${part}.md`);
fs.writeFileSync(dated, report);
if (!only) fs.writeFileSync(path.join(dir, 'latest.md'), report);

console.log(`\n${report}`);
console.log(
  `report: ${path.relative(process.cwd(), dated)}${only ? '' : ` and ${path.relative(process.cwd(), path.join(dir, 'latest.md'))}`}`,
);
console.log(failed ? `\nbench: ${failed} benchmark(s) missed a target` : '\nbench: every target met');
process.exitCode = failed ? 1 : 0;
