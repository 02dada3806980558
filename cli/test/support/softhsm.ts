import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Throwaway SoftHSMv2 tokens for the DSC token tests. Tokens are made with softhsm2-util, keys and certificates with
 * openssl, and imported with OpenSC's pkcs11-tool.
 */

export const SOFTHSM_MODULE = process.env.SOFTHSM2_MODULE ?? '/usr/lib/softhsm/libsofthsm2.so';

export type TestKeyType = 'rsa' | 'ec';

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  try {
    return execFileSync(command, args, { ...options, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`${command} ${args[0]} failed: ${stderr.trim() || String(error)}`);
  }
}

/**
 * The SoftHSM configuration file of this process. SOFTHSM2_CONF must name it in the process's real environment, as
 * SoftHSM (loaded in-process by graphene-pk11) reads it with getenv() in C_Initialize. Jest hands each test file a
 * copy of process.env, so an assignment there never reaches getenv(); process.loadEnvFile() writes the real
 * environment but never overwrites a variable. So the variable is set once per process to this fixed path, and each
 * SoftHsm rewrites the file to point at its own token directory (SoftHSM rereads it at every C_Initialize).
 */
const PROCESS_CONF = join(tmpdir(), `esign-softhsm-${process.pid}.conf`);

function pointSoftHsmAtProcessConf(): void {
  const wanted = PROCESS_CONF;
  process.env.SOFTHSM2_CONF = wanted; // Plain Node: this is the real environment.
  const envFile = join(tmpdir(), `esign-softhsm-${process.pid}.env`);
  writeFileSync(envFile, `SOFTHSM2_CONF="${wanted}"\n`);
  try {
    process.loadEnvFile(envFile); // Under Jest: the real environment, if the variable is not set there yet.
  } finally {
    rmSync(envFile, { force: true });
  }
  // Child processes inherit the real environment: ask one what the native module will read.
  const seen = execFileSync(process.execPath, ['-e', 'process.stdout.write(process.env.SOFTHSM2_CONF ?? "")'], {
    encoding: 'utf8',
  });
  if (seen !== wanted) {
    throw new Error(`SOFTHSM2_CONF is already set to "${seen}" for this process: unset it to run the SoftHSM tests`);
  }
}

/**
 * A SoftHSM token directory, made the one this process's SoftHSM uses (one SoftHsm at a time per process: put
 * several tokens in one with createSoftHsmToken({ hsm })).
 */
export class SoftHsm {
  readonly modulePath = SOFTHSM_MODULE;
  readonly dir: string;
  readonly confPath = PROCESS_CONF;
  private files = 0;

  constructor() {
    pointSoftHsmAtProcessConf();
    this.dir = mkdtempSync(join(tmpdir(), 'esign-softhsm-'));
    const tokens = join(this.dir, 'tokens');
    mkdirSync(tokens);
    writeFileSync(
      this.confPath,
      [`directories.tokendir = ${tokens}`, 'objectstore.backend = file', 'log.level = ERROR', ''].join('\n'),
    );
  }

  private get env(): NodeJS.ProcessEnv {
    return { ...process.env, SOFTHSM2_CONF: this.confPath };
  }

  /** A new file name in the work directory. */
  file(suffix: string): string {
    return join(this.dir, `f${++this.files}${suffix}`);
  }

  initToken(label: string, pin: string, soPin: string): void {
    run('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin], {
      env: this.env,
    });
  }

  /** Writes a DER object (unencrypted PKCS#8 key or X.509 certificate) to the token with pkcs11-tool. */
  writeObject(token: { label: string; pin: string }, derPath: string, type: 'privkey' | 'cert', id: string): void {
    const args = ['--module', this.modulePath, '--token-label', token.label, '--login', '--pin', token.pin];
    args.push('--write-object', derPath, '--type', type, '--id', id);
    if (type === 'privkey') args.push('--usage-sign');
    run('pkcs11-tool', args, { env: this.env });
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
    try {
      if (readFileSync(this.confPath, 'utf8').includes(this.dir)) rmSync(this.confPath, { force: true });
    } catch {
      // Already gone.
    }
  }
}

export interface TestCa {
  keyPath: string;
  certPath: string;
  certPem: string;
}

export interface TestCertificate {
  /** Unencrypted PKCS#8 DER of the private key, as pkcs11-tool imports it. */
  keyDerPath: string;
  certDerPath: string;
  certPem: string;
}

