import { FaultMessages } from '@esign/contract';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/mariadb-server';
import {
  drain,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
  verifyPdf,
  numberedSigner as signer,
} from './support/signing';
import { createOrgWithUser, engine, freshDatabase, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const SIGNERS = 8;

/**
 * A TCP relay to MariaDB that can go down and come back on the same port: to the API, the database server stopped
 * (connections cut, new ones refused) and restarted. The test's MariaDB belongs to the whole suite, so it is not
 * stopped itself.
 */
function relay(target: { host: string; port: number }, port: number) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  return {
    up: () =>
      new Promise<void>((resolve, reject) => {
        if (server) return resolve();
        server = createServer((client) => {
          const upstream = createConnection(target);
          for (const s of [client, upstream]) {
            sockets.add(s);
            s.on('close', () => sockets.delete(s));
            s.on('error', () => s.destroy());
          }
          client.pipe(upstream).pipe(client);
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    down: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        const closing = server;
        server = null;
        if (closing) closing.close(() => resolve());
        else resolve();
      }),
  };
}

/**
 * Issue 24: the database goes away during a signing load. With MariaDB, its connection is cut and refused (a relay
 * stopped and started again); with SQLite, whose file a process holding it open for writing keeps writable (a read-only remount is refused),
 * the disk it is on (a tmpfs of its own) fills up.
 * While it lasts: 503 UNAVAILABLE with the contract's message, never a 500; /health/ready 503; nothing half-written
 * (the tables compared before and after). When it ends, the same signers finish without a restart and every request
 * completes and verifies.
 */
describe('the database going away during a signing load', () => {
  let t: TestApp;
  let key: string;
  let down: () => Promise<void>;
  let up: () => Promise<void>;
  let cleanup: () => Promise<void>;
  const sent: { refId: number; token: string; i: number }[] = [];

  beforeAll(async () => {
    if (engine === 'mariadb') {
      const db = await freshDatabase();
      const url = new URL(db.env.DATABASE_URL);
      const port = await freePort();
      const link = relay({ host: url.hostname, port: Number(url.port) }, port);
      await link.up();
      url.port = String(port);
      t = await startTestApp({ DATABASE_URL: url.toString() });
      ({ down, up } = link);
      cleanup = async () => {
        await link.down();
        await db.drop();
      };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'esign-outage-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', dir]);
      t = await startTestApp({ DATA_DIR: dir });
      // A read-only remount is refused while SQLite holds its file open for writing: the disk fills up instead.
      const filler = join(dir, 'filler');
      down = async () => {
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'pipe' });
        } catch {
          // dd stops at ENOSPC: that is the point
        }
      };
      up = async () => rmSync(filler, { force: true });
      cleanup = async () => {
        execFileSync('umount', ['-l', dir]);
        rmSync(dir, { recursive: true, force: true });
      };
    }
    await createOrgWithUser(t, 'acme');
    key = await orgApiKey(t, 'acme');
    for (let i = 1; i <= SIGNERS; i++) {
      const s = await sendForSigning(
        t,
        key,
        'acme',
        { recipients: [{ ...signer(i), observer: false, signature_type: 'e-Signature' }], otpRequired: false },
        [{ order: 1, pageNo: [1] }],
      );
      sent.push({ refId: s.refId, token: s.tokens[1], i });
    }
  });
  afterAll(async () => {
    await up().catch(() => undefined);
    await t.close().catch(() => undefined);
    await cleanup();
  });

  it('answers 503 while it lasts, keeps nothing half, and the signers finish after', async () => {
    const snapshot = async () => ({
      requests: await t.db.query('SELECT ref_id, status, signed_file_key FROM requests ORDER BY ref_id'),
      parties: await t.db.query('SELECT ref_id, status, opened_at, signature_key FROM parties ORDER BY ref_id'),
      audit: await t.db.query('SELECT id, hash FROM audit_events ORDER BY id'),
    });
    const before = await snapshot();
    expect(before.parties).toHaveLength(SIGNERS);
    await down();
    const statuses: number[] = [];
    try {
      // The signers open their links and start at once, as a load does.
      const answers = await Promise.all(
        sent.map((s) =>
          t.http
            .post(`/v1/signer_details/acme/${s.refId}/1`)
            .set('x-sign-token', s.token)
            .send({ status: 'opened', userAgent: { OS: 'Android 14', Browser: 'Chrome 131' } }),
        ),
      );
      for (const res of answers) {
        statuses.push(res.status);
        if (res.status === 503)
          expect([
            FaultMessages.databaseUnavailable,
            FaultMessages.databaseReadOnly,
            FaultMessages.storageReadOnly,
          ]).toContain(res.body.message);
      }
      expect((await t.http.get('/health/ready')).status).toBe(503);
    } finally {
      await up();
    }
    expect(statuses.filter((s) => s !== 503 && s !== 200)).toEqual([]);
    const after = await snapshot();
    if (engine === 'mariadb') {
      // No database at all: every call is refused and nothing moved.
      expect(statuses.every((s) => s === 503)).toBe(true);
      expect(after).toEqual(before);
    } else {
      // A full disk: SQLite still writes into the room its WAL file already has, so some calls go through whole;
      // those refused left their party as it was.
      expect(statuses).toContain(503);
      const partyOf = (rows: { ref_id: unknown }[], refId: number) => rows.find((r) => Number(r.ref_id) === refId);
      sent.forEach((s, i) => {
        if (statuses[i] === 503) expect(partyOf(after.parties, s.refId)).toEqual(partyOf(before.parties, s.refId));
      });
      expect(after.requests).toEqual(before.requests);
    }

    // Back: the same signers finish, at once, without a restart.
    for (const s of sent)
      await signAs(t, { orgId: 'acme', refId: s.refId, order: 1, token: s.token, email: signer(s.i).email });
    await drain(t);
    expect((await t.http.get('/health/ready')).status).toBe(200);
    for (const s of sent) {
      expect((await requestRow(t, s.refId)).status).toBe('completed');
      const trail = (await t.http.get(`/api/requests/${s.refId}/audit`).set('apikey', key).expect(200)).body;
      expect(trail.chain.intact).toBe(true);
    }
    // The whole answer, so a failure says which check refused.
    expect(await verifyPdf(t, await signedPdf(t, sent[0].refId))).toMatchObject({ ok: true });
  }, 180_000);
});
