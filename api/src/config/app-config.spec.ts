import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('has working defaults: port 3000, SQLite under data/, seeding outside production', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.database).toEqual({ engine: 'sqlite', file: expect.stringMatching(/\/data\/esign\.sqlite$/) });
    expect(config.session).toEqual({ idleSeconds: 3600, maxSeconds: 43_200 });
    expect(config.seedDemo).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).seedDemo).toBe(false);
  });

  it('picks MySQL/MariaDB from DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://u:p@db:3306/esign' }).database).toEqual({
      engine: 'mysql',
      url: 'mysql://u:p@db:3306/esign',
      flavour: 'mysql',
    });
    expect(loadConfig({ DATABASE_URL: 'mariadb://u:p@db/esign' }).database).toMatchObject({
      flavour: 'mariadb',
      url: 'mysql://u:p@db/esign',
    });
  });

  it('resolves a relative DATA_DIR from where the command was typed', () => {
    expect(loadConfig({ DATA_DIR: 'store', INIT_CWD: '/srv/esign' }).dataDir).toBe('/srv/esign/store');
    expect(loadConfig({ DATA_DIR: '/var/lib/esign' }).dataDir).toBe('/var/lib/esign');
  });

  it('fails naming every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'postgres://x/y',
        LOG_LEVEL: 'loud',
        NODE_ENV: 'staging',
        PUBLIC_URL: 'localhost',
        SESSION_IDLE_SECONDS: '5',
        TRUSTED_PROXIES: 'not an ip',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'LOG_LEVEL',
      'NODE_ENV',
      'PUBLIC_URL',
      'SESSION_IDLE_SECONDS',
      'TRUSTED_PROXIES',
    ]) {
      expect(problems.some((p) => p.startsWith(`${name} `))).toBe(true);
    }
    expect(problems).toHaveLength(7);
    expect((error as Error).message).toContain('PORT must be an integer (got "eighty")');
  });

  it('checks that the absolute session lifetime is not shorter than the idle one', () => {
    expect(() => loadConfig({ SESSION_IDLE_SECONDS: '7200', SESSION_MAX_SECONDS: '3600' })).toThrow(
      /SESSION_MAX_SECONDS/,
    );
  });
});
