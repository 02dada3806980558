import { RowReader } from '../src/database/row-reader';
import { ApiKeyEntity } from '../src/modules/auth/api-key.entity';
import { OrganisationEntity } from '../src/modules/organisations/organisation.entity';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { RequestEntity } from '../src/modules/requests/request.entity';
import { SIGNERS } from './support/requests';
import { sendForSigning } from './support/signing';
import { createOrgWithUser, engine, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

// The hot look-ups read rows through RowReader instead of TypeORM's find: the entities must be the very same (dates,
// booleans, JSON columns, the bigint transformer), on each engine.
describe('RowReader', () => {
  let t: TestApp;
  let refId: number;
  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await signIn(t, 'alice', 'alice-password');
    const key = await orgApiKey(t, 'acme');
    ({ refId } = await sendForSigning(t, key, 'acme', { recipients: [SIGNERS[0], SIGNERS[1]] }, [
      { order: 1, pageNo: [1] },
      { order: 2, pageNo: [1] },
    ]));
  });
  afterAll(() => t.close());

  it('reads each entity as findOneBy and find do', async () => {
    const m = t.db.manager;
    expect(await new RowReader(t.db, RequestEntity, ['refId']).one([refId])).toEqual(
      await m.findOneBy(RequestEntity, { refId }),
    );
    expect(await new RowReader(t.db, OrganisationEntity, ['id']).one(['acme'])).toEqual(
      await m.findOneBy(OrganisationEntity, { id: 'acme' }),
    );
    const parties = await m.find(PartyEntity, { where: { refId }, order: { order: 'ASC' } });
    expect(parties).toHaveLength(2);
    expect(await new RowReader(t.db, PartyEntity, ['refId'], { orderBy: 'order' }).all([refId])).toEqual(parties);
    expect(await new RowReader(t.db, PartyEntity, ['tokenHash']).one([parties[1].tokenHash])).toEqual(parties[1]);
    const keys = await m.find(ApiKeyEntity, { where: { orgId: 'acme' } });
    for (const k of keys) expect(await new RowReader(t.db, ApiKeyEntity, ['keyHash']).one([k.keyHash])).toEqual(k);
  });

  it('answers null, nothing, and only the selected columns', async () => {
    expect(await new RowReader(t.db, RequestEntity, ['refId']).one([1])).toBeNull();
    const byRef = new RowReader(t.db, PartyEntity, ['refId'], { orderBy: 'order', select: ['id', 'order', 'name'] });
    expect(await byRef.anyOf([])).toEqual([]);
    const rows = await byRef.anyOf([refId, 1]);
    expect(rows.map((p) => ({ ...p }))).toEqual([
      { id: expect.any(String), order: 1, name: SIGNERS[0].name },
      { id: expect.any(String), order: 2, name: SIGNERS[1].name },
    ]);
    const listed = await new RowReader(t.db, RequestEntity, [], { select: ['refId', 'filename'] }).select(
      'WHERE org_id = ? AND ref_id = ?',
      ['acme', refId],
    );
    expect(listed.map((r) => ({ ...r }))).toEqual([{ refId, filename: expect.any(String) }]);
  });

  it('on SQLite reads straight from the connection, not through the query runner, when no transaction runs', async () => {
    const spy = jest.spyOn(t.db.manager, 'query');
    try {
      const reader = new RowReader(t.db, RequestEntity, ['refId']);
      expect((await reader.one([refId]))?.refId).toBe(refId);
      expect((await reader.one([refId]))?.refId).toBe(refId);
      expect(spy).toHaveBeenCalledTimes(engine === 'sqlite' ? 0 : 2);
    } finally {
      spy.mockRestore();
    }
  });

  it("waits for another transaction and reads what it committed; inside it, reads the transaction's own writes", async () => {
    const reader = new RowReader(t.db, RequestEntity, ['refId']);
    const before = (await reader.one([refId]))!.filename;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const seen: Record<string, string | undefined> = {};
    const transaction = t.db.manager.transaction(async (m) => {
      await m.update(RequestEntity, { refId }, { filename: 'inside.pdf' });
      seen.withItsManager = (await reader.one([refId], m))?.filename;
      seen.withTheDefaultManager = (await reader.one([refId]))?.filename;
      written();
      await held;
    });
    await wrote;
    let outsideDone = false;
    const outside = reader.one([refId]).then((row) => {
      outsideDone = true;
      return row?.filename;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // SQLite has one connection: a read from outside waits for the transaction; MariaDB reads the committed row.
    expect(outsideDone).toBe(engine === 'mariadb');
    release();
    await transaction;
    expect(seen.withItsManager).toBe('inside.pdf');
    if (engine === 'sqlite') {
      expect(seen.withTheDefaultManager).toBe('inside.pdf');
      expect(await outside).toBe('inside.pdf');
    } else {
      expect(await outside).toBe(before);
    }
    expect((await reader.one([refId]))?.filename).toBe('inside.pdf');
    await t.db.manager.update(RequestEntity, { refId }, { filename: before });
  });
});
