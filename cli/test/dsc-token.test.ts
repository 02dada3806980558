import {
  createHash,
  generateKeyPairSync,
  privateEncrypt,
  randomBytes,
  sign,
  verify,
  X509Certificate,
  constants,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import {
  candidateModules,
  certificateKeyUsage,
  chooseMechanism,
  CKR,
  DscTokenError,
  ecdsaRawToDer,
  knownModules,
  mapPkcs11Error,
  ModuleLoadError,
  NoKeyError,
  NoTokenError,
  openToken,
  PinLockedError,
  sha256DigestInfo,
  TokenError,
  WrongPinError,
  type TokenModule,
} from '../src/dsc';
import { createSoftHsmToken, SOFTHSM_MODULE, SoftHsm, type SoftHsmToken } from './support/softhsm';

const RSA_PIN = 'rsa-pin-48151623';
const EC_PIN = 'ec-pin-31415926';
const OTHER_PIN = 'other-pin-11235813';
const WRONG_PIN = 'wrong-pin-27182818';
const PINS = [RSA_PIN, EC_PIN, OTHER_PIN, WRONG_PIN];

/** Everything the code under test prints, to check that no PIN ever shows. */
const printed: string[] = [];
const restores: (() => void)[] = [];

function capture(): void {
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      printed.push(args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg))).join(' '));
    });
    restores.push(() => spy.mockRestore());
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    const spy = jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
      printed.push(String(chunk));
      return original(chunk as string, ...rest);
    }) as typeof stream.write);
    restores.push(() => spy.mockRestore());
  }
}

function expectNoPin(text: string): void {
  for (const pin of PINS) expect(text).not.toContain(pin);
}

/** Everything an error or signer carries that could reach a log or the signing page. */
function exposed(value: unknown): string {
  const parts = [inspect(value, { depth: 6, showHidden: true })];
  if (value instanceof Error) parts.push(value.message, value.stack ?? '', JSON.stringify(value));
  return parts.join('\n');
}

async function rejection(promise: Promise<unknown>): Promise<DscTokenError> {
  try {
    await promise;
  } catch (error) {
    expectNoPin(exposed(error));
    expect(error).toBeInstanceOf(DscTokenError);
    return error as DscTokenError;
  }
  throw new Error('Expected a rejection');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

let hsm: SoftHsm;
let rsaToken: SoftHsmToken;
let ecToken: SoftHsmToken;
let pkcs11: TokenModule;

beforeAll(() => {
  capture();
  hsm = new SoftHsm();
  // An encryption pair written before the signing pair, and the CA, as on a real class 3 DSC token.
  rsaToken = createSoftHsmToken({
    hsm,
    label: 'DSC-RSA',
    pin: RSA_PIN,
    keyType: 'rsa',
    encryptionPair: true,
    caOnToken: true,
  });
  ecToken = createSoftHsmToken({ hsm, label: 'DSC-EC', pin: EC_PIN, keyType: 'ec' });
  createSoftHsmToken({ hsm, label: 'DSC-NOKEY', pin: OTHER_PIN, withKey: false });
  createSoftHsmToken({ hsm, label: 'DSC-ENC-ONLY', pin: OTHER_PIN, keyUsage: 'keyEncipherment' });
  pkcs11 = openToken(SOFTHSM_MODULE);
});

afterAll(async () => {
  await pkcs11?.close();
  hsm?.cleanup();
  for (const restore of restores.splice(0)) restore();
  expectNoPin(printed.join('\n'));
});

describe('PKCS#11 modules', () => {
  it('finds SoftHSM among the known modules of this machine', () => {
    expect(knownModules().map((m) => m.path)).toContain('/usr/lib/softhsm/libsofthsm2.so');
  });

  it('knows the Windows drivers of Indian DSC tokens', () => {
    const paths = candidateModules('win32', { SystemRoot: 'C:\\Windows' }).map((m) => m.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'C:\\Windows\\System32\\eps2003csp11.dll',
        'C:\\Windows\\System32\\SignatureP11.dll',
        'C:\\Windows\\System32\\wdpkcs.dll',
      ]),
    );
    const present = knownModules('win32', (path) => path.endsWith('eps2003csp11.dll'), { SystemRoot: 'C:\\Windows' });
    expect(present).toEqual([{ name: 'ePass2003', path: 'C:\\Windows\\System32\\eps2003csp11.dll' }]);
  });

  it('lists the Linux vendor drivers', () => {
    const paths = candidateModules('linux').map((m) => m.path);
    expect(paths).toContain('/usr/lib/WatchData/ProxKey/lib/libwdpkcs_SignatureP11.so');
    expect(paths).toContain('/usr/lib/libcastle.so.1.0.0');
    expect(paths).toContain('/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so');
  });
});

