/** The built server for the benchmarks: started on a free loopback port with its own DATA_DIR, and stopped. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const entry = path.join(repoRoot, 'api', 'dist', 'main.js');

/** Debian's Chromium, headless, with the flags this machine needs (no sandbox, no GPU, nothing fetched). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

export async function startServer(dataDir, port, env = {}) {
  const child = spawn(process.execPath, [entry], {
    cwd: repoRoot,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not answer /health within 60 s');
}

export const stop = (child) =>
  new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });

/** A session key of the seeded demo user. */
export async function demoKey(base) {
  const auth = Buffer.from('demo:demo1234').toString('base64');
  const res = await fetch(`${base}/consumers/demo/key-auth`, { headers: { authorization: `Basic ${auth}` } });
  return (await res.json()).data[0].key;
}

export const sharedDir = process.env.SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared');

async function callJson(base, pathname, init = {}) {
  const res = await fetch(`${base}${pathname}`, init);
  const body = await res.json();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${pathname} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** The sign link (as PUBLIC_URL writes it) of a new request to one e-Signature signer, no OTP, on a shared fixture. */
export async function signLink(base, key, fixture) {
  const form = new FormData();
  const signer = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '9876543210', observer: false };
  form.set('data', JSON.stringify([{ ...signer, signature_type: 'e-Signature' }]));
  form.set('checkOrder', 'false');
  form.set('otpRequired', 'false');
  form.set('orgId', 'demo');
  const pdf = fs.readFileSync(path.join(sharedDir, 'fixtures', 'pdfs', fixture));
  form.set('file', new Blob([pdf], { type: 'application/pdf' }), fixture);
  const up = await callJson(base, '/v1/upload', { method: 'POST', headers: { apikey: key }, body: form });
  await callJson(base, '/v1/process', {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ orgId: 'demo', data: [{ refId: up.refId, order: 1 }] }),
  });
  const list = await callJson(base, '/v1/request_all/demo', { headers: { apikey: key } });
  return list.data.find((r) => r.refId === up.refId).data[0].sign_url;
}
