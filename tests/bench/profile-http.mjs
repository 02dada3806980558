#!/usr/bin/env node
/**
 * Where the HTTP hot paths spend their CPU: the built server, seeded as http.mjs seeds it, profiled (V8's sampling
 * profiler, tests/bench/cpu-profile-preload.cjs) while autocannon loads one case for DURATION seconds. Prints the top
 * functions by self time and the time per package, and keeps the .cpuprofile (open it in Chrome's DevTools).
 *   node tests/bench/profile-http.mjs [html|reference|list] [out.cpuprofile]
 *   node tests/bench/profile-http.mjs --summary file.cpuprofile     (the same summary of a kept profile)
 * Options: BENCH_HTTP_REQUESTS (default 1000), BENCH_HTTP_DURATION (default 10), BENCH_HTTP_CONNECTIONS (default 10).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { seedRequests } from './seed.mjs';
import { demoKey, entry, freePort, repoRoot, signLink, startServer, stop } from './server.mjs';

const require = createRequire(path.join(repoRoot, 'tests', 'package.json'));
const autocannon = require('autocannon');

const which = process.argv[2] ?? 'reference';
const out = path.resolve(process.argv[3] ?? path.join(os.tmpdir(), `esign-${which}.cpuprofile`));
const REQUESTS = Number(process.env.BENCH_HTTP_REQUESTS ?? 1000);
const DURATION = Number(process.env.BENCH_HTTP_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);

/** Self time per function and per package (the node_modules directory, else the product's own file). */
function summarise(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const pkgs = new Map();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const file = url.replace(/^file:\/\//, '');
    const fn = `${functionName || '(anonymous)'} ${file ? `${path.relative(repoRoot, file)}:${lineNumber + 1}` : ''}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const pkg = m ? m[1] : file.includes('/api/dist/') ? 'api (product)' : file ? 'node internals' : functionName;
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  return `by package:\n${top(pkgs, 15)}\n\nby function (self):\n${top(fns, 30)}`;
}

async function main() {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first.`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-profile-http-'));
  try {
    const port = await freePort();
    let { child } = await startServer(dataDir, port);
    await stop(child);
    seedRequests(path.join(dataDir, 'esign.sqlite'), 'demo', REQUESTS);
    const preload = path.join(repoRoot, 'tests', 'bench', 'cpu-profile-preload.cjs');
    const started = await startServer(dataDir, port, {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} -r ${preload}`,
      ESIGN_CPU_PROFILE: out,
    });
    child = started.child;
    const { base } = started;
    const key = await demoKey(base);
    const link = new URL(await signLink(base, key, 'normal.pdf'));
    const token = link.searchParams.get('token');
    const [, , orgId, refId, order] = link.pathname.split('/');
    const cases = {
      html: [`${link.pathname}${link.search}`, {}],
      reference: [`/v1/reference/${orgId}/${refId}/${order}`, { 'x-sign-token': token }],
      list: [
        `/api/requests?range=${encodeURIComponent('[0,9]')}&sort=${encodeURIComponent('["createdAt","DESC"]')}`,
        { apikey: key },
      ],
    };
    const [pathname, headers] = cases[which];
    const result = await autocannon({
      url: `${base}${pathname}`,
      headers,
      connections: CONNECTIONS,
      duration: DURATION,
    });
    child.kill('SIGUSR2');
    for (let i = 0; i < 100 && !fs.existsSync(`${out}.done`); i++) await new Promise((r) => setTimeout(r, 100));
    fs.rmSync(`${out}.done`, { force: true });
    await stop(child);
    const bad = result.non2xx + result.errors + result.timeouts;
    console.log(
      `${which}: ${(result.requests.total / result.duration).toFixed(0)} requests/s, p99 ${result.latency.p99} ms, ` +
        `${bad} not 2xx; load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}; profile ${out}\n`,
    );
    console.log(summarise(JSON.parse(fs.readFileSync(out, 'utf8'))));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (which === '--summary') console.log(summarise(JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))));
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