describe('USB token signer on SoftHSM', () => {
  it('lists the initialised tokens with slot id, label, serial and manufacturer', async () => {
    const tokens = await pkcs11.listTokens();
    expect(tokens.map((t) => t.label).sort()).toEqual(['DSC-EC', 'DSC-ENC-ONLY', 'DSC-NOKEY', 'DSC-RSA']);
    for (const token of tokens) {
      expect(token.slotId).toMatch(/^\d+$/);
      expect(token.serial).toMatch(/^[0-9a-f]{16}$/);
      expect(token.manufacturer).toBe('SoftHSM project');
      expect(token.pinLocked).toBe(false);
    }
    expect(new Set(tokens.map((t) => t.slotId)).size).toBe(4);
  });

  it('signs with the RSA key of the signing certificate, not the encryption one, and finds the chain', async () => {
    const signer = await pkcs11.signer('DSC-RSA', RSA_PIN);
    try {
      expectNoPin(exposed(signer));
      expect(signer.algorithm).toBe('RSA-SHA256');
      const certificate = new X509Certificate(rsaToken.certPem);
      expect(sameBytes(signer.certificateDer, certificate.raw)).toBe(true);
      expect(certificateKeyUsage(signer.certificateDer)).toMatchObject({
        digitalSignature: true,
        nonRepudiation: true,
      });
      expect(signer.chainDers.map((der) => Buffer.from(der))).toEqual([new X509Certificate(rsaToken.caPem).raw]);

      const data = randomBytes(300);
      const signature = await signer.sign(data);
      expect(signature).toBeInstanceOf(Uint8Array);
      expect(signature.length).toBe(256);
      expect(verify('sha256', data, certificate.publicKey, signature)).toBe(true);
      expect(verify('sha256', randomBytes(300), certificate.publicKey, signature)).toBe(false);
    } finally {
      await signer.close();
    }
  });

  it('gives the same RSA signature through CKM_RSA_PKCS over a DigestInfo', async () => {
    const data = randomBytes(100);
    const viaSha256 = await pkcs11.signer('DSC-RSA', RSA_PIN);
    const expected = await viaSha256.sign(data);
    await viaSha256.close();
    const viaRaw = await pkcs11.signer('DSC-RSA', RSA_PIN, { mechanism: 'RSA_PKCS' });
    try {
      expect(Buffer.from(await viaRaw.sign(data))).toEqual(Buffer.from(expected));
    } finally {
      await viaRaw.close();
    }
  });

  it('signs with EC P-256 and returns a DER ECDSA-Sig-Value', async () => {
    const signer = await pkcs11.signer('DSC-EC', EC_PIN);
    try {
      expect(signer.algorithm).toBe('ECDSA-SHA256');
      const certificate = new X509Certificate(ecToken.certPem);
      expect(sameBytes(signer.certificateDer, certificate.raw)).toBe(true);
      expect(signer.chainDers).toEqual([]);
      for (let i = 0; i < 5; i++) {
        const data = randomBytes(200 + i);
        const signature = await signer.sign(data);
        expect(signature[0]).toBe(0x30);
        expect(verify('sha256', data, { key: certificate.publicKey, dsaEncoding: 'der' }, signature)).toBe(true);
      }
    } finally {
      await signer.close();
    }
  });

  it('finds the token by slot id (number or string) and by serial', async () => {
    const token = (await pkcs11.listTokens()).find((t) => t.label === 'DSC-EC');
    if (!token) throw new Error('DSC-EC not listed');
    for (const choice of [Number(token.slotId), token.slotId, token.serial]) {
      const signer = await pkcs11.signer(choice, EC_PIN);
      expect(signer.token).toMatchObject({ label: 'DSC-EC', slotId: token.slotId });
      await signer.close();
    }
  });

  it('rejects a wrong PIN with WrongPinError, and the token still works with the right PIN', async () => {
    const error = await rejection(pkcs11.signer('DSC-RSA', WRONG_PIN));
    expect(error).toBeInstanceOf(WrongPinError);
    expect(error.message).toBe('The USB token password is wrong.');
    expect(error.code).toBe('WRONG_PIN');
    expect(error.pkcs11Code).toBe(CKR.PIN_INCORRECT);

    const signer = await pkcs11.signer('DSC-RSA', RSA_PIN);
    const data = randomBytes(64);
    expect(verify('sha256', data, new X509Certificate(rsaToken.certPem).publicKey, await signer.sign(data))).toBe(true);
    await signer.close();
  });

  it('checks the PIN again while another signer is logged in to the same token, and ends that signer', async () => {
    const first = await pkcs11.signer('DSC-RSA', RSA_PIN);
    expect(await rejection(pkcs11.signer('DSC-RSA', WRONG_PIN))).toBeInstanceOf(WrongPinError);
    expect(await rejection(first.sign(randomBytes(10)))).toBeInstanceOf(TokenError);
    await first.close();
  });

  it('refuses an empty PIN without trying it on the token', async () => {
    const error = await rejection(pkcs11.signer('DSC-RSA', ''));
    expect(error).toBeInstanceOf(WrongPinError);
    expect(error.pkcs11Code).toBeUndefined();
  });

  it('SoftHSMv2 never locks a token after wrong PINs, so CKR_PIN_LOCKED is tested by its mapping below', async () => {
    for (let i = 0; i < 12; i++) {
      expect(await rejection(pkcs11.signer('DSC-EC', WRONG_PIN))).toBeInstanceOf(WrongPinError);
    }
    const token = (await pkcs11.listTokens()).find((t) => t.label === 'DSC-EC');
    expect(token?.pinLocked).toBe(false);
    const signer = await pkcs11.signer('DSC-EC', EC_PIN);
    await signer.close();
  });

  it('says NoKeyError when no private key goes with a signing certificate', async () => {
    const noKey = await rejection(pkcs11.signer('DSC-NOKEY', OTHER_PIN));
    expect(noKey).toBeInstanceOf(NoKeyError);
    expect(noKey.code).toBe('NO_KEY');
    // A key whose only certificate is for encryption (keyEncipherment) must not sign.
    expect(await rejection(pkcs11.signer('DSC-ENC-ONLY', OTHER_PIN))).toBeInstanceOf(NoKeyError);
  });

  it('says NoTokenError for a token that is not inserted', async () => {
    const error = await rejection(pkcs11.signer('NOT-INSERTED', RSA_PIN));
    expect(error).toBeInstanceOf(NoTokenError);
    expect(error.message).toMatch(/not inserted/);
  });

  it('says ModuleLoadError for a missing file and for a library that is not PKCS#11', () => {
    for (const path of ['/nonexistent/libnothing-pkcs11.so', '', notPkcs11Library()]) {
      let thrown: unknown;
      try {
        openToken(path);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ModuleLoadError);
      expect((thrown as ModuleLoadError).message).toBe(
        'The USB token driver could not be loaded. Install the driver that came with the token, then restart the signer app.',
      );
    }
  });

  it('shares one initialised driver between modules of the same library', async () => {
    const other = openToken(SOFTHSM_MODULE);
    const signer = await other.signer('DSC-EC', EC_PIN);
    // Listing and closing through the first module must not finalise the driver under the open signer.
    expect((await pkcs11.listTokens()).length).toBe(4);
    const data = randomBytes(32);
    const certificate = new X509Certificate(ecToken.certPem);
    expect(verify('sha256', data, { key: certificate.publicKey, dsaEncoding: 'der' }, await signer.sign(data))).toBe(
      true,
    );
    await other.close();
    expect(await rejection(signer.sign(data))).toBeInstanceOf(TokenError);
    expect(await rejection(other.listTokens())).toBeInstanceOf(TokenError);
    await signer.close(); // twice is fine
    expect((await pkcs11.listTokens()).length).toBe(4);
  });

  it('never prints a PIN', () => {
    expectNoPin(printed.join('\n'));
  });
});

