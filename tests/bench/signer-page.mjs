#!/usr/bin/env node
/**
 * npm run bench: the recipient's signing page in headless Chromium (Debian's) on loopback, against the built server.
 * A request with one signer (no OTP) on freeculture.pdf (352 pages, 2.6 MB) is sent; its sign link is opened RUNS
 * times, each in a fresh browser context (nothing cached), and measured:
 *   - the JavaScript downloaded before the document is shown (the app's scripts, not pdf.js, that arrived before the
 *     document was first asked for), gzipped, against 150 KB;
 *   - the time from navigation to the first page drawn on the canvas, against 0.9 s (median of the runs; issue 23).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { record } from './report.mjs';
import {
  CHROMIUM_ARGS,
  demoKey,
  entry,
  freePort,
  repoRoot,
  signLink as serverSignLink,
  startServer,
  stop,
} from './server.mjs';

const require = createRequire(path.join(repoRoot, 'tests', 'package.json'));
const { chromium } = require('@playwright/test');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGETS = { jsKb: 150, firstPageMs: 900 };

const signLink = (base, key) => serverSignLink(base, key, 'freeculture.pdf');

async function measure(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
  const scripts = [];
  /** When the document was first asked for: the app's JavaScript that had arrived by then is what a recipient waits for. */
  let documentAt = null;
  const started = Date.now();
  /** The document's requests before the first page was drawn: when each started, and the range it asked for. */
  const documentRequests = [];
  page.on('request', (request) => {
    const u = request.url();
    if (/\/docs\/files\/|\/v1\/document\//.test(u))
      documentRequests.push(`${Date.now() - started}:${request.headers().range?.replace('bytes=', '') ?? 'whole'}`);
    if (documentAt === null && /\/docs\/files\/|\/v1\/document\//.test(u)) documentAt = Date.now();
  });
  page.on('response', async (response) => {
    const request = response.request();
    if (request.resourceType() !== 'script') return;
    const at = Date.now();
    try {
      const body = await response.body();
      scripts.push({ url: request.url(), at, gzip: gzipSync(body).length });
    } catch {
      // a response without a body
    }
  });
  await page.goto(url);
  const canvas = page.locator('[data-testid="pdf-canvas"][data-rendered="true"]');
  try {
    await canvas.waitFor({ timeout: 30_000 });
  } catch (error) {
    const text = (
      await page
        .locator('body')
        .innerText()
        .catch(() => '')
    ).slice(0, 500);
    throw new Error(
      `The first page was not drawn at ${url}; the page says: ${text}; the browser: ${problems.join(' | ')}`,
      { cause: error },
    );
  }
  const firstPageMs = Number(await canvas.getAttribute('data-rendered-at'));
  // The app's own marks on the way (signer-web/src/esign): reference answered, pdf.js loaded, bytes in, parsed, drawn.
  const marks = Object.fromEntries(
    await page.evaluate(() =>
      performance
        .getEntriesByType('mark')
        .filter((m) => m.name.startsWith('esign:'))
        .map((m) => [m.name.slice(6), Math.round(m.startTime)]),
    ),
  );
  // What the page fetched before the first page was drawn (resource timing): when each started and ended.
  const resources = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((r) => /\/(signer-assets|v1|docs)\//.test(r.name))
      .map((r) => {
        const url = new URL(r.name);
        const name = url.pathname
          .split('/')
          .slice(-1)[0]
          .replace(/-[\w-]{8}\.(m?js)$/, '.$1');
        return `${name} ${Math.round(r.startTime)}-${Math.round(r.responseEnd)}`;
      }),
  );
  const before = scripts.filter(
    (s) => !/\/(pdf|Viewer)[^/]*\.(m?js)/.test(s.url) && (documentAt === null || s.at <= documentAt),
  );
  const jsKb = before.reduce((sum, s) => sum + s.gzip, 0) / 1024;
  await context.close();
  return { firstPageMs, jsKb, files: before.length, marks, documentRequests, resources };
}

async function main() {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first.`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-signer-'));
  const port = await freePort();
  const { child, base } = await startServer(dataDir, port);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  try {
    const url = (await signLink(base, await demoKey(base))).replace(/^https?:\/\/[^/]+/, base);
    await measure(browser, url); // warm the server (first PDF read, templates of the app)
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, url));
    const times = runs.map((r) => r.firstPageMs).sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const jsKb = Math.max(...runs.map((r) => r.jsKb));
    const okJs = jsKb < TARGETS.jsKb;
    const okTime = median < TARGETS.firstPageMs;
    record({
      bench: 'signer-page',
      measure: 'signing page (freeculture.pdf), JavaScript before the document is shown, gzipped',
      value: jsKb.toFixed(1),
      unit: 'KB',
      target: `< ${TARGETS.jsKb} KB`,
      ok: okJs,
      note: `${runs[0].files} file(s)`,
    });
    record({
      bench: 'signer-page',
      measure: `signing page (freeculture.pdf, 352 pages), first page drawn, median of ${RUNS} cold runs in Chromium`,
      value: median.toFixed(0),
      unit: 'ms',
      target: `< ${TARGETS.firstPageMs} ms`,
      ok: okTime,
      note: `runs ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
    });
    console.log(`\nSigning page on freeculture.pdf (352 pages), headless Chromium, loopback, ${RUNS} cold runs`);
    console.log(
      `JavaScript before the document is shown: ${jsKb.toFixed(1)} KB gzipped in ${runs[0].files} file(s) (< ${TARGETS.jsKb} KB ${okJs ? 'ok' : 'MISS'})`,
    );
    console.log(
      `First page drawn: median ${median.toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')} ms) (< ${TARGETS.firstPageMs} ms ${okTime ? 'ok' : 'MISS'})`,
    );
    const steps = Object.keys(runs[0].marks);
    const medianOf = (name) => {
      const values = runs
        .map((r) => r.marks[name])
        .filter((v) => v !== undefined)
        .sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)];
    };
    console.log(
      `  on the way (median ms after navigation): ${steps.map((name) => `${name} ${medianOf(name)}`).join(', ')}`,
    );
    const last = runs[runs.length - 1];
    console.log(
      `  the document's requests in the last run (ms after navigation:range): ${last.documentRequests.join(', ')}`,
    );
    console.log(`  what the last run fetched (ms after navigation, start-end): ${last.resources.join(', ')}`);
    process.exitCode = okJs && okTime ? 0 : 1;
  } finally {
    await browser.close();
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
