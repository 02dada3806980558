/**
 * What the seal benchmarks share (seal.mjs, engine-compare.mjs, profile-seal.mjs): the request they complete (6
 * e-Signature signers, every page boxed for each, optionally 10 fields per signer), prepared through the built
 * server's /v1 calls; the seal job's work run in this process as the job runs it (SealService.run on the same
 * modules the server is made of); and the check of the result with the shared pdf-verify tool.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { demoKey, freePort, repoRoot, startServer, stop, testSupport } from './server.mjs';

const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
export const shared = process.env.SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared');
export const fixture = (name) => path.join(shared, 'fixtures', 'pdfs', name);
const dist = (...parts) => path.join(repoRoot, 'api', 'dist', ...parts);

export const SIGNERS = ['Asha Rao', 'Vikram Shah', 'Meera Iyer', 'Rahul Nair', 'Priya Menon', 'Arjun Das'].map(
  (name, i) => ({
    name,
    email: `${name.split(' ')[0].toLowerCase()}@example.in`,
    phoneNumber: `98765432${10 + i}`,
    observer: false,
    signature_type: 'e-Signature',
  }),
);

/** A drawn-looking signature PNG (240×80), from the test-support package every suite uses. */
export const signaturePng = () => require('@esign/test-support').signaturePng(240, 80, 5);

/**
 * Ten fields for signer i (issue 21), one of each kind a signer fills plus a date and a Devanagari text, on ten pages
 * spread over the book, in a band of the page that is the signer's own; and the values the signer fills in.
 */
export function benchFields(i) {
  const box = (k) => [40, 60 + i * 40 + (k % 2) * 20, 240, 76 + i * 40 + (k % 2) * 20];
  const page = (k) => 1 + ((k * 35 + i * 5) % 350);
  const fields = [
    { id: `s${i}init`, kind: 'initials' },
    { id: `s${i}name`, kind: 'name' },
    { id: `s${i}date`, kind: 'date' },
    { id: `s${i}text`, kind: 'text', label: 'Reference' },
    { id: `s${i}num`, kind: 'number', label: 'Amount' },
    { id: `s${i}check`, kind: 'checkbox', label: 'I agree' },
    { id: `s${i}drop`, kind: 'dropdown', label: 'City', options: ['Mumbai', 'Pune', 'Chennai'] },
    { id: `s${i}radio`, kind: 'radio', label: 'Plan', options: ['Basic', 'Premium'] },
    { id: `s${i}hindi`, kind: 'text', label: 'Name in Hindi' },
    { id: `s${i}pan`, kind: 'text', label: 'PAN', pattern: 'PAN' },
  ].map((f, k) => ({ ...f, page: page(k), box: box(k) }));
  const values = {
    [`s${i}text`]: `Invoice 2026-${i}`,
    [`s${i}num`]: `${1000 * (i + 1)}`,
    [`s${i}check`]: true,
    [`s${i}drop`]: 'Pune',
    [`s${i}radio`]: 'Premium',
    [`s${i}hindi`]: 'आशा वर्मा',
    [`s${i}pan`]: 'ABCDE1234F',
  };
  return { fields, values };
}

/** A sent request whose 6 signatures are submitted and waiting for the seal job (with 10 fields each when `fields`). */
export async function prepare(base, key, name, fields = false) {
  const { callApi, sendRequest } = testSupport();
  const { refId, parties } = await sendRequest(base, key, {
    orgId: 'demo',
    recipients: SIGNERS,
    pdf: name,
    placement: (i) => ({
      apply_all: true,
      rectangle: `${20 + i * 90},700,${100 + i * 90},740`,
      ...(fields ? { fields: benchFields(i).fields } : {}),
    }),
  });
  const png = signaturePng();
  for (const [i, p] of parties.entries()) {
    const headers = { 'x-sign-token': p.token };
    const ref = await callApi(base, 'GET', `/v1/reference/demo/${refId}/${p.order}`, { headers });
    await callApi(base, 'POST', `/v1/signer_details/demo/${refId}/${p.order}`, {
      headers,
      body: { status: 'signing' },
    });
    if (fields)
      await callApi(base, 'POST', `/v1/fields/demo/${refId}/${p.order}`, {
        headers,
        body: { values: benchFields(i).values },
      });
    // Drawn, typed (normal and italic) and uploaded signatures, two of each.
    const body =
      i % 3 === 1
        ? { kind: 'typed', style: i % 2 ? 'italic' : 'normal' }
        : { kind: i % 3 === 2 ? 'uploaded' : 'drawn', file: `data:image/png;base64,${png.toString('base64')}` };
    await callApi(base, 'POST', `/v1/esignature/demo/${ref.request.requestId}`, { headers, body });
  }
  return refId;
}