/** A shared library already loaded in this process that has no C_GetFunctionList. */
function notPkcs11Library(): string {
  const maps = readFileSync('/proc/self/maps', 'utf8');
  const path = maps
    .split('\n')
    .map((line) => line.slice(line.indexOf('/')))
    .find((file) => /\/lib(c|m|stdc\+\+)\.so(\.\d+)*$/.test(file));
  if (!path) throw new Error('No system library found in /proc/self/maps');
  return path;
}

describe('error mapping', () => {
  const pkcs11Error = (name: string, code: number, method = 'C_Login') =>
    Object.assign(new Error(name), { code, method, name: 'Pkcs11Error' });

  it('maps CKR_PIN_LOCKED to PinLockedError with the hold-on screen message', () => {
    const error = mapPkcs11Error(pkcs11Error('CKR_PIN_LOCKED', CKR.PIN_LOCKED));
    expect(error).toBeInstanceOf(PinLockedError);
    expect(error.code).toBe('PIN_LOCKED');
    expect(error.message).toMatch(/^The USB token is locked: too many wrong passwords\./);
    expect(error.detail).toBe('CKR_PIN_LOCKED (C_Login)');
  });

  it('maps wrong PINs, warning on the final try', () => {
    expect(mapPkcs11Error(pkcs11Error('CKR_PIN_INCORRECT', CKR.PIN_INCORRECT))).toBeInstanceOf(WrongPinError);
    expect(mapPkcs11Error(pkcs11Error('CKR_PIN_LEN_RANGE', CKR.PIN_LEN_RANGE))).toBeInstanceOf(WrongPinError);
    const last = mapPkcs11Error(pkcs11Error('CKR_PIN_INCORRECT', CKR.PIN_INCORRECT), { finalTry: true });
    expect(last).toMatchObject({ finalTry: true });
    expect(last.message).toBe('The USB token password is wrong. One more wrong password will lock the token.');
  });

  it('maps a removed token to NoTokenError and anything else to TokenError', () => {
    const removed = mapPkcs11Error(pkcs11Error('CKR_DEVICE_REMOVED', CKR.DEVICE_REMOVED, 'C_Sign'));
    expect(removed).toBeInstanceOf(NoTokenError);
    expect(removed.message).toBe('No USB token was found. Insert it and keep the signer app open.');
    expect(mapPkcs11Error(pkcs11Error('CKR_TOKEN_NOT_PRESENT', CKR.TOKEN_NOT_PRESENT))).toBeInstanceOf(NoTokenError);
    expect(mapPkcs11Error(pkcs11Error('CKR_GENERAL_ERROR', 0x05))).toBeInstanceOf(TokenError);
    expect(mapPkcs11Error(new Error('boom'))).toBeInstanceOf(TokenError);
    const typed = new NoKeyError();
    expect(mapPkcs11Error(typed)).toBe(typed);
  });
});

