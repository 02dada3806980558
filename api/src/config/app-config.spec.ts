import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseTsaUrls } from './app-config';

describe('loadConfig', () => {
  it('has working defaults: port 3000, SQLite under data/, seeding outside production', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.database).toEqual({ engine: 'sqlite', file: expect.stringMatching(/\/data\/esign\.sqlite$/) });
    expect(config.session).toEqual({ idleSeconds: 3600, maxSeconds: 43_200 });
    expect(config.seedDemo).toBe(true);
    expect(config.tsa).toEqual({ mode: 'built-in' });
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_DEV_TSA: 'true' }).seedDemo).toBe(false);
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
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_DEV_TSA: 'true', ESIGN_TEST_JOBS: '0' }).jobs.testJobs).toBe(
      false,
    );
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

  it('reads TSA_URLS in order, with the Basic credentials apart from the addresses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-config-'));
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'tsa-roots.pem'), '-----BEGIN CERTIFICATE-----\nMII=\n-----END CERTIFICATE-----\n');
    const config = loadConfig(
      {
        TSA_URLS:
          ' https://alice:s%40cr%2Ct@tsa.example.com/tsr , http://127.0.0.1:8318/,https://backup.example.in:8443/ts?profile=1 ',
        TSA_TIMEOUT_MS: '2500',
        TSA_POLICY: '1.3.6.1.4.1.4146.2.3',
        TSA_CA_FILE: 'pki/tsa-roots.pem',
      },
      dir,
    );
    expect(config.tsa).toEqual({
      mode: 'remote',
      endpoints: [
        {
          url: 'https://tsa.example.com/tsr',
          authorization: `Basic ${Buffer.from('alice:s@cr,t').toString('base64')}`,
        },
        { url: 'http://127.0.0.1:8318/', authorization: null },
        { url: 'https://backup.example.in:8443/ts?profile=1', authorization: null },
      ],
      timeoutMs: 2500,
      policy: '1.3.6.1.4.1.4146.2.3',
      caFile: join(dir, 'pki', 'tsa-roots.pem'),
    });
    expect(loadConfig({ TSA_URLS: 'http://tsa.example.com' }).tsa).toEqual({
      mode: 'remote',
      endpoints: [{ url: 'http://tsa.example.com/', authorization: null }],
      timeoutMs: 5000,
      policy: null,
      caFile: null,
    });
    // A user without a password is still Basic credentials; loopback may take them over http.
    expect(parseTsaUrls('http://bob@localhost:99/tsr').endpoints).toEqual([
      { url: 'http://localhost:99/tsr', authorization: `Basic ${Buffer.from('bob:').toString('base64')}` },
    ]);
  });

  it('names each bad TSA_URLS entry without repeating any credential', () => {
    let error: unknown;
    try {
      loadConfig({
        TSA_URLS: [
          'https://tsa.example.com/tsr',
          'ftp://usr1x:hunter2@tsa.example.com/x',
          'https://usr2x:p9q,zzw@tsa.example.com/tsr',
          'not a url',
          '',
          'https://tsa.example.com/tsr#frag',
          'http://usr3x:clear-text-secret@tsa.example.com/tsr',
          'https://usr4x:%zq@tsa.example.com/',
        ].join(','),
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'TSA_URLS entry 2 must be an http:// or https:// URL (got "ftp://***@tsa.example.com/x")',
      expect.stringMatching(/^TSA_URLS entry 3 must be an http\(s\) URL .*\(got "https:\/\/\*\*\*"\)$/),
      expect.stringMatching(/^TSA_URLS entry 4 must be an http\(s\) URL .*\(got "\*\*\*@tsa.example.com\/tsr"\)$/),
      expect.stringMatching(/^TSA_URLS entry 5 must be an http\(s\) URL .*\(got "not a url"\)$/),
      expect.stringMatching(/^TSA_URLS entry 6 must be an http\(s\) URL .*\(got ""\)$/),
      'TSA_URLS entry 7 must not have a #fragment (got "https://tsa.example.com/tsr#frag")',
      'TSA_URLS entry 8 sends its credentials in clear: use https:// (http:// with credentials only on loopback) (got "http://***@tsa.example.com/tsr")',
      'TSA_URLS entry 9 has credentials that are not valid percent-encoding (got "https://***@tsa.example.com/")',
    ]);
    for (const secret of ['usr1x', 'hunter2', 'usr2x', 'p9q', 'zzw', 'usr3x', 'clear-text-secret', 'usr4x', '%zq'])
      expect((error as Error).message).not.toContain(secret);
  });

  it('validates the timeout, policy, CA file and ALLOW_DEV_TSA, and wants TSA_URLS for the TSA-only ones', () => {
    let error: unknown;
    try {
      loadConfig({
        TSA_URLS: 'https://tsa.example.com/tsr',
        TSA_TIMEOUT_MS: '50',
        TSA_POLICY: 'policy one',
        ALLOW_DEV_TSA: 'yes',
      });
    } catch (err) {
      error = err;
    }
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems).toContain('TSA_TIMEOUT_MS must not be less than 100 (got "50")');
    expect(problems).toContain('TSA_POLICY must be an object identifier (1.2.3.4.1) (got "policy one")');
    expect(problems).toContain('ALLOW_DEV_TSA must be true or false (got "yes")');
    expect(() => loadConfig({ TSA_URLS: 'https://t.example', TSA_CA_FILE: '/nonexistent/roots.pem' })).toThrow(
      'TSA_CA_FILE cannot be read (ENOENT) (got "/nonexistent/roots.pem")',
    );
    const dir = mkdtempSync(join(tmpdir(), 'esign-config-'));
    writeFileSync(join(dir, 'empty.pem'), 'no certificate here');
    expect(() => loadConfig({ TSA_URLS: 'https://t.example', TSA_CA_FILE: join(dir, 'empty.pem') })).toThrow(
      /TSA_CA_FILE holds no PEM certificate/,
    );
    expect(() => loadConfig({ TSA_TIMEOUT_MS: '60001', TSA_URLS: 'https://t.example' })).toThrow(
      /TSA_TIMEOUT_MS must not be greater than 60000/,
    );
    expect(() => loadConfig({ TSA_TIMEOUT_MS: '3000', TSA_POLICY: '1.2.3', TSA_CA_FILE: 'ca.pem' })).toThrow(
      'TSA_TIMEOUT_MS, TSA_POLICY, TSA_CA_FILE only configure the timestamp authorities of TSA_URLS, which is not set',
    );
  });

  it('refuses to start in production with the development TSA unless ALLOW_DEV_TSA=true', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /TSA_URLS must be set when NODE_ENV=production: .*development TSA.*set ALLOW_DEV_TSA=true to start with it anyway/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', ALLOW_DEV_TSA: 'false' })).toThrow(/ALLOW_DEV_TSA=true/);
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_DEV_TSA: 'true' }).tsa).toEqual({ mode: 'built-in' });
    expect(loadConfig({ NODE_ENV: 'production', TSA_URLS: 'https://tsa.example.com/tsr' }).tsa.mode).toBe('remote');
    // Outside production the development TSA needs nothing.
    expect(loadConfig({ NODE_ENV: 'development' }).tsa).toEqual({ mode: 'built-in' });
  });

  it('checks that the absolute session lifetime is not shorter than the idle one', () => {
    expect(() => loadConfig({ SESSION_IDLE_SECONDS: '7200', SESSION_MAX_SECONDS: '3600' })).toThrow(
      /SESSION_MAX_SECONDS/,
    );
  });

  it('configures scheduled backups only with BACKUP_DIR, outside DATA_DIR, with something to back up', () => {
    expect(loadConfig({}).backup).toBeNull();
    expect(loadConfig({ BACKUP_DIR: '/srv/backups', DATA_DIR: '/srv/esign' }).backup).toEqual({
      dir: '/srv/backups',
      everyHours: 24,
      keep: 7,
    });
    const set = { BACKUP_DIR: '/srv/backups', BACKUP_EVERY_HOURS: '6', BACKUP_KEEP: '3', DATA_DIR: '/srv/esign' };
    expect(loadConfig(set).backup).toEqual({ dir: '/srv/backups', everyHours: 6, keep: 3 });
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ BACKUP_KEEP: '3' })).toEqual([
      'BACKUP_KEEP only configure the scheduled backups of BACKUP_DIR, which is not set',
    ]);
    expect(problems({ ...set, BACKUP_EVERY_HOURS: '0', BACKUP_KEEP: 'all' }).map((p) => p.split(' ')[0])).toEqual([
      'BACKUP_EVERY_HOURS',
      'BACKUP_KEEP',
    ]);
    expect(problems({ BACKUP_DIR: '/srv/esign/backups', DATA_DIR: '/srv/esign' })[0]).toMatch(
      /^BACKUP_DIR must not be inside DATA_DIR/,
    );
    expect(problems({ BACKUP_DIR: '/srv/b', DATABASE_URL: 'mysql://u:p@db/esign', S3_BUCKET: 'docs' })[0]).toMatch(
      /^BACKUP_DIR has nothing to back up/,
    );
  });
});