/**
 * A fresh DATA_DIR with requests ready for the seal job: the built server (SQLite, JOBS_RUNNER=off) is started,
 * takes one request per entry of `plan` ({ name, fields }) and stops. The port is kept for the server that answers
 * pdfsig's OCSP questions at the end (the certificates name ${PUBLIC_URL}/pki/ocsp).
 */
export async function preparedData(plan) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-seal-'));
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const { child, base } = await startServer(dataDir, port, { JOBS_RUNNER: 'off', PUBLIC_URL: publicUrl });
  const refIds = [];
  try {
    const key = await demoKey(base);
    for (const { name, fields = false } of plan) refIds.push(await prepare(base, key, name, fields));
  } finally {
    await stop(child);
  }
  return { dataDir, port, publicUrl, refIds };
}

/** The median hash (SHA-256) and write of `bytes` once, in ms. */
export function hashAndWriteMs(bytes, dir) {
  const times = [];
  for (let i = 0; i < 7; i++) {
    const t = process.hrtime.bigint();
    const key = createHash('sha256').update(bytes).digest('hex');
    const file = path.join(dir, `${key}.${i}`);
    fs.writeFileSync(file, bytes);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    fs.rmSync(file);
  }
  return median(times);
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * The seal job's modules in this process (the server's AppModule without HTTP, on the prepared DATA_DIR). seal()
 * completes one prepared request at the given level (the organisation's level is set first) and answers its wall
 * time, the time spent getting timestamps, and the sealed file. The organisation's certificates and the built-in
 * TSA's are made once per installation, before any clock starts (pkiMs says how long that took).
 */
export async function openSealer(dataDir, publicUrl) {
  require('reflect-metadata');
  const { NestFactory } = require('@nestjs/core');
  const { AppModule } = require(dist('app.module.js'));
  const { loadConfig } = require(dist('config', 'app-config.js'));
  const { SealService } = require(dist('modules', 'requests', 'seal.service.js'));
  const { SealPkiService } = require(dist('modules', 'signing', 'pki', 'seal-pki.service.js'));
  const { DocumentStorage } = require(dist('modules', 'storage', 'document-storage.js'));
  const { RequestEntity } = require(dist('modules', 'requests', 'request.entity.js'));
  const { OrganisationEntity } = require(dist('modules', 'organisations', 'organisation.entity.js'));
  const { Timestamps } = require(dist('modules', 'signing', 'evidence', 'timestamps.js'));
  const { DataSource } = require('typeorm');
  const config = { ...loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test', PUBLIC_URL: publicUrl }), logLevel: 'silent' };
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: false });
  const db = app.get(DataSource).manager;
  const pkiStart = process.hrtime.bigint();
  await app.get(SealPkiService).sealSigner(await db.findOneByOrFail(OrganisationEntity, { id: 'demo' }));
  const pkiMs = Number(process.hrtime.bigint() - pkiStart) / 1e6;
  const timestamps = app.get(Timestamps);
  const original = timestamps.timestamp.bind(timestamps);
  const spent = { ms: 0, count: 0 };
  timestamps.timestamp = async (digest) => {
    const t0 = process.hrtime.bigint();
    try {
      return await original(digest);
    } finally {
      spent.ms += Number(process.hrtime.bigint() - t0) / 1e6;
      spent.count++;
    }
  };
  await timestamps.timestamp(createHash('sha256').update('warm-up').digest());
  const sealService = app.get(SealService);
  return {
    pkiMs,
    /** `around(fn)` wraps the timed call (the profiler starts and stops around it). */
    async seal(refId, level, around = (fn) => fn()) {
      await db.update(OrganisationEntity, { id: 'demo' }, { signatureLevel: level });
      Object.assign(spent, { ms: 0, count: 0 });
      let ms = 0;
      const outcome = await around(async () => {
        const t = process.hrtime.bigint();
        const result = await sealService.run('demo', refId);
        ms = Number(process.hrtime.bigint() - t) / 1e6;
        return result;
      });
      const req = await db.findOneByOrFail(RequestEntity, { refId });
      const pdf = await app.get(DocumentStorage).get(req.signedFileKey);
      const ca = await app.get(SealPkiService).rootCertificatePem();
      return { level, reached: req.evidenceLevel, ms, outcome, pdf, ca, status: req.status, timestamps: { ...spent } };
    },
    close: () => app.close(),
  };
}