describe('DER helpers', () => {
  it('converts ECDSA r||s to DER that verifies, across leading zeros and high bits', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 64; i++) {
      const data = randomBytes(40);
      const raw = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      const der = ecdsaRawToDer(raw);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'der' }, der)).toBe(true);
    }
    expect(ecdsaRawToDer(Buffer.from('0080' + '0001', 'hex'))).toEqual(Buffer.from('3007020200800201' + '01', 'hex'));
    expect(() => ecdsaRawToDer(Buffer.alloc(3))).toThrow();
  });

  it('builds the SHA-256 DigestInfo that CKM_RSA_PKCS signs', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const data = randomBytes(50);
    const digest = createHash('sha256').update(data).digest();
    const raw = privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, sha256DigestInfo(digest));
    expect(raw).toEqual(sign('sha256', data, privateKey));
  });

  it('chooses the mechanism from the token list', () => {
    const [SHA256_RSA_PKCS, RSA_PKCS, ECDSA, ECDSA_SHA256] = [0x40, 0x01, 0x1041, 0x1044];
    expect(chooseMechanism('rsa', [RSA_PKCS, SHA256_RSA_PKCS])).toEqual({
      mechanism: 'SHA256_RSA_PKCS',
      input: 'data',
    });
    expect(chooseMechanism('rsa', [RSA_PKCS])).toEqual({ mechanism: 'RSA_PKCS', input: 'digestInfo' });
    expect(chooseMechanism('ec', [ECDSA_SHA256, ECDSA])).toEqual({ mechanism: 'ECDSA', input: 'digest' });
    expect(chooseMechanism('ec', [ECDSA_SHA256])).toEqual({ mechanism: 'ECDSA_SHA256', input: 'data' });
    expect(chooseMechanism('rsa', [])).toEqual({ mechanism: 'SHA256_RSA_PKCS', input: 'data' });
    expect(() => chooseMechanism('ec', [RSA_PKCS])).toThrow(TokenError);
  });
});
