import { BackupMessages } from '@esign/contract';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/app-config';
import { manage, type ManageIo } from '../src/manage';
import { verifyBackup } from '../src/modules/backup/backup-archive';
import { BackupService } from '../src/modules/backup/backup.service';
import {
  drain,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
  verifyPdf,
  numberedRecipient as signer,
} from './support/signing';
import { createOrgWithUser, engine, orgApiKey, startTestApp, type TestApp } from './support/test-app';

function io(): ManageIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), readStdin: async () => '' };
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Issue 24's backups: `manage backup FILE` beside the running server (SQLite's online backup), `manage restore FILE`
 * into a fresh DATA_DIR, where a server starts with every signed PDF byte for byte, every audit chain intact and the
 * request that was in progress finished; an archive with one byte flipped is refused and nothing is written. With
 * MariaDB the archive holds the documents and says the database is the operator's own dump's.
 */
describe('backup and restore', () => {
  let t: TestApp;
  let key: string;
  let scratch: string;
  let archive: string;
  let completed: number;
  let open: { refId: number; tokens: Record<number, string> };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'esign-backup-'));
    archive = join(scratch, 'one.tar');
    t = await startTestApp();
    await createOrgWithUser(t, 'acme');
    key = await orgApiKey(t, 'acme');
    const done = await sendForSigning(t, key, 'acme', { recipients: [signer(1)], otpRequired: false }, [
      { order: 1, pageNo: [1] },
    ]);
    await signAs(t, { orgId: 'acme', refId: done.refId, order: 1, token: done.tokens[1], email: signer(1).email });
    await drain(t);
    completed = done.refId;
    expect((await requestRow(t, completed)).status).toBe('completed');
    open = await sendForSigning(t, key, 'acme', { recipients: [signer(2), signer(3)], otpRequired: false }, [
      { order: 1, pageNo: [1] },
      { order: 2, pageNo: [1] },
    ]);
    await signAs(t, { orgId: 'acme', refId: open.refId, order: 1, token: open.tokens[1], email: signer(2).email });
    await drain(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('writes one archive while the server runs, saying what it holds and what it does not', async () => {
    const out = io();
    expect(await manage(['backup', archive], t.env, out)).toBe(0);
    expect(out.errors).toEqual([]);
    expect(out.lines[0]).toMatch(/^Backup written to .*one\.tar \(\d+ documents, [\d.]+ MB\)\.$/);
    const manifest = await verifyBackup(archive);
    const paths = manifest.parts.map((p) => p.path);
    if (engine === 'sqlite') {
      expect(paths).toContain('database/esign.sqlite');
      expect(manifest.not_covered).toEqual([]);
      expect(out.lines[1]).toContain(BackupMessages.coversSqlite);
    } else {
      expect(paths).not.toContain('database/esign.sqlite');
      expect(manifest.not_covered).toEqual([BackupMessages.notCoveredMysql]);
      expect(out.lines).toContain(`Not in it (your own backups must hold it): ${BackupMessages.notCoveredMysql}.`);
    }
    // Every document the database refers to is in it (not the intermediate versions it no longer names), each under
    // its own SHA-256.
    for (const refId of [completed, open.refId]) {
      const row = await requestRow(t, refId);
      for (const k of [row.fileKey, row.signedFileKey!])
        expect(paths).toContain(`files/${k.slice(0, 2)}/${k.slice(2, 4)}/${k}`);
    }
    for (const part of manifest.parts.filter((p) => p.path.startsWith('files/')))
      expect(part.sha256).toBe(part.path.split('/').pop());
    expect(out.lines.at(-1)).toBe(BackupMessages.secret);
  });

  it('refuses an archive with one byte flipped, or a manifest that does not match, and writes nothing', async () => {
    const bytes = readFileSync(archive);
    const flipped = join(scratch, 'flipped.tar');
    const copy = Buffer.from(bytes);
    copy[Math.floor(copy.length / 2)] ^= 0x01;
    writeFileSync(flipped, copy);
    const target = join(scratch, 'never');
    let out = io();
    expect(await manage(['restore', flipped], { ...t.env, DATA_DIR: target }, out)).toBe(1);
    expect(out.errors).toEqual([BackupMessages.checksumMismatch.replace('{file}', flipped)]);
    expect(existsSync(target)).toBe(false);

    // A part changed and the trailer rewritten to match: the manifest still catches it.
    const tar = Buffer.from(bytes.subarray(0, bytes.lastIndexOf('\nesign-backup-sha256 ')));
    const firstPart = 512 + 10; // inside the first entry's data, after its header
    tar[firstPart] ^= 0x01;
    const forged = join(scratch, 'forged.tar');
    writeFileSync(forged, Buffer.concat([tar, Buffer.from(`\nesign-backup-sha256 ${sha256(tar)}\n`, 'latin1')]));
    out = io();
    expect(await manage(['restore', forged], { ...t.env, DATA_DIR: target }, out)).toBe(1);
    expect(out.errors[0]).toMatch(/^The backup does not match its manifest \(.+ does not match its SHA-256\)/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(scratch).filter((n) => n.includes('restoring'))).toEqual([]);

    // Not a backup at all.
    out = io();
    expect(await manage(['restore', join(scratch, 'missing.tar')], { ...t.env, DATA_DIR: target }, out)).toBe(1);
    expect(out.errors[0]).toMatch(/^This is not an e-Sign backup/);
  });

  it('refuses to restore over a DATA_DIR that is not empty', async () => {
    const out = io();
    expect(await manage(['restore', archive], t.env, out)).toBe(1);
    expect(out.errors).toEqual([BackupMessages.notFresh.replace('{dir}', t.config.dataDir)]);
  });

  it('restores into a fresh DATA_DIR where the server starts, the PDFs and chains verify, and work goes on', async () => {
    const target = join(scratch, 'restored');
    const env = { ...t.env, DATA_DIR: target };
    const out = io();
    expect(await manage(['restore', archive], env, out)).toBe(0);
    expect(out.lines[0]).toMatch(
      engine === 'sqlite' ? /^Restored \d+ documents and the database into / : /^Restored \d+ documents into /,
    );
    const original = await signedPdf(t, completed);
    const restoredFile = join(target, 'files', sha256(original).slice(0, 2), sha256(original).slice(2, 4));
    expect(sha256(readFileSync(join(restoredFile, sha256(original))))).toBe(sha256(original));
    if (engine !== 'sqlite') return; // the database is the operator's dump: the running one is not a restore

    await t.close();
    // The same PUBLIC_URL and port: the certificates' OCSP and CRL addresses, which pdfsig asks, point there.
    const port = Number(new URL(t.env.PUBLIC_URL).port);
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const { app } = await createApp(config, { clock: t.clock });
    await app.init();
    await app.listen(port, '127.0.0.1');
    const restored = { ...t, app, http: request(app.getHttpServer()), config, db: app.get(DataSource) } as TestApp;
    try {
      t = restored;
      expect(sha256(await signedPdf(t, completed))).toBe(sha256(original));
      expect((await verifyPdf(t, await signedPdf(t, completed))).problems).toEqual([]);
      for (const refId of [completed, open.refId]) {
        const trail = await t.http.get(`/api/requests/${refId}/audit`).set('apikey', key).expect(200);
        expect(trail.body.chain.intact).toBe(true);
      }
      // The request that was in progress is finished on the restored installation.
      await signAs(t, { orgId: 'acme', refId: open.refId, order: 2, token: open.tokens[2], email: signer(3).email });
      await drain(t);
      expect((await requestRow(t, open.refId)).status).toBe('completed');
      expect((await verifyPdf(t, await signedPdf(t, open.refId))).problems).toEqual([]);
      const trail = await t.http.get(`/api/requests/${open.refId}/audit`).set('apikey', key).expect(200);
      expect(trail.body.chain.intact).toBe(true);
    } finally {
      // afterAll closes t (now the restored app) and removes scratch, which holds its DATA_DIR.
      t = { ...restored, close: async () => app.close() };
    }
  });

  it('takes scheduled backups into BACKUP_DIR when due and keeps the latest BACKUP_KEEP', async () => {
    const dir = join(scratch, 'scheduled');
    const s = await startTestApp({ BACKUP_DIR: dir, BACKUP_EVERY_HOURS: '6', BACKUP_KEEP: '2' });
    try {
      const backups = s.app.get(BackupService);
      for (let i = 0; i < 4; i++) {
        const next = await backups.runScheduled();
        expect(next.getTime()).toBe(s.clock.now().getTime() + 6 * 3_600_000);
        // Not due again before its time.
        s.clock.advance(3600);
        expect((await backups.runScheduled()).getTime()).toBe(next.getTime());
        expect((await backups.archives()).length).toBe(Math.min(i + 1, 2));
        s.clock.advance(5 * 3600);
      }
      const names = readdirSync(dir).sort();
      expect(names).toHaveLength(2);
      for (const name of names) {
        expect(name).toMatch(/^esign-backup-\d{8}T\d{6}Z\.tar$/);
        await verifyBackup(join(dir, name));
      }
    } finally {
      await s.close();
    }
  });
});
