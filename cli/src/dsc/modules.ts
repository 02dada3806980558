import { existsSync } from 'node:fs';
import { win32 } from 'node:path';

/** A PKCS#11 module (the token maker's driver library) that the DSC signer agent can load. */
export interface KnownModule {
  /** Which tokens the driver serves, for a picker: 'ePass2003', 'ProxKey', 'OpenSC', ... */
  name: string;
  /** Absolute path of the library. */
  path: string;
}

type Candidate = readonly [name: string, path: string];

const LINUX: readonly Candidate[] = [
  // Feitian ePass2003 (also sold as HYP2003 / TrustKey): the vendor's Linux package installs "castle".
  ['ePass2003', '/usr/lib/libcastle.so.1.0.0'],
  ['ePass2003', '/usr/lib64/libcastle.so.1.0.0'],
  ['ePass2003', '/usr/local/lib/libcastle.so.1.0.0'],
  // Watchdata ProxKey.
  ['ProxKey', '/usr/lib/WatchData/ProxKey/lib/libwdpkcs_SignatureP11.so'],
  // SafeNet / Thales eToken (SafeNet Authentication Client).
  ['SafeNet eToken', '/usr/lib/libeToken.so'],
  ['SafeNet eToken', '/usr/lib/libeTPkcs11.so'],
  // OpenSC (drives ePass2003 and many smart cards without the vendor driver).
  ['OpenSC', '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so'],
  ['OpenSC', '/usr/lib/aarch64-linux-gnu/opensc-pkcs11.so'],
  ['OpenSC', '/usr/lib64/opensc-pkcs11.so'],
  ['OpenSC', '/usr/lib/opensc-pkcs11.so'],
  // SoftHSMv2: a software token, for tests.
  ['SoftHSM', '/usr/lib/softhsm/libsofthsm2.so'],
  ['SoftHSM', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so'],
  ['SoftHSM', '/usr/lib64/pkcs11/libsofthsm2.so'],
  ['SoftHSM', '/usr/local/lib/softhsm/libsofthsm2.so'],
];

const MACOS: readonly Candidate[] = [
  ['ePass2003', '/usr/local/lib/libcastle.1.0.0.dylib'],
  ['SafeNet eToken', '/usr/local/lib/libeTPkcs11.dylib'],
  ['OpenSC', '/Library/OpenSC/lib/opensc-pkcs11.so'],
  ['OpenSC', '/opt/homebrew/lib/opensc-pkcs11.so'],
  ['OpenSC', '/usr/local/lib/opensc-pkcs11.so'],
  ['SoftHSM', '/opt/homebrew/lib/softhsm/libsofthsm2.so'],
  ['SoftHSM', '/usr/local/lib/softhsm/libsofthsm2.so'],
];

function windowsCandidates(env: NodeJS.ProcessEnv): Candidate[] {
  const join = win32.join;
  const systemRoot = env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows';
  const system32 = join(systemRoot, 'System32');
  const programFiles = env.ProgramFiles ?? 'C:\\Program Files';
  return [
    ['ePass2003', join(system32, 'eps2003csp11.dll')],
    ['ProxKey', join(system32, 'SignatureP11.dll')],
    ['ProxKey', join(system32, 'wdpkcs.dll')],
    ['SafeNet eToken', join(system32, 'eTPKCS11.dll')],
    ['OpenSC', join(programFiles, 'OpenSC Project', 'OpenSC', 'pkcs11', 'opensc-pkcs11.dll')],
    ['SoftHSM', 'C:\\SoftHSM2\\lib\\softhsm2-x64.dll'],
  ];
}

/** Every module path this platform's drivers are known to install, present or not. */
export function candidateModules(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): KnownModule[] {
  const list = platform === 'win32' ? windowsCandidates(env) : platform === 'darwin' ? MACOS : LINUX;
  return list.map(([name, path]) => ({ name, path }));
}

/**
 * The known PKCS#11 modules installed on this machine, vendor drivers first. The signer accepts any other path too
 * (`openToken(path)`), for drivers installed somewhere else.
 */
export function knownModules(
  platform: NodeJS.Platform = process.platform,
  exists: (path: string) => boolean = existsSync,
  env: NodeJS.ProcessEnv = process.env,
): KnownModule[] {
  return candidateModules(platform, env).filter((module) => exists(module.path));
}
