import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const api = join(__dirname, '..');

describe('starting the server', () => {
  it('fails with exit code 1 and names every bad variable when the configuration is invalid', () => {
    const run = spawnSync(
      process.execPath,
      [
        require.resolve('ts-node/dist/bin.js'),
        '--transpile-only',
        '-P',
        join(api, 'tsconfig.json'),
        join(api, 'src/main.ts'),
      ],
      {
        cwd: api,
        env: { PATH: process.env.PATH, PORT: 'abc', DATABASE_URL: 'sqlite://nope', LOG_LEVEL: 'chatty' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid configuration');
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL']) expect(run.stderr).toMatch(new RegExp(`- ${name} `));
    expect(run.stdout).not.toContain('e-Sign is running');
  });
});
