import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { dataSourceOptions } from '../src/database/data-source';
import { MYSQL_MIGRATIONS } from '../src/database/migrations/mysql';
import { SQLITE_MIGRATIONS } from '../src/database/migrations/sqlite';
import { OtpService } from '../src/modules/otp/otp.service';
import { AppSecretService } from '../src/modules/secrets/app-secret.service';
import { engine, FakeClock, freshDatabase } from './support/test-app';

/**
 * The OneOtpService migration moves the OTPs of the DSC agent's and /list's logins into `otps` (purpose, subject):
 * a code sent before the upgrade still verifies after it, a used one stays used, the agents' tokens keep working,
 * and coming down puts the rows back where they were.
 */
describe(`the one-OTP-service migration on ${engine}`, () => {
  const migrations = engine === 'sqlite' ? SQLITE_MIGRATIONS : MYSQL_MIGRATIONS;
  // The migration under test, wherever later ones put it; the databases below stop at it.
  const index = migrations.findIndex((m) => /^OneOtpService\d+$/.test(m.name));
  const upTo = migrations.slice(0, index + 1);
  const clock = new FakeClock();
  const at = (offsetSeconds: number) =>
    new Date(clock.now().getTime() + offsetSeconds * 1000).toISOString().replace('T', ' ').replace('Z', '');
  const keys = { 'dsc-agent-otp': randomBytes(32), 'recipient-list-otp': randomBytes(32), otp: randomBytes(32) };
  const hash = (key: keyof typeof keys, id: string, code: string) =>
    createHmac('sha256', keys[key]).update(`${id}:${code}`).digest('hex');

  it('copies the logins’ OTPs into otps, keeps them checkable, and comes down again', async () => {
    expect(index).toBeGreaterThan(0);
    const database = await freshDatabase();
    const config = loadConfig({ NODE_ENV: 'test', ...database.env });
    const before = new DataSource({ ...dataSourceOptions(config), migrations: upTo.slice(0, -1) });
    const ids = {
      party: randomUUID(),
      signing: randomUUID(),
      dscPending: randomUUID(),
      dscUsed: randomUUID(),
      listPending: randomUUID(),
      listUsed: randomUUID(),
    };
    try {
      await before.initialize();
      const q = (sql: string, params: unknown[]) => before.query(sql, params);
      for (const [name, value] of Object.entries(keys))
        await q('INSERT INTO app_secrets (name, value, created_at) VALUES (?, ?, ?)', [
          name,
          value.toString('base64url'),
          at(-3600),
        ]);
      await q(
        'INSERT INTO otps (id, party_id, org_id, ref_id, code_hash, expires_at, attempts, verified_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [ids.signing, ids.party, 'acme', 1234567890, hash('otp', ids.signing, '111111'), at(540), 1, null, at(-60)],
      );
      const dsc =
        'INSERT INTO dsc_agent_sessions (id, identifier, otp_hash, otp_attempts, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
      await q(dsc, [
        ids.dscPending,
        'asha@example.in',
        hash('dsc-agent-otp', ids.dscPending, '222222'),
        2,
        null,
        at(-60),
        at(540),
      ]);
      await q(dsc, [
        ids.dscUsed,
        '+919876543210',
        hash('dsc-agent-otp', ids.dscUsed, '333333'),
        1,
        'a'.repeat(64),
        at(-7200),
        at(36_000),
      ]);
      const list =
        'INSERT INTO recipient_list_logins (id, identifier, ip, otp_hash, otp_attempts, otp_expires_at, token_hash, token_expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
      await q(list, [
        ids.listPending,
        'asha@example.in',
        '127.0.0.1',
        hash('recipient-list-otp', ids.listPending, '444444'),
        0,
        at(570),
        null,
        null,
        at(-30),
      ]);
      await q(list, [
        ids.listUsed,
        'vikram@example.in',
        '127.0.0.1',
        hash('recipient-list-otp', ids.listUsed, '555555'),
        1,
        at(-1200),
        'b'.repeat(64),
        at(-300),
        at(-1800),
      ]);
      await before.destroy();

      const ds = new DataSource({ ...dataSourceOptions(config), migrations: upTo });
      await ds.initialize();
      try {
        const rows = (await ds.query(
          'SELECT id, purpose, subject, party_id, attempts, verified_at FROM otps ORDER BY created_at',
        )) as { id: string; purpose: string; subject: string; party_id: string | null; attempts: number }[];
        const byId = new Map(rows.map((r) => [r.id, r]));
        expect(rows).toHaveLength(5);
        expect(byId.get(ids.signing)).toMatchObject({ purpose: 'signing', subject: ids.party, party_id: ids.party });
        expect(byId.get(ids.dscPending)).toMatchObject({ purpose: 'dsc-login', subject: 'asha@example.in' });
        expect(byId.get(ids.dscUsed)).toMatchObject({ purpose: 'dsc-login', subject: '+919876543210' });
        expect(byId.get(ids.listPending)).toMatchObject({ purpose: 'recipient-list', subject: 'asha@example.in' });
        expect(Number(byId.get(ids.dscPending)!.attempts)).toBe(2);
        // The agent's session stays, without its OTP; the login that never verified is now only an OTP.
        const sessions = (await ds.query('SELECT id FROM dsc_agent_sessions')) as { id: string }[];
        expect(sessions.map((s) => s.id)).toEqual([ids.dscUsed]);
        expect(((await ds.query('SELECT id FROM recipient_list_logins')) as unknown[]).length).toBe(2);

        // Down: the logins get their OTP columns back (a verified DSC login keeps its session), and up again.
        await ds.undoLastMigration();
        const back = (await ds.query('SELECT id, otp_hash, token_hash FROM dsc_agent_sessions ORDER BY id')) as {
          id: string;
          otp_hash: string;
          token_hash: string | null;
        }[];
        expect(back.map((s) => s.id).sort()).toEqual([ids.dscPending, ids.dscUsed].sort());
        expect(back.find((s) => s.id === ids.dscUsed)?.otp_hash).toBe(hash('dsc-agent-otp', ids.dscUsed, '333333'));
        const logins = (await ds.query('SELECT id, otp_hash FROM recipient_list_logins')) as { otp_hash: string }[];
        expect(logins).toHaveLength(2);
        expect(((await ds.query('SELECT id FROM otps')) as unknown[]).length).toBe(1);
        await ds.runMigrations();

        // Codes sent before the upgrade verify after it, with the attempts they had; used ones stay used.
        const otps = new OtpService(ds, clock, new AppSecretService(ds, clock));
        const ok = async () => 'ok';
        expect(
          await otps.verify('signing', ids.signing, '111111', { subject: ids.party, onVerified: ok }),
        ).toMatchObject({ outcome: 'verified', attempts: 2 });
        expect(await otps.verify('dsc-login', ids.dscPending, '222222', { onVerified: ok })).toMatchObject({
          outcome: 'verified',
          attempts: 3,
        });
        expect(await otps.verify('dsc-login', ids.dscUsed, '333333', { onVerified: ok })).toMatchObject({
          outcome: 'used',
        });
        expect(await otps.verify('recipient-list', ids.listPending, '444444', { onVerified: ok })).toMatchObject({
          outcome: 'verified',
        });
        expect(await otps.verify('recipient-list', ids.listUsed, '555555', { onVerified: ok })).toMatchObject({
          outcome: 'used',
        });
      } finally {
        await ds.destroy();
      }
    } finally {
      if (before.isInitialized) await before.destroy();
      await database.drop();
    }
  });
});
