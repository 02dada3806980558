import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { runPdfVerify } from '../support/pdf-verify';
import { startApiNode, stopAll, type ApiNode } from '../scale-out/cluster';
import { demoKey, sendRequests } from './requests';
import { signParty } from './signers';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Issue 24's watchdog against a real crash: the built server (SQLite) kills itself (SIGKILL, a test fault point) at
 * the moment every signature of a request is applied and the seal is next, and a job interrupted once is failed
 * (JOBS_MAX_INTERRUPTIONS=1), so after the restart nothing is left to seal it: a request with all signatures and no
 * seal. The watchdog, every 5 s here, finds it and queues the seal job; the request completes without anyone running
 * a command, its signed PDF verifies and its audit chain is intact. Since main's seals resume where they stopped (a job
 * that made progress starts its interruptions afresh), the seal job itself usually finishes it after the restart: the
 * test then shows the request is completed through the job, with no command, and the watchdog's own path is shown by
 * watchdog.test.ts (a seal failed past its attempts).
 */
describe('reliability: the watchdog completes a request whose seal died with its process', () => {
  let node: ApiNode;
  afterAll(() => stopAll());

  it('completes it after the kill and the restart, through the seal job and its audit events', async () => {
    node = await startApiNode('watchdog', {
      JOBS_POLL_MS: '100',
      JOBS_LEASE_SECONDS: '3',
      JOBS_MAX_INTERRUPTIONS: '1',
      ESIGN_TEST_FAULTS: 'seal.before-completion=kill*1',
      WATCHDOG_INTERVAL_SECONDS: '5',
    });
    const http = request(node.url);
    const key = await demoKey(http);
    const parties = await sendRequests(node.url, key, 1, 2);
    const refId = parties[0].refId;
    const pid = node.pid;
    for (const p of parties) await signParty(node.url, p);

    // The seal job applies both signatures, then the process dies where the seal would start.
    const deadline = Date.now() + 60_000;
    while (alive(pid)) {
      if (Date.now() > deadline) throw new Error(`the server did not die at the fault point\n${node.logTail(40)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const dataDir = node.env.DATA_DIR;
    const before = new Database(join(dataDir, 'esign.sqlite'), { readonly: true });
    try {
      const req = before.prepare('SELECT status, signers_done AS done FROM requests WHERE ref_id = ?').get(refId);
      expect(req).toEqual({ status: 'in-progress', done: 2 });
    } finally {
      before.close();
    }

    await node.restart();
    const completed = Date.now() + 90_000;
    for (;;) {
      const res = await http.get(`/api/requests/${refId}`).set('apikey', key);
      if (res.status === 200 && res.body.request_status === 'completed') break;
      if (Date.now() > completed) throw new Error(`the request was not completed\n${node.logTail(60)}`);
      await new Promise((r) => setTimeout(r, 500));
    }

    const trail = (await http.get(`/api/requests/${refId}/audit`).set('apikey', key).expect(200)).body;
    expect(trail.chain.intact).toBe(true);
    const types = trail.events.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'party.signed')).toHaveLength(2);
    expect(types.at(-1)).toBe('request.completed');
    // Since seals resume where they stopped (a job that made progress starts its interruptions afresh), the seal job
    // itself may finish it after the restart; otherwise the watchdog queued it again. Either way through the job.
    if (types.includes('request.watchdog_retry'))
      expect(trail.events.find((e: { type: string }) => e.type === 'request.watchdog_retry').actor).toBe('watchdog');

    const db = new Database(join(dataDir, 'esign.sqlite'), { readonly: true });
    try {
      // The seal job that died was failed at the restart (its one interruption); the watchdog's job completed it.
      const seals = db
        .prepare("SELECT status, last_error AS error FROM jobs WHERE type = 'request.seal' ORDER BY id")
        .all() as { status: string; error: string | null }[];
      if (types.includes('request.watchdog_retry'))
        expect(seals.at(0)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^interrupted 1\/1/) });
      expect(seals.at(-1)).toMatchObject({ status: 'done' });
      const { key: signedKey } = db
        .prepare('SELECT signed_file_key AS key FROM requests WHERE ref_id = ?')
        .get(refId) as {
        key: string;
      };
      const pdf = readFileSync(join(dataDir, 'files', signedKey.slice(0, 2), signedKey.slice(2, 4), signedKey));
      const root = readFileSync(join(dataDir, 'pki', 'dev-root-ca.pem'), 'utf8');
      const verified = runPdfVerify(pdf, [root]);
      expect(verified.problems).toEqual([]);
      expect(verified.signatures.every((s) => s.valid && s.trusted)).toBe(true);
      expect(verified.signatures).toHaveLength(3);
    } finally {
      db.close();
    }
  }, 300_000);
});
