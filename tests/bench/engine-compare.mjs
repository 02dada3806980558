#!/usr/bin/env node
/**
 * The signing engine on every fixture (ARCHITECTURE.md, "Signing engine"): stamp a PNG on every page and sign
 * (PAdES B-B) as an incremental update, twice, with @libpdf/core. Reports per fixture: time, qpdf's verdict (new
 * warnings against the original) and, for files that carry signatures already, whether those still validate.
 *
 * This script once compared @libpdf/core with @cantoo/pdf-lib (the maintained pdf-lib fork), which is how the engine
 * was chosen; pdf-lib has since been removed from the product (one PDF library), and with it that column. The figures
 * it recorded are kept in ARCHITECTURE.md as history.
 *
 *   node tests/bench/engine-compare.mjs            (needs poppler-utils and qpdf)
 */
import { spawnSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
const shared = process.env.SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared');
const { PDF, CryptoKeySigner } = await import(require.resolve('@libpdf/core'));

const FIXTURES = [
  'normal.pdf',
  'us_constitution.pdf',
  'tracemonkey.pdf',
  'freeculture.pdf',
  'linearized_with_object_streams.pdf',
  'giraffe.pdf',
  'american_flag.pdf',
  'with_cropbox.pdf',
  'doc_2_3_pages.pdf',
  'with_update_sections.pdf',
  'with_signature.pdf',
  'already_signed.pdf',
  'already_signed_twice.pdf',
];
const png = readFileSync(path.join(shared, 'fixtures', 'faces', 'coffee.png'));
const alg = { name: 'ECDSA', namedCurve: 'P-256' };
const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
// A signer only for timing (pdfsig's trust is not what this compares): any certificate-shaped DER will do for
// @libpdf/core's CMS; a self-signed one is made with the x509 package the product uses.
require('reflect-metadata');
const x509 = require('@peculiar/x509');
x509.cryptoProvider.set(webcrypto);
const cert = await x509.X509CertificateGenerator.createSelfSigned({
  serialNumber: '01',
  name: 'CN=Engine comparison',
  notBefore: new Date(Date.now() - 86_400_000),
  notAfter: new Date(Date.now() + 86_400_000),
  keys,
  signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
});
const signer = new CryptoKeySigner(keys.privateKey, new Uint8Array(cert.rawData), 'EC', 'ECDSA');

const qpdfWarnings = (file) => {
  const r = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  // Without the file's own path, so warnings of two files compare.
  const warnings = (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => /WARNING/i.test(l))
    .map((l) => l.split(file).join('FILE'));
  return { code: r.status, warnings };
};
const earlierValid = (file, count) => {
  const text = spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;
  const results = [...text.matchAll(/Signature Validation: (.*)/g)].map((m) => m[1]);
  return results.slice(0, count).every((r) => r === 'Signature is Valid.');
};

const tmp = mkdtempSync(path.join(tmpdir(), 'engine-compare-'));
const rows = [];
for (const name of FIXTURES) {
  const original = readFileSync(path.join(shared, 'fixtures', 'pdfs', name));
  const origFile = path.join(tmp, name);
  writeFileSync(origFile, original);
  const before = qpdfWarnings(origFile);
  const existing = (spawnSync('pdfsig', [origFile], { encoding: 'utf8' }).stdout.match(/Signature #/g) ?? []).length;
  const row = { name, existing };

  // @libpdf/core: stamp + sign, twice.
  try {
    let bytes = original;
    const t0 = performance.now();
    let reason = null;
    for (let i = 0; i < 2; i++) {
      const pdf = await PDF.load(bytes);
      reason ??= pdf.canSaveIncrementally();
      const image = pdf.embedImage(png);
      for (const page of pdf.getPages()) page.drawImage(image, { x: 20 + 60 * i, y: 20, width: 50, height: 30 });
      bytes = (await pdf.sign({ signer, fieldName: `Compare${i}`, level: 'B-B', estimatedSize: 16384 })).bytes;
    }
    row.libpdfMs = Math.round(performance.now() - t0);
    const out = path.join(tmp, `libpdf-${name}`);
    writeFileSync(out, bytes);
    const q = qpdfWarnings(out);
    row.libpdf = {
      incremental: reason === null,
      qpdfErrors: q.code === 2,
      newWarnings: q.warnings.filter((w) => !before.warnings.includes(w)).length,
      earlierValid: existing ? earlierValid(out, existing) : null,
    };
  } catch (e) {
    row.libpdf = { error: String(e.message ?? e).slice(0, 80) };
  }

  rows.push(row);
}
rmSync(tmp, { recursive: true, force: true });

const cell = (r) =>
  r.error
    ? `error: ${r.error}`
    : [
        r.incremental === false ? 'REWRITES' : null,
        r.qpdfErrors ? 'qpdf errors' : null,
        r.newWarnings ? `${r.newWarnings} new qpdf warnings` : null,
        r.earlierValid === false ? 'EARLIER SIGNATURES BROKEN' : r.earlierValid ? 'earlier signatures valid' : null,
      ]
        .filter(Boolean)
        .join(', ') || 'clean';
console.log('| fixture | @libpdf/core stamp+sign x2 | ms |');
console.log('|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${cell(r.libpdf)} | ${r.libpdfMs ?? '-'} |`);
