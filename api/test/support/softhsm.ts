import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export interface TestToken {
  /** Environment for every process that uses the token (SOFTHSM2_CONF). */
  env: NodeJS.ProcessEnv;
  label: string;
  pin: string;
  caPem: string;
  cleanup(): void;
}

/**
 * A throwaway SoftHSMv2 token holding an RSA signing key and its certificate (CN as given) from a test CA made with
 * openssl, imported with OpenSC's pkcs11-tool as the notes describe. Only child processes see it (SOFTHSM2_CONF in
 * `env`), so the tests never load the module themselves (api/test/dsc.test.ts and the DSC journey in
 * tests/e2e/signer.spec.ts).
 */
export function createTestToken(commonName: string, label = 'DSC-TEST', pin = '1234'): TestToken {
  const dir = mkdtempSync(join(tmpdir(), 'esign-softhsm-'));
  const file = (name: string) => join(dir, name);
  writeFileSync(
    file('softhsm2.conf'),
    `directories.tokendir = ${dir}/tokens\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  execFileSync('mkdir', ['-p', file('tokens')]);
  const env = { ...process.env, SOFTHSM2_CONF: file('softhsm2.conf') };
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { env, stdio: 'pipe' });
  run('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '5678']);
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-subj',
    '/CN=e-Sign Test DSC CA',
    '-days',
    '30',
    '-sha256',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('signer.key'),
    '-out',
    file('signer.csr'),
    '-subj',
    `/CN=${commonName}/O=e-Sign Tests`,
  ]);
  writeFileSync(file('ext.cnf'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n');
  run('openssl', [
    'x509',
    '-req',
    '-in',
    file('signer.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('signer.pem'),
    '-days',
    '30',
    '-sha256',
    '-extfile',
    file('ext.cnf'),
  ]);
  run('openssl', [
    'pkcs8',
    '-topk8',
    '-nocrypt',
    '-in',
    file('signer.key'),
    '-outform',
    'DER',
    '-out',
    file('signer.key.der'),
  ]);
  run('openssl', ['x509', '-in', file('signer.pem'), '-outform', 'DER', '-out', file('signer.der')]);
  const tool = ['--module', SOFTHSM_MODULE, '--token-label', label, '--login', '--pin', pin];
  run('pkcs11-tool', [
    ...tool,
    '--write-object',
    file('signer.key.der'),
    '--type',
    'privkey',
    '--id',
    '01',
    '--usage-sign',
  ]);
  run('pkcs11-tool', [...tool, '--write-object', file('signer.der'), '--type', 'cert', '--id', '01']);
  return {
    env,
    label,
    pin,
    caPem: readFileSync(file('ca.pem'), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface RunningAgent {
  child: ChildProcessWithoutNullStreams;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

/**
 * `esign-cli dsc-agent` from the built CLI, as the signer runs it on their computer: logs in to `server` with
 * `identifier` and this token; the test types the one-time code on its stdin once `output()` asks for it.
 */
export function spawnDscAgent(server: string, identifier: string, token: TestToken): RunningAgent {
  const cli = join(__dirname, '..', '..', '..', 'cli', 'dist', 'index.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build the CLI first (npm run build -w cli)`);
  const args = ['dsc-agent', '--server', server, '--identifier', identifier, '--module', SOFTHSM_MODULE];
  const child = spawn(process.execPath, [cli, ...args, '--token', token.label], { env: token.env });
  let printed = '';
  child.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  child.stderr.on('data', (d: Buffer) => (printed += d.toString()));
  return { child, output: () => printed };
}
