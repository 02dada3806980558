import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const api = join(__dirname, '..');

const start = (env: Record<string, string>) =>
  spawnSync(
    process.execPath,
    [
      require.resolve('ts-node/dist/bin.js'),
      '--transpile-only',
      '-P',
      join(api, 'tsconfig.json'),
      join(api, 'src/main.ts'),
    ],
    { cwd: api, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 60_000 },
  );

describe('starting the server', () => {
  it('fails with exit code 1 and names every bad variable when the configuration is invalid', () => {
    const run = start({ PORT: 'abc', DATABASE_URL: 'sqlite://nope', LOG_LEVEL: 'chatty' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid configuration');
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL']) expect(run.stderr).toMatch(new RegExp(`- ${name} `));
    expect(run.stdout).not.toContain('e-Sign is running');
  });

  it('refuses production with the development TSA, naming TSA_URLS and ALLOW_DEV_TSA', () => {
    const run = start({ NODE_ENV: 'production', DATA_DIR: join(tmpdir(), 'esign-never-created') });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid configuration');
    expect(run.stderr).toMatch(/- TSA_URLS must be set when NODE_ENV=production: .* ALLOW_DEV_TSA=true/);
    expect(run.stdout).not.toContain('e-Sign is running');
  });
});
