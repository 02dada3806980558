// Adds up the JSON reports of every runner of npm test into one closing line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
const lines = [];
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
  } else if (report.stats) {
    // Playwright
    p = report.stats.expected + (report.stats.flaky ?? 0);
    f = report.stats.unexpected;
    s = report.stats.skipped;
  }
  lines.push(`  ${file.replace(/\.json$/, '').padEnd(12)} ${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}`);
  passed += p;
  failed += f;
  skipped += s;
}
console.log(`\nSummary by runner:\n${lines.join('\n')}`);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
