/**
 * The benchmarks' shared report. Each bench script calls record() once per figure it prints; all.mjs names the file
 * (BENCH_RESULTS, one JSON object a line) and renders every figure as one Markdown table. Without BENCH_RESULTS (a bench
 * run on its own) record() does nothing.
 */
import fs from 'node:fs';
import os from 'node:os';

/**
 * One figure: `bench` (the script, e.g. 'lists'), `measure` (what was measured), `value` and `unit` (the result as
 * printed), `target` (text, e.g. '< 20 ms'; null when there is none), `ok` (true, false, or null when only reported)
 * and an optional `note` (the figures printed beside it).
 */
export function record({ bench, measure, value, unit = '', target = null, ok = null, note = null }) {
  const file = process.env.BENCH_RESULTS;
  if (!file) return;
  fs.appendFileSync(file, `${JSON.stringify({ bench, measure, value, unit, target, ok, note })}\n`);
}

/** The machine the figures were measured on. */
export function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    model: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    date: new Date().toISOString(),
    load: os.loadavg().map((l) => l.toFixed(2)),
  };
}

/** The figures recorded in `file`, in order (a line that is not JSON is skipped). */
export function readRecords(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}

const cell = (text) =>
  String(text ?? '—')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

/** The Markdown report: the machine, then one row per figure (ok as ✓, ✗, or — when only reported). */
export function renderReport(rows, info, extra = []) {
  const lines = [
    '# Benchmark report',
    '',
    `- date: ${info.date}`,
    `- machine: ${info.cpus} × ${info.model}, ${info.memoryGiB} GiB memory, ${info.os}`,
    `- Node ${info.node}`,
    ...(info.load ? [`- load average at the start: ${info.load.join(', ')} (1, 5, 15 min)`] : []),
    ...extra.map((line) => `- ${line}`),
    '',
    '| benchmark | measure | result | target | ok |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const unit = !r.unit ? '' : r.unit === '×' ? r.unit : ` ${r.unit}`;
    const result = r.value === 'failed' ? 'failed' : `${r.value}${unit}`;
    const withNote = r.note ? `${result} (${r.note})` : result;
    const ok = r.ok === true ? '✓' : r.ok === false ? '✗' : '—';
    lines.push(`| ${cell(r.bench)} | ${cell(r.measure)} | ${cell(withNote)} | ${cell(r.target)} | ${ok} |`);
  }
  return `${lines.join('\n')}\n`;
}
