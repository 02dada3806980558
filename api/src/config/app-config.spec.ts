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

  it('configures the job runner, e-mail and SMS, with the runner off under NODE_ENV=test', () => {
    const defaults = loadConfig({});
    expect(defaults.jobs).toEqual({
      runner: true,
      pollMs: 1000,
      leaseSeconds: 60,
      maxInterruptions: 50,
      testJobs: false,
    });
    expect(defaults.mail).toEqual({ smtpUrl: null, from: 'e-Sign <no-reply@localhost>' });
    expect(defaults.sms).toEqual({ url: null });
    expect(loadConfig({ NODE_ENV: 'test' }).jobs.runner).toBe(false);
    const set = loadConfig({
      NODE_ENV: 'test',
      JOBS_RUNNER: 'on',
      JOBS_POLL_MS: '250',
      JOBS_LEASE_SECONDS: '5',
      JOBS_MAX_INTERRUPTIONS: '3',
      ESIGN_TEST_JOBS: '1',
      SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465',
      MAIL_FROM: 'Acme Sign <sign@acme.example>',
      SMS_URL: 'https://sms.example.com/send',
    });
    expect(set.jobs).toEqual({ runner: true, pollMs: 250, leaseSeconds: 5, maxInterruptions: 3, testJobs: true });
    expect(set.mail).toEqual({
      smtpUrl: 'smtps://user:p%40ss@mail.example.com:465',
      from: 'Acme Sign <sign@acme.example>',
    });
    expect(set.sms).toEqual({ url: 'https://sms.example.com/send' });
    expect(loadConfig({ JOBS_RUNNER: 'off' }).jobs.runner).toBe(false);
  });

  it('names bad job, e-mail and SMS variables, and refuses the test-only jobs in production', () => {
    let error: unknown;
    try {
      loadConfig({
        JOBS_RUNNER: 'maybe',
        JOBS_POLL_MS: 'fast',
        JOBS_LEASE_SECONDS: '0',
        SMTP_URL: 'http://mail.example.com',
        MAIL_FROM: 'nobody',
        SMS_URL: 'ftp://sms.example.com',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const name of ['JOBS_RUNNER', 'JOBS_POLL_MS', 'JOBS_LEASE_SECONDS', 'SMTP_URL', 'MAIL_FROM', 'SMS_URL']) {
      expect(problems.some((p) => p.startsWith(`${name} `))).toBe(true);
    }
    expect(problems).toHaveLength(6);
    expect(() => loadConfig({ NODE_ENV: 'production', ESIGN_TEST_JOBS: '1' })).toThrow(
      /ESIGN_TEST_JOBS must not be set when NODE_ENV=production/,
    );
    expect(loadConfig({ NODE_ENV: 'production', ESIGN_TEST_JOBS: '0' }).jobs.testJobs).toBe(false);
  });

  it('uses the sandbox ESP unless every ESP variable is set, and names the missing ones', () => {
    expect(loadConfig({}).esp).toEqual({ mode: 'sandbox' });
    const real = loadConfig(
      {
        ESP_URL: 'https://esp.example.in/esign/2.1',
        ASP_ID: 'ASP-ACME',
        ASP_KEY: 'keys/asp.key',
        ASP_CERT: 'keys/asp.crt',
        ESP_CERT: 'keys/esp.crt',
      },
      '/srv/esign',
    );
    expect(real.esp).toEqual({
      mode: 'esp',
      url: 'https://esp.example.in/esign/2.1',
      aspId: 'ASP-ACME',
      aspKeyPath: '/srv/esign/keys/asp.key',
      aspCertPath: '/srv/esign/keys/asp.crt',
      espCertPath: '/srv/esign/keys/esp.crt',
    });
    expect(() => loadConfig({ ESP_URL: 'https://esp.example.in', ASP_ID: 'A' })).toThrow(
      /ASP_KEY, ASP_CERT, ESP_CERT must be set too/,
    );
    expect(() =>
      loadConfig({ ESP_URL: 'http://esp.example.in', ASP_ID: 'A', ASP_KEY: 'k', ASP_CERT: 'c', ESP_CERT: 'e' }),
    ).toThrow(/ESP_URL must be the ESP's https:\/\/ address/);
  });

  it('checks that the absolute session lifetime is not shorter than the idle one', () => {
    expect(() => loadConfig({ SESSION_IDLE_SECONDS: '7200', SESSION_MAX_SECONDS: '3600' })).toThrow(
      /SESSION_MAX_SECONDS/,
    );
  });
});
