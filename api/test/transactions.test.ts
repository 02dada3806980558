import { AppSecretEntity } from '../src/modules/secrets/app-secret.entity';
import { startTestApp, type TestApp } from './support/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * On SQLite every statement shares one connection; a write made by another request while a transaction is open must
 * not become part of that transaction (and vanish when it rolls back), and two transactions must not interleave.
 */
describe('transactions are isolated from concurrent work (both engines)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const row = (name: string) => ({ name, value: 'v', createdAt: t.clock.now() });
  const names = async () => (await t.db.getRepository(AppSecretEntity).find()).map((r) => r.name).sort();

  it('a write outside a transaction survives the rollback of a transaction open at the same time', async () => {
    const failing = t.db.transaction(async (m) => {
      await m.insert(AppSecretEntity, row('inside'));
      await sleep(100);
      throw new Error('roll back');
    });
    await sleep(20);
    await t.db.getRepository(AppSecretEntity).insert(row('outside'));
    await expect(failing).rejects.toThrow('roll back');
    expect(await names()).toEqual(expect.arrayContaining(['outside']));
    expect(await names()).not.toContain('inside');
  });

  it('two transactions do not see or undo each other', async () => {
    const a = t.db.transaction(async (m) => {
      await m.insert(AppSecretEntity, row('a1'));
      await sleep(50);
      await m.insert(AppSecretEntity, row('a2'));
      throw new Error('a fails');
    });
    const b = t.db.transaction(async (m) => {
      await m.insert(AppSecretEntity, row('b1'));
      await sleep(10);
      await m.insert(AppSecretEntity, row('b2'));
    });
    await expect(a).rejects.toThrow('a fails');
    await b;
    const all = await names();
    expect(all).toEqual(expect.arrayContaining(['b1', 'b2']));
    expect(all).not.toContain('a1');
    expect(all).not.toContain('a2');
  });

  it('a transaction may call code that starts its own without waiting for itself', async () => {
    await t.db.transaction(async (m) => {
      await m.insert(AppSecretEntity, row('outer'));
      await t.db.transaction(async (inner) => inner.insert(AppSecretEntity, row('inner')));
    });
    expect(await names()).toEqual(expect.arrayContaining(['outer', 'inner']));
  });
});
