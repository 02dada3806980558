import fs from 'node:fs';
import path from 'node:path';
import { serverEntry, startServer } from './support/server';

const repoRoot = path.resolve(__dirname, '..', '..');

/**
 * Starts `node api/dist/main.js` on a free port with an empty DATA_DIR (so the demo organisation is seeded), waits
 * for GET /health, and publishes the address in E2E_BASE_URL. The returned function is the global teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (process.env.E2E_BASE_URL) return async () => undefined;

  if (!fs.existsSync(serverEntry)) {
    throw new Error(`${serverEntry} is missing: build first (npm run build at the repository root).`);
  }
  for (const app of ['admin', 'signer-web']) {
    if (!fs.existsSync(path.join(repoRoot, app, 'dist', 'index.html'))) {
      throw new Error(`${app}/dist is missing: run npm run build -w ${app} first.`);
    }
  }

  const { baseUrl, dataDir, stop } = await startServer();
  process.env.E2E_BASE_URL = baseUrl;
  // Where the server keeps its files: the journeys read its development root CA (pki/dev-root-ca.pem) from there.
  process.env.E2E_DATA_DIR = dataDir;
  return async () => {
    await stop();
    delete process.env.E2E_BASE_URL;
    delete process.env.E2E_DATA_DIR;
  };
}
