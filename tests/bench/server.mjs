/** The built server for the benchmarks: started on a free loopback port with its own DATA_DIR, and stopped. */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
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

/** The sign link (as PUBLIC_URL writes it) of a new request to one e-Signature signer, no OTP, on a shared fixture. */
export async function signLink(base, key, fixture) {
  const signer = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '9876543210', observer: false };
  const { parties } = await testSupport().sendRequest(base, key, {
    orgId: 'demo',
    recipients: [{ ...signer, signature_type: 'e-Signature' }],
    pdf: fixture,
  });
  return parties[0].signUrl;
}

/** @esign/test-support (built with the product): requests, PNGs and fixtures, shared with the other suites. */
export const testSupport = () => createRequire(path.join(repoRoot, 'api', 'package.json'))('@esign/test-support');
