import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { runPdfVerify } from '../support/pdf-verify';
import { clusterDir, startApiNode, stopAll, type ApiNode } from '../scale-out/cluster';
import { demoKey, sendRequests } from './requests';
import { signParty } from './signers';

const run = promisify(execFile);
const MANAGE = resolve(__dirname, '..', '..', 'dist', 'manage.js');
/**
 * 33 requests of 2 signers: 5 completed before the backup; 25 whose 50 signers sign while it is taken; 3 whose first
 * signer signs then and whose second signs only after the restore (so the copy surely holds requests to finish).
 */
const BEFORE = 5;
const DURING = 25;
const AFTER = 3;
const REQUESTS = BEFORE + DURING + AFTER;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const fileOf = (dataDir: string, key: string) => join(dataDir, 'files', key.slice(0, 2), key.slice(2, 4), key);

interface Row {
  ref_id: number;
  status: string;
  signed_file_key: string | null;
}
const rows = (dataDir: string): Row[] => {
  const db = new Database(join(dataDir, 'esign.sqlite'), { readonly: true });
  try {
    return db.prepare("SELECT ref_id, status, signed_file_key FROM requests WHERE org_id = 'demo'").all() as Row[];
  } finally {
    db.close();
  }
};
const pendingParties = (dataDir: string, refId: number): number[] => {
  const db = new Database(join(dataDir, 'esign.sqlite'), { readonly: true });
  try {
    return (
      db
        .prepare(
          'SELECT party_order AS o FROM parties WHERE ref_id = ? AND signature_submitted_at IS NULL ORDER BY party_order',
        )
        .all(refId) as { o: number }[]
    ).map((r) => r.o);
  } finally {
    db.close();
  }
};

async function waitForCompletion(http: ReturnType<typeof request>, key: string, refIds: number[], node: ApiNode) {
  const deadline = Date.now() + 180_000;
  for (const refId of refIds)
    for (;;) {
      const res = await http.get(`/api/requests/${refId}`).set('apikey', key);
      if (res.status === 200 && res.body.request_status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`request ${refId} was not completed\n${node.logTail(40)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
}

/**
 * Issue 24's backup under load: the built server (SQLite) with 50 signers of 25 requests signing while
 * `manage backup` (another process, SQLite's online backup) writes the archive. Restored into a fresh DATA_DIR, a
 * server starts on it (the same port: its certificates' OCSP addresses point there); every request completed in the
 * copy has the same signed PDF (SHA-256) as the original and it verifies; every audit chain is intact; and the
 * requests that were in progress in the copy are finished by their remaining signers on the restored server.
 */
describe('reliability: a backup taken while 50 signers sign, restored into a fresh DATA_DIR', () => {
  afterAll(() => stopAll());

  it('restores a server where completed PDFs match and verify, chains are intact, and the rest can finish', async () => {
    const node = await startApiNode('backup-source', { JOBS_POLL_MS: '100' });
    const http = request(node.url);
    const key = await demoKey(http);
    const parties = await sendRequests(node.url, key, REQUESTS, 2);
    const archive = join(mkdtempSync(join(clusterDir(), 'archive-')), 'load.tar');

    const refIds = [...new Set(parties.map((p) => p.refId))];
    const group = (from: number, to: number) => parties.filter((p) => refIds.slice(from, to).includes(p.refId));
    for (const p of group(0, BEFORE)) await signParty(node.url, p);
    await waitForCompletion(http, key, refIds.slice(0, BEFORE), node);
    const later = group(BEFORE + DURING, REQUESTS).filter((p) => p.order === 2);

    // 53 signers start at once; the backup starts while they sign.
    const now = [...group(BEFORE, BEFORE + DURING), ...group(BEFORE + DURING, REQUESTS).filter((p) => p.order === 1)];
    const signing = Promise.all(now.map((p) => signParty(node.url, p)));
    await new Promise((r) => setTimeout(r, 1500));
    const backup = await run(process.execPath, [MANAGE, 'backup', archive], { env: { ...process.env, ...node.env } });
    expect(backup.stdout).toMatch(/^Backup written to /);
    await signing;
    const source = node.env.DATA_DIR;
    await waitForCompletion(http, key, refIds.slice(0, BEFORE + DURING), node);
    expect(later).toHaveLength(AFTER);
    await node.stop();

    // A fresh DATA_DIR for a server on the same port.
    const restoredDir = join(mkdtempSync(join(clusterDir(), 'restored-')), 'data');
    const restoring = await run(process.execPath, [MANAGE, 'restore', archive], {
      env: { ...process.env, ...node.env, DATA_DIR: restoredDir },
    });
    expect(restoring.stdout).toMatch(/^Restored \d+ documents and the database into /);
    const copy = rows(restoredDir);
    expect(copy).toHaveLength(REQUESTS);
    const restored = await startApiNode(
      'backup-restored',
      { JOBS_POLL_MS: '100', DATA_DIR: restoredDir },
      { port: node.port },
    );
    const rhttp = request(restored.url);
    const root = readFileSync(join(restoredDir, 'pki', 'dev-root-ca.pem'), 'utf8');

    const completed = copy.filter((r) => r.status === 'completed');
    const open = copy.filter((r) => r.status === 'in-progress');
    expect(completed.length + open.length).toBe(REQUESTS);
    expect(completed.length).toBeGreaterThanOrEqual(BEFORE);
    expect(open.length).toBeGreaterThanOrEqual(AFTER);
    for (const r of completed) {
      const pdf = readFileSync(fileOf(restoredDir, r.signed_file_key!));
      expect(sha256(pdf)).toBe(r.signed_file_key);
      expect(existsSync(fileOf(source, r.signed_file_key!))).toBe(true);
      expect(sha256(readFileSync(fileOf(source, r.signed_file_key!)))).toBe(sha256(pdf));
      expect(runPdfVerify(pdf, [root]).problems).toEqual([]);
    }
    for (const r of copy) {
      const trail = (await rhttp.get(`/api/requests/${r.ref_id}/audit`).set('apikey', key).expect(200)).body;
      expect(trail.chain.intact).toBe(true);
    }

    // What was in progress in the copy is finished on the restored server by the signers who had not signed in it.
    for (const r of open)
      for (const order of pendingParties(restoredDir, r.ref_id)) {
        const p = parties.find((x) => x.refId === r.ref_id && x.order === order)!;
        await signParty(restored.url, p);
      }
    await waitForCompletion(
      rhttp,
      key,
      open.map((r) => r.ref_id),
      restored,
    );
    for (const r of rows(restoredDir)) {
      expect(r.status).toBe('completed');
      expect(runPdfVerify(readFileSync(fileOf(restoredDir, r.signed_file_key!)), [root]).problems).toEqual([]);
    }
  }, 420_000);
});
