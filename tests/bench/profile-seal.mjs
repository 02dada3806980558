#!/usr/bin/env node
/**
 * Where the seal's time goes: a CPU profile (V8's sampling profiler, through node:inspector) of the seal job
 * completing the 6-signer freeculture.pdf request of seal.mjs, at B-B and at B-LTA, after one unprofiled warm-up
 * seal. Only the seal job's call is profiled (not the server's start nor the request's preparation). Prints, and
 * writes to tests/bench/results/profile-seal-<label>.md (label: the first argument, default 'latest'):
 *   - the self time by where the code comes from (@libpdf/core, the product's signing code, the database, …);
 *   - the inclusive time of the steps that matter (parse, stamp, save, certificate, hashing, signing, database);
 *   - the 30 functions with the most self time.
 * `--keep DIR` also writes the .cpuprofile files (open them in Chrome's DevTools, Performance tab).
 *
 *   node tests/bench/profile-seal.mjs before
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entry } from './server.mjs';
import { openSealer, preparedData } from './seal-support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const label = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'latest';
const keepAt = process.argv.indexOf('--keep');
const keepDir = keepAt > 0 ? process.argv[keepAt + 1] : null;
const FIXTURE = process.env.BENCH_PROFILE_FIXTURE ?? 'freeculture.pdf';

const post = (session, method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );

/** Runs fn under the sampling profiler (100 µs interval) and answers [fn's result, the profile]. */
async function profiled(fn) {
  const session = new inspector.Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
  await post(session, 'Profiler.start');
  try {
    const result = await fn();
    const { profile } = await post(session, 'Profiler.stop');
    return [result, profile];
  } finally {
    session.disconnect();
  }
}

