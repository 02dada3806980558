import { createDataSource } from '../src/database/data-source';
import { loadConfig } from '../src/config/app-config';
import { engine, freshDatabase } from './support/test-app';

describe(`migrations on ${engine}`, () => {
  it('run up from an empty database, match the entities exactly, and come down and up again', async () => {
    const database = await freshDatabase();
    const config = loadConfig({ NODE_ENV: 'test', ...database.env });
    const ds = createDataSource(config);
    try {
      await ds.initialize(); // migrationsRun: true
      const applied: { name: string }[] = await ds.query('SELECT name FROM migrations ORDER BY id');
      expect(applied.length).toBeGreaterThan(0);
      const tables = (
        await ds.createQueryRunner().getTables(['organisations', 'users', 'api_keys', 'login_failures'])
      ).map((t) => t.name.split('.').pop());
      expect(tables.sort()).toEqual(['api_keys', 'login_failures', 'organisations', 'users']);

      // Nothing is left for synchronize to do: the migrations are exactly the entities.
      const drift = await ds.driver.createSchemaBuilder().log();
      expect(drift.upQueries.map((q) => q.query)).toEqual([]);

      for (let i = 0; i < applied.length; i++) await ds.undoLastMigration();
      expect(await ds.createQueryRunner().hasTable('organisations')).toBe(false);
      await ds.runMigrations();
      expect((await ds.driver.createSchemaBuilder().log()).upQueries).toEqual([]);
    } finally {
      if (ds.isInitialized) await ds.destroy();
      await database.drop();
    }
  });

  it('never synchronizes the schema by itself', () => {
    const options = createDataSource(loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/unused' }), true).options;
    expect(options.synchronize).toBe(false);
    expect(options.migrationsRun).toBe(true);
  });
});