/**
 * pdf-verify on a sealed file (pdfsig trusting the development root, and openssl ts -verify for document
 * timestamps): how many CAdES signatures, whether every one is valid and trusted, the archive timestamps, the DSS.
 * The server that made it must answer on its PUBLIC_URL (pdfsig asks its OCSP responder).
 */
export function verify(pdf, ca, dir) {
  fs.writeFileSync(path.join(dir, 'signed.pdf'), pdf);
  fs.writeFileSync(path.join(dir, 'ca.pem'), ca);
  const run = spawnSync(
    path.join(shared, 'tools', 'pdf-verify'),
    [path.join(dir, 'signed.pdf'), '--ca', path.join(dir, 'ca.pem')],
    { encoding: 'utf8' },
  );
  const result = JSON.parse(run.stdout);
  // A document timestamp is not read by poppler 22's pdfsig: pdf-verify judges it with openssl ts -verify.
  const cades = result.signatures.filter((s) => s.type !== 'unknown');
  const archive = (result.evidence?.signatures ?? []).filter((s) => s.kind === 'document timestamp');
  return {
    signatures: cades.length,
    valid: cades.every((s) => s.valid && s.trusted) && archive.every((s) => s.imprintMatches && s.chainVerified),
    archives: archive.length,
    dss: Boolean(result.evidence?.dss),
    qpdfClean: qpdfClean(path.join(dir, 'signed.pdf')),
  };
}

/** qpdf --check: exit 0 and no warning. */
export function qpdfClean(file) {
  const r = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  return r.status === 0 && !/WARNING/i.test(r.stdout + r.stderr);
}

/** Checks sealed results with the server answering OCSP on the prepared data's port. */
export async function verifyAll(prepared, sealed) {
  const answering = await startServer(prepared.dataDir, prepared.port, {
    JOBS_RUNNER: 'off',
    PUBLIC_URL: prepared.publicUrl,
  });
  try {
    return sealed.map((s) => verify(s.pdf, s.ca, prepared.dataDir));
  } finally {
    await stop(answering.child);
  }
}

/** The complete check of one sealed request: completed at its level, 6 applied, 7 valid signatures, its evidence. */
export function sealedWell(sealed, checked) {
  const evidence = sealed.level === 'B-LTA' ? checked.dss && checked.archives === 1 : checked.archives === 0;
  return (
    sealed.status === 'completed' &&
    sealed.reached === sealed.level &&
    sealed.outcome.applied === 6 &&
    checked.signatures === 7 &&
    checked.valid &&
    checked.qpdfClean &&
    evidence
  );
}

/** The machine's load and the share of CPU time taken by the host (steal) between two cpuTimes() readings. */
export function cpuTimes() {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}
export const stealPercent = (from, to) =>
  from && to && to.total > from.total ? Math.round((100 * (to.steal - from.steal)) / (to.total - from.total)) : null;