/** Where a function's code comes from. */
function categoryOf(frame) {
  const url = frame.url ?? '';
  const name = frame.functionName;
  if (!url) {
    if (name === '(garbage collector)') return 'garbage collection';
    if (name === '(idle)') return 'idle (waiting: I/O, the database, other processes)';
    if (name === '(program)') return 'V8 and native code outside JavaScript';
    return `native: ${name || '(anonymous)'}`;
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    if (/better-sqlite3|typeorm|sqlite/.test(pkg[1])) return 'database (typeorm, better-sqlite3)';
    return pkg[1];
  }
  if (url.startsWith('node:')) return 'node built-ins';
  const product = /api\/(dist|pdf-syntax\/dist|verifier\/dist)\/(.*)$/.exec(url.replace(/^file:\/\//, ''));
  if (product) {
    const file = product[2];
    if (product[1] !== 'dist') return `@esign/${product[1].split('/')[0]}`;
    const dir = path.dirname(file);
    return `product: ${dir}`;
  }
  return url.replace(/^file:\/\//, '');
}

/** The steps worth naming, by the functions that make them (inclusive time of the outermost call of each). */
const STEPS = [
  ['parse the document (@libpdf/core PDF.load)', (f) => f.functionName === 'load' && /libpdf/.test(f.url)],
  [
    'parse the document (incremental reader)',
    (f) => /^(openRevisionBase|readRevisionBase|readStructure)$/.test(f.functionName),
  ],
  ['stamp the pages', (f) => /^(stampParty|stampBoxes|stampRevision)$/.test(f.functionName)],
  ["the signer's image (PNG)", (f) => /^(embedSignatureImage|embedPng)$/.test(f.functionName)],
  ['draw the fields', (f) => f.functionName === 'drawFields'],
  ['the certificate of completion', (f) => /appendCompletionCertificate|drawCompletion/.test(f.functionName)],
  ['save (@libpdf/core)', (f) => f.functionName === 'save' && /libpdf/.test(f.url)],
  ['write the update (incremental writer)', (f) => /^(writeUpdate|appendUpdate)$/.test(f.functionName)],
  ['font subsetting', (f) => /^(subsetFonts|finalize)$/.test(f.functionName)],
  ['DSS (addValidationData)', (f) => /addValidationData|appendDss/.test(f.functionName)],
  ['document timestamp (addTimestamp)', (f) => /addTimestamp|appendDocumentTimestamp/.test(f.functionName)],
  ['find the placeholder / ByteRange', (f) => /^(locatePlaceholder|locateContents)$/.test(f.functionName)],
  ['SHA-256 (crypto Hash)', (f) => f.url === 'node:internal/crypto/hash' && /update|digest/.test(f.functionName)],
  ['one-time certificate (SealPkiService.signerFor)', (f) => f.functionName === 'signerFor'],
  ['CMS (signWith)', (f) => f.functionName === 'signWith'],
  ['storage get/put', (f) => /^(get|getHashed|put)$/.test(f.functionName) && /storage/.test(f.url)],
  [
    'database (TypeORM)',
    (f) =>
      /^(getQueryAndParameters|executeEntitiesAndRawResults|execute)$/.test(f.functionName) && /typeorm/.test(f.url),
  ],
];

function summarise(profile, wallMs, title) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const deltas = profile.timeDeltas;
  const selfUs = new Map();
  // A sample's time is the delta to the next sample.
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = deltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byCategory = new Map();
  const byFunction = new Map();
  for (const [id, us] of selfUs) {
    const f = nodes.get(id).callFrame;
    const cat = categoryOf(f);
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + us);
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''} [${cat}]`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  // Inclusive time of each step: samples with a matching frame anywhere on their stack (each sample counted once).
  const stepUs = new Map(STEPS.map(([name]) => [name, 0]));
  const stackMatches = new Map();
  const matchesOf = (id) => {
    if (stackMatches.has(id)) return stackMatches.get(id);
    const f = nodes.get(id).callFrame;
    const own = STEPS.filter(([, test]) => test(f)).map(([name]) => name);
    const up = parent.has(id) ? matchesOf(parent.get(id)) : [];
    const all = [...new Set([...own, ...up])];
    stackMatches.set(id, all);
    return all;
  };
  for (const [id, us] of selfUs) for (const step of matchesOf(id)) stepUs.set(step, stepUs.get(step) + us);
  const ms = (us) => (us / 1000).toFixed(1).padStart(8);
  const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
  const lines = [
    `## ${title}`,
    '',
    `wall time of the seal job ${wallMs.toFixed(0)} ms; ${(totalUs / 1000).toFixed(0)} ms sampled`,
    '',
    'Self time by where the code comes from:',
    '',
    '```',
    ...[...byCategory]
      .sort((a, b) => b[1] - a[1])
      .filter(([, us]) => us >= 500)
      .map(([cat, us]) => `${ms(us)} ms ${pct(us)}  ${cat}`),
    '```',
    '',
    'Inclusive time of the steps (synchronous stacks only: the time awaited inside a step is not counted in it):',
    '',
    '```',
    ...[...stepUs].filter(([, us]) => us > 0).map(([step, us]) => `${ms(us)} ms ${pct(us)}  ${step}`),
    '```',
    '',
    'The 30 functions with the most self time:',
    '',
    '```',
    ...[...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([fn, us]) => `${ms(us)} ms ${pct(us)}  ${fn}`),
    '```',
    '',
  ];
  return lines.join('\n');
}

async function main() {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first.`);
  const prepared = await preparedData([{ name: FIXTURE }, { name: FIXTURE }, { name: FIXTURE }]);
  const sections = [];
  try {
    const sealer = await openSealer(prepared.dataDir, prepared.publicUrl);
    try {
      const warm = await sealer.seal(prepared.refIds[0], 'B-B');
      sections.push(`warm-up seal (not profiled) at B-B: ${warm.ms.toFixed(0)} ms\n`);
      for (const [i, level] of [
        [1, 'B-B'],
        [2, 'B-LTA'],
      ]) {
        let profile;
        const sealed = await sealer.seal(prepared.refIds[i], level, async (fn) => {
          const [result, p] = await profiled(fn);
          profile = p;
          return result;
        });
        if (sealed.status !== 'completed') throw new Error(`the ${level} seal did not complete`);
        if (keepDir) {
          fs.mkdirSync(keepDir, { recursive: true });
          fs.writeFileSync(path.join(keepDir, `seal-${label}-${level}.cpuprofile`), JSON.stringify(profile));
        }
        sections.push(
          summarise(
            profile,
            sealed.ms,
            `${FIXTURE}, 6 signers, every page boxed, at ${level} (${sealed.outcome.applied} signatures applied)`,
          ),
        );
      }
    } finally {
      await sealer.close();
    }
  } finally {
    fs.rmSync(prepared.dataDir, { recursive: true, force: true });
  }
  const text = `# Seal profile: ${label}\n\n${new Date().toISOString()}, Node ${process.version}\n\n${sections.join('\n')}`;
  const out = path.join(here, 'results', `profile-seal-${label}.md`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, text);
  console.log(text);
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
