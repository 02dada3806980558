// Adds up the JSON reports of every runner of npm test into one closing line, after the name and the first lines of
// the message of every failed test (the end of a long log is what a CI summary keeps).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
const lines = [];
const failures = [];
const firstLines = (text) =>
  String(text ?? '')
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim())
    .slice(0, 8)
    .map((l) => `      ${l.slice(0, 300)}`)
    .join('\n');
function playwrightFailures(suite, runner) {
  for (const spec of suite.specs ?? [])
    for (const test of spec.tests ?? [])
      if (test.status === 'unexpected') {
        const last = (test.results ?? []).at(-1);
        failures.push(`  ${runner}: ${spec.file}:${spec.line} ${spec.title}\n${firstLines(last?.error?.message)}`);
      }
  for (const child of suite.suites ?? []) playwrightFailures(child, runner);
}
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  let p = 0,
    f = 0,
    s = 0;
  if ('numPassedTests' in report) {
    // jest
    p = report.numPassedTests;
    f = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
    s = report.numPendingTests + (report.numTodoTests ?? 0);
    for (const suite of report.testResults ?? []) {
      const where = suite.name?.split('/').slice(-3).join('/');
      if (suite.status === 'failed' && !suite.assertionResults?.some((a) => a.status === 'failed'))
        failures.push(
          `  ${file.replace(/\.json$/, '')}: ${where} (the suite did not run)\n${firstLines(suite.message)}`,
        );
      for (const a of suite.assertionResults ?? [])
        if (a.status === 'failed')
          failures.push(
            `  ${file.replace(/\.json$/, '')}: ${where} › ${a.fullName}\n${firstLines(a.failureMessages?.join('\n'))}`,
          );
    }
  } else if (report.stats) {
    // Playwright
    p = report.stats.expected + (report.stats.flaky ?? 0);
    f = report.stats.unexpected;
    s = report.stats.skipped;
    for (const suite of report.suites ?? []) playwrightFailures(suite, file.replace(/\.json$/, ''));
  }
  lines.push(`  ${file.replace(/\.json$/, '').padEnd(12)} ${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}`);
  passed += p;
  failed += f;
  skipped += s;
}
if (failures.length) console.log(`\nFailed tests:\n${failures.join('\n')}`);
console.log(`\nSummary by runner:\n${lines.join('\n')}`);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
