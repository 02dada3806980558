#!/usr/bin/env node
// Lists the imports between the API's modules (api/src/modules/*, and from the leaves common, config and database to
// them) and reports the backward ones, those that go
// against the layer order of ARCHITECTURE.md ("Modules and the one-way rule"). The order itself is read from
// api/module-layers.cjs, the same file the lint rule (eslint.config.mjs) is built from.
//
//   node scripts/module-graph.mjs            edges between modules (counts) and the backward imports, file by file
//   node scripts/module-graph.mjs --files    every cross-module import, file by file
//   node scripts/module-graph.mjs --mermaid  the module graph as a mermaid flowchart
//   node scripts/module-graph.mjs --check    exit 1 when a backward import is not a listed exception
//
// Type-only imports count: a type from a higher layer is still knowledge of that layer.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { layers, leaves, exceptions } = require(join(root, 'api/module-layers.cjs'));
const src = join(root, 'api/src');
const modulesDir = join(src, 'modules');

const args = new Set(process.argv.slice(2));

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (/\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** 'recipients', 'common', … for a path inside api/src; undefined outside it. */
function unitOf(absPath) {
  const rel = relative(src, absPath);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  if (parts[0] === 'modules') return parts.length > 2 ? parts[1] : undefined;
  return parts.length > 1 ? parts[0] : undefined; // common, config, database; top-level files are the composition root
}

const rank = new Map();
layers.forEach((tier, i) => tier.forEach((m) => rank.set(m, i)));
leaves.forEach((m) => rank.set(m, layers.length));

const modules = readdirSync(modulesDir).filter((n) => statSync(join(modulesDir, n)).isDirectory());
const unplaced = modules.filter((m) => !rank.has(m));
if (unplaced.length) {
  console.error(`modules without a layer in api/module-layers.cjs: ${unplaced.join(', ')}`);
  process.exit(2);
}

const imports = []; // { file, from, to, spec }
const scanned = [modulesDir, ...leaves.filter((l) => l !== 'contract').map((l) => join(src, l))];
for (const file of scanned.flatMap(walk)) {
  const from = unitOf(file);
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  for (const { fileName: spec } of info.importedFiles) {
    let to;
    if (spec.startsWith('.')) to = unitOf(resolve(dirname(file), spec));
    else if (spec === '@esign/contract' || spec.startsWith('@esign/contract/')) to = 'contract';
    if (!to || to === from) continue;
    imports.push({ file: relative(root, file).split(sep).join('/'), from, to, spec });
  }
}

const backward = imports.filter(
  (i) => !(rank.get(i.to) > rank.get(i.from)) && !(leaves.includes(i.from) && leaves.includes(i.to)),
);
const excepted = (i) => exceptions.some((e) => e.file === i.file && e.imports.includes(i.to));
const unexpected = backward.filter((i) => !excepted(i));

const edges = new Map();
for (const i of imports) {
  const key = `${i.from} -> ${i.to}`;
  edges.set(key, (edges.get(key) ?? 0) + 1);
}

if (args.has('--mermaid')) {
  // One box per layer, top first; solid arrows run down, dotted ones are the backward imports that remain.
  const id = (m) => m.replace(/-/g, '_');
  console.log('flowchart TD');
  layers.forEach((tier, i) =>
    console.log(`  subgraph L${i + 1}["layer ${i + 1}"]\n    ${tier.map(id).join(' ~~~ ')}\n  end`),
  );
  for (const [key] of [...edges].sort()) {
    const [a, b] = key.split(' -> ');
    if (leaves.includes(a) || leaves.includes(b)) continue; // everyone uses the leaves; drawing them hides the rest
    const back = backward.some((i) => i.from === a && i.to === b);
    console.log(`  ${id(a)} ${back ? '-. backward .->' : '-->'} ${id(b)}`);
  }
  process.exit(0);
}

if (args.has('--files')) {
  for (const i of imports) console.log(`${i.file}: ${i.from} -> ${i.to} ('${i.spec}')`);
  process.exit(0);
}

if (!args.has('--check')) {
  console.log('Layers, top to bottom (a module may import only from layers below its own):');
  layers.forEach((tier, i) => console.log(`  ${i + 1}. ${tier.join(', ')}`));
  console.log(`  leaves: ${leaves.join(', ')}`);
  console.log(`\nEdges between modules (imports):`);
  for (const [key, n] of [...edges].sort()) console.log(`  ${key}  ${n}`);
}
const files = (list) => new Set(list.map((i) => i.file)).size;
const inModules = backward.filter((i) => !leaves.includes(i.from));
console.log(
  `\nBackward imports: ${backward.length} in ${files(backward)} files ` +
    `(between modules: ${inModules.length} in ${files(inModules)} files; ` +
    `not listed as exceptions: ${unexpected.length} in ${files(unexpected)} files)`,
);
const byFile = new Map();
for (const i of backward) {
  if (!byFile.has(i.file)) byFile.set(i.file, { from: i.from, to: new Set(), n: 0 });
  const entry = byFile.get(i.file);
  entry.to.add(i.to);
  entry.n += 1;
}
for (const [file, { from, to, n }] of byFile) {
  const listed = [...to].every((m) => excepted({ file, to: m }));
  console.log(`  ${file}: ${from} -> ${[...to].join(', ')} (${n} imports${listed ? ', listed exception' : ''})`);
}
if (args.has('--check') && unexpected.length) {
  console.error(`\n${unexpected.length} backward import(s) not listed in api/module-layers.cjs`);
  process.exit(1);
}