/** A self-signed RSA 2048 CA. */
export function makeCa(hsm: SoftHsm, commonName = 'eSign Test DSC CA'): TestCa {
  const keyPath = hsm.file('.key.pem');
  const certPath = hsm.file('.ca.pem');
  run('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath,
    '-subj', `/CN=${commonName}`, '-days', '30', '-sha256',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore
  return { keyPath, certPath, certPem: readFileSync(certPath, 'utf8') };
}

/** A key (RSA 2048 or EC P-256) and its certificate issued by the CA with the given key usage. */
export function issueCertificate(
  hsm: SoftHsm,
  ca: TestCa,
  options: { commonName: string; keyType: TestKeyType; keyUsage: string },
): TestCertificate {
  const keyPem = hsm.file('.key.pem');
  const keyGen =
    options.keyType === 'rsa'
      ? ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']
      : ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  run('openssl', ['genpkey', ...keyGen, '-out', keyPem]);
  const keyDerPath = hsm.file('.key.der');
  run('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', keyPem, '-outform', 'DER', '-out', keyDerPath]);

  const csr = hsm.file('.csr.pem');
  run('openssl', ['req', '-new', '-key', keyPem, '-subj', `/CN=${options.commonName}/O=eSign Tests`, '-out', csr]);
  const extensions = hsm.file('.ext.cnf');
  writeFileSync(extensions, `basicConstraints = critical, CA:FALSE\nkeyUsage = critical, ${options.keyUsage}\n`);
  const certPem = hsm.file('.crt.pem');
  run('openssl', [
    'x509', '-req', '-in', csr, '-CA', ca.certPath, '-CAkey', ca.keyPath, '-set_serial', `0x${randomBytes(8).toString('hex')}`,
    '-days', '30', '-sha256', '-extfile', extensions, '-out', certPem,
  ]); // prettier-ignore
  const certDerPath = hsm.file('.crt.der');
  run('openssl', ['x509', '-in', certPem, '-outform', 'DER', '-out', certDerPath]);
  return { keyDerPath, certDerPath, certPem: readFileSync(certPem, 'utf8') };
}

export interface SoftHsmTokenOptions {
  label?: string;
  pin?: string;
  soPin?: string;
  keyType?: TestKeyType;
  /** Key usage of the signing certificate (openssl syntax). */
  keyUsage?: string;
  /** false: only the certificate goes on the token, no private key (for "no key" tests). */
  withKey?: boolean;
  /** Also put an encryption key pair (keyEncipherment only, CKA_ID 02) on the token, as DSC tokens carry. */
  encryptionPair?: boolean;
  /** Also put the CA certificate on the token (CKA_ID ca), to find the chain. */
  caOnToken?: boolean;
  /** Make the token in this SoftHSM directory instead of a new one (several tokens, one SOFTHSM2_CONF). */
  hsm?: SoftHsm;
}

export interface SoftHsmToken {
  modulePath: string;
  label: string;
  pin: string;
  soPin: string;
  caPem: string;
  certPem: string;
  hsm: SoftHsm;
  /** Removes the SoftHSM directory if this token made it (not when `hsm` was passed in). */
  cleanup(): void;
}

/** A SoftHSM token holding a signing key (CKA_ID 01, CKA_SIGN) and its certificate from a test CA. */
export function createSoftHsmToken(options: SoftHsmTokenOptions = {}): SoftHsmToken {
  const owned = !options.hsm;
  const hsm = options.hsm ?? new SoftHsm();
  try {
    const token = {
      label: options.label ?? 'DSC-TEST',
      pin: options.pin ?? '1234',
      soPin: options.soPin ?? '5678',
    };
    hsm.initToken(token.label, token.pin, token.soPin);
    const ca = makeCa(hsm);
    const signing = issueCertificate(hsm, ca, {
      commonName: `Signer ${token.label}`,
      keyType: options.keyType ?? 'rsa',
      keyUsage: options.keyUsage ?? 'digitalSignature, nonRepudiation',
    });
    if (options.encryptionPair) {
      // Written first, so that a signer taking the first key it finds would pick the wrong one.
      const encryption = issueCertificate(hsm, ca, {
        commonName: `Encryption ${token.label}`,
        keyType: options.keyType ?? 'rsa',
        keyUsage: 'keyEncipherment',
      });
      hsm.writeObject(token, encryption.keyDerPath, 'privkey', '02');
      hsm.writeObject(token, encryption.certDerPath, 'cert', '02');
    }
    if (options.withKey !== false) hsm.writeObject(token, signing.keyDerPath, 'privkey', '01');
    hsm.writeObject(token, signing.certDerPath, 'cert', '01');
    if (options.caOnToken) {
      const caDer = hsm.file('.ca.der');
      run('openssl', ['x509', '-in', ca.certPath, '-outform', 'DER', '-out', caDer]);
      hsm.writeObject(token, caDer, 'cert', 'ca');
    }
    return {
      modulePath: hsm.modulePath,
      ...token,
      caPem: ca.certPem,
      certPem: signing.certPem,
      hsm,
      cleanup: () => {
        if (owned) hsm.cleanup();
      },
    };
  } catch (error) {
    if (owned) hsm.cleanup();
    throw error;
  }
}
