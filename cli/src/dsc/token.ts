import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { endianness } from 'node:os';
import { resolve } from 'node:path';
import * as graphene from 'graphene-pk11';
import { certificateKeyUsage, ecdsaRawToDer, sha256DigestInfo } from './der';
import {
  CKR,
  mapPkcs11Error,
  ModuleLoadError,
  NoKeyError,
  NoTokenError,
  PinLockedError,
  pkcs11CodeOf,
  TokenError,
  WrongPinError,
} from './errors';

/**
 * The token side of DSC signing: PKCS#11 through graphene-pk11 to the USB token's driver (ePass2003, ProxKey,
 * SafeNet, OpenSC; SoftHSMv2 in tests). Lists the tokens, reads the signing certificate, and signs the DER of the
 * CMS signed attributes with the token's private key after logging in with the user's PIN.
 *
 * Every call into the driver is serialised per library (one queue per loaded module), since a driver is loaded and
 * initialised once per process whoever opened it, and tokens log in per process, not per session.
 */

export type SignatureAlgorithm = 'RSA-SHA256' | 'ECDSA-SHA256';

/** The PKCS#11 mechanisms the signer can use. */
export type SigningMechanism = 'SHA256_RSA_PKCS' | 'RSA_PKCS' | 'ECDSA' | 'ECDSA_SHA256';

export interface TokenInfo {
  /** CK_SLOT_ID in decimal: stable while the token stays inserted (SoftHSM renumbers it when a token is made). */
  slotId: string;
  label: string;
  serial: string;
  manufacturer: string;
  model: string;
  /** CKF_USER_PIN_LOCKED: too many wrong PINs; the signer refuses it without trying the PIN. */
  pinLocked: boolean;
  /** CKF_USER_PIN_FINAL_TRY: the next wrong PIN locks the token. */
  pinFinalTry: boolean;
  /** CKF_USER_PIN_COUNT_LOW: a wrong PIN was entered since the last good one. */
  pinCountLow: boolean;
}

export interface TokenSigner {
  token: TokenInfo;
  /** DER of the signing certificate (the one sharing CKA_ID with the private key). */
  certificateDer: Uint8Array;
  /** DER of the issuers found on the token, nearest first (often empty: tokens seldom carry the chain). */
  chainDers: Uint8Array[];
  algorithm: SignatureAlgorithm;
  /**
   * Signs data (the DER of the CMS signed attributes) with SHA-256: PKCS#1 v1.5 for RSA, DER ECDSA-Sig-Value for EC.
   * Rejects with a DscTokenError (NoTokenError when the token was pulled out).
   */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** Logs out, closes the session and finalises the driver when nothing else uses it. Safe to call twice. */
  close(): Promise<void>;
}

export interface SignerOptions {
  /** Force a mechanism, for drivers whose mechanism list is wrong. Default: chosen from the token's list. */
  mechanism?: SigningMechanism;
}

export interface TokenModule {
  modulePath: string;
  /** The initialised tokens present in the driver's slots (uninitialised SoftHSM slots are left out). */
  listTokens(): Promise<TokenInfo[]>;
  /**
   * Logs in to a token as USER and finds its signing key and certificate. `slotOrLabel`: a slot id (number, or its
   * decimal string), a token label or a token serial. The PIN is passed to C_Login and not kept.
   */
  signer(slotOrLabel: string | number, pin: string, options?: SignerOptions): Promise<TokenSigner>;
  /** Closes this module's signers and finalises the driver when nothing else uses it. */
  close(): Promise<void>;
}

const CKF_OS_LOCKING_OK = 0x02;
const CKC_X_509 = 0;

/** The mechanism used for a key and how the data is prepared for it. */
export interface MechanismPlan {
  mechanism: SigningMechanism;
  /** data: sign the bytes as they are; digest: their SHA-256; digestInfo: PKCS#1 DigestInfo of their SHA-256. */
  input: 'data' | 'digest' | 'digestInfo';
}

const PLANS: Record<SigningMechanism, MechanismPlan> = {
  SHA256_RSA_PKCS: { mechanism: 'SHA256_RSA_PKCS', input: 'data' },
  RSA_PKCS: { mechanism: 'RSA_PKCS', input: 'digestInfo' },
  ECDSA: { mechanism: 'ECDSA', input: 'digest' },
  ECDSA_SHA256: { mechanism: 'ECDSA_SHA256', input: 'data' },
};

/**
 * Picks the mechanism for a key from the token's mechanism list (CKM_* numbers). RSA: CKM_SHA256_RSA_PKCS, else
 * CKM_RSA_PKCS over a DigestInfo. EC: CKM_ECDSA over a SHA-256 digest (the one nearly every token has), else
 * CKM_ECDSA_SHA256. An empty list (drivers that do not answer C_GetMechanismList) means "try the first choice".
 */
export function chooseMechanism(keyType: 'rsa' | 'ec', supported: Iterable<number>): MechanismPlan {
  const has = new Set(supported);
  const order: SigningMechanism[] = keyType === 'rsa' ? ['SHA256_RSA_PKCS', 'RSA_PKCS'] : ['ECDSA', 'ECDSA_SHA256'];
  if (has.size === 0) return PLANS[order[0]];
  const found = order.find((name) => has.has(graphene.MechanismEnum[name]));
  if (!found) {
    throw new TokenError({ detail: `The token offers none of ${order.join(', ')} for its ${keyType} key` });
  }
  return PLANS[found];
}

function mechanismKeyType(mechanism: SigningMechanism): 'rsa' | 'ec' {
  return mechanism === 'ECDSA' || mechanism === 'ECDSA_SHA256' ? 'ec' : 'rsa';
}

/** CK_SLOT_ID (a CK_ULONG in the machine's byte order: 8 bytes on 64-bit Unix, 4 on Windows) in decimal. */
function slotIdOf(handle: Buffer): string {
  const little = endianness() === 'LE';
  if (handle.length === 8) return (little ? handle.readBigUInt64LE(0) : handle.readBigUInt64BE(0)).toString();
  if (handle.length === 4) return (little ? handle.readUInt32LE(0) : handle.readUInt32BE(0)).toString();
  return handle.toString('hex');
}

function tokenInfo(slot: graphene.Slot, token: graphene.Token): TokenInfo {
  const flags = token.flags;
  return {
    slotId: slotIdOf(slot.handle),
    label: token.label.trim(),
    serial: token.serialNumber.trim(),
    manufacturer: token.manufacturerID.trim(),
    model: token.model.trim(),
    pinLocked: (flags & graphene.TokenFlag.USER_PIN_LOCKED) !== 0,
    pinFinalTry: (flags & graphene.TokenFlag.USER_PIN_FINAL_TRY) !== 0,
    pinCountLow: (flags & graphene.TokenFlag.USER_PIN_COUNT_LOW) !== 0,
  };
}

interface PresentToken {
  slot: graphene.Slot;
  info: TokenInfo;
}

/** The signers logged in through one library, by slot: PKCS#11 logs a whole process in to a token. */
interface OpenSigner {
  slotId: string;
  closeNow(): void;
}

/** One loaded driver library, shared by every openToken() of the same file in this process. */
class LoadedLibrary {
  private queue: Promise<unknown> = Promise.resolve();
  private users = 0;
  readonly signers = new Set<OpenSigner>();

  constructor(readonly module: graphene.Module) {}

  /** Runs driver calls one task at a time. */
  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** C_Initialize on first use (with OS locking, as signing runs on libuv's thread pool). */
  begin(): void {
    if (this.users === 0) {
      try {
        try {
          this.module.initialize({ flags: CKF_OS_LOCKING_OK });
        } catch (error) {
          if (pkcs11CodeOf(error) !== CKR.CANT_LOCK) throw error;
          this.module.initialize();
        }
      } catch (error) {
        throw new ModuleLoadError({ detail: `C_Initialize: ${error instanceof Error ? error.message : error}` });
      }
    }
    this.users++;
  }

  /** C_Finalize after the last use, so a driver notices tokens inserted meanwhile and releases the reader. */
  end(): void {
    if (this.users === 0) return;
    this.users--;
    if (this.users === 0) {
      try {
        this.module.finalize();
      } catch {
        // Already finalised, or the driver is in a bad state: nothing more to release.
      }
    }
  }

  presentTokens(): PresentToken[] {
    const slots = this.module.getSlots(true);
    const tokens: PresentToken[] = [];
    for (let i = 0; i < slots.length; i++) {
      try {
        const slot = slots.items(i);
        const token = slot.getToken();
        if ((token.flags & graphene.TokenFlag.TOKEN_INITIALIZED) === 0) continue;
        tokens.push({ slot, info: tokenInfo(slot, token) });
      } catch (error) {
        // A token pulled out between C_GetSlotList and C_GetTokenInfo is simply not there.
        if (!(mapPkcs11Error(error) instanceof NoTokenError)) throw error;
      }
    }
    return tokens;
  }
}

/**
 * Loaded libraries by real path. Libraries stay loaded (finalised when unused, never dlclose'd): some vendor drivers
 * leave threads or atexit handlers behind and crash when unloaded, and the agent opens the same driver again anyway.
 */
const libraries = new Map<string, LoadedLibrary>();

function libraryKey(modulePath: string): string {
  const absolute = resolve(modulePath);
  return existsSync(absolute) ? realpathSync(absolute) : modulePath;
}

function loadLibrary(modulePath: string): LoadedLibrary {
  if (typeof modulePath !== 'string' || modulePath.trim() === '') {
    throw new ModuleLoadError({ detail: 'No PKCS#11 module path given' });
  }
  const key = libraryKey(modulePath);
  const existing = libraries.get(key);
  if (existing) return existing;
  let module: graphene.Module;
  try {
    module = graphene.Module.load(modulePath);
  } catch (error) {
    throw new ModuleLoadError({ detail: error instanceof Error ? error.message : String(error) });
  }
  const library = new LoadedLibrary(module);
  libraries.set(key, library);
  return library;
}

function matchToken(tokens: PresentToken[], slotOrLabel: string | number): PresentToken | undefined {
  if (typeof slotOrLabel === 'number') return tokens.find((t) => t.info.slotId === String(slotOrLabel));
  const wanted = slotOrLabel.trim();
  return (
    tokens.find((t) => t.info.label === wanted) ??
    tokens.find((t) => t.info.slotId === wanted) ??
    tokens.find((t) => t.info.serial !== '' && t.info.serial === wanted)
  );
}

function readTokenFlags(slot: graphene.Slot): TokenInfo | undefined {
  try {
    return tokenInfo(slot, slot.getToken());
  } catch {
    return undefined;
  }
}

/** C_Login as USER. Never keeps, logs or puts the PIN in an error. */
function login(session: graphene.Session, slot: graphene.Slot, pin: string): void {
  const attempt = (): void => session.login(pin, graphene.UserType.USER);
  try {
    try {
      attempt();
    } catch (error) {
      // Logged in by an earlier session of this process (another TokenModule): log out so the PIN is checked.
      if (pkcs11CodeOf(error) !== CKR.USER_ALREADY_LOGGED_IN) throw error;
      session.logout();
      attempt();
    }
  } catch (error) {
    const code = pkcs11CodeOf(error);
    if (code === CKR.PIN_INCORRECT) {
      const after = readTokenFlags(slot);
      if (after?.pinLocked) throw new PinLockedError({ detail: 'CKR_PIN_INCORRECT, now CKF_USER_PIN_LOCKED' });
      throw mapPkcs11Error(error, { finalTry: after?.pinFinalTry });
    }
    throw mapPkcs11Error(error);
  }
}

function attribute<T>(object: graphene.SessionObject, name: string): T | undefined {
  try {
    return object.getAttribute(name) as T;
  } catch {
    return undefined;
  }
}

interface TokenCertificate {
  id: Buffer | undefined;
  der: Buffer;
  x509: X509Certificate;
}

interface Candidate {
  key: graphene.PrivateKey;
  certificate: TokenCertificate;
  keyType: 'rsa' | 'ec';
  rank: number[];
}

function readCertificates(session: graphene.Session): TokenCertificate[] {
  const found = session.find({ class: graphene.ObjectClass.CERTIFICATE });
  const certificates: TokenCertificate[] = [];
  for (let i = 0; i < found.length; i++) {
    const object = found.items(i);
    const type = attribute<number>(object, 'certType');
    const der = attribute<Buffer>(object, 'value');
    if ((type !== undefined && type !== CKC_X_509) || !der || der.length === 0) continue;
    try {
      certificates.push({ id: attribute<Buffer>(object, 'id'), der, x509: new X509Certificate(der) });
    } catch {
      // Not a certificate Node can read: not a signing certificate either.
    }
  }
  return certificates;
}

function rankCertificate(certificate: TokenCertificate, now: number): number[] | undefined {
  const { x509 } = certificate;
  if (x509.ca) return undefined;
  const usage = certificateKeyUsage(certificate.der);
  // The encryption half of a DSC pair (keyEncipherment only) must not sign.
  if (usage && !usage.digitalSignature && !usage.nonRepudiation) return undefined;
  const valid = Date.parse(x509.validFrom) <= now && now <= Date.parse(x509.validTo);
  return [valid ? 1 : 0, usage?.nonRepudiation ? 1 : 0, usage?.digitalSignature ? 1 : 0, Date.parse(x509.validFrom)];
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i] - a[i];
  return 0;
}

/** The private key whose CKA_ID matches a signing certificate's, the best such pair first. */
function selectKey(session: graphene.Session): Candidate {
  const certificates = readCertificates(session);
  const keys = session.find({ class: graphene.ObjectClass.PRIVATE_KEY });
  const now = Date.now();
  const candidates: Candidate[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys.items(i).toType<graphene.PrivateKey>();
    const id = attribute<Buffer>(key, 'id');
    if (!id || id.length === 0 || attribute<boolean>(key, 'sign') === false) continue;
    for (const certificate of certificates) {
      if (!certificate.id || !certificate.id.equals(id)) continue;
      const keyType = certificate.x509.publicKey.asymmetricKeyType;
      if (keyType !== 'rsa' && keyType !== 'ec') continue;
      const rank = rankCertificate(certificate, now);
      if (rank) candidates.push({ key, certificate, keyType, rank });
    }
  }
  if (candidates.length === 0) {
    throw new NoKeyError({
      detail: `${keys.length} private key(s) and ${certificates.length} certificate(s) on the token; no signing certificate shares its CKA_ID with a signing key`,
    });
  }
  candidates.sort((a, b) => compareRanks(a.rank, b.rank));
  const [best] = candidates;
  if (attribute<boolean>(best.key, 'alwaysAuth') === true) {
    // C_Sign would fail with CKR_USER_NOT_LOGGED_IN without a C_Login(CKU_CONTEXT_SPECIFIC) per signature, and the
    // PIN is not kept after the first login.
    throw new TokenError({
      detail: 'The signing key needs the PIN for every signature (CKA_ALWAYS_AUTHENTICATE), which is not supported',
    });
  }
  return best;
}

/** Issuers of the signing certificate found among the token's certificates, nearest first. */
function chainOf(signing: TokenCertificate, certificates: TokenCertificate[]): Buffer[] {
  const chain: Buffer[] = [];
  const used = new Set<TokenCertificate>([signing]);
  let current = signing.x509;
  for (let depth = 0; depth < 8; depth++) {
    const issuer = certificates.find(
      (c) => !used.has(c) && current.checkIssued(c.x509) && current.verify(c.x509.publicKey),
    );
    if (!issuer) break;
    used.add(issuer);
    chain.push(issuer.der);
    if (issuer.x509.checkIssued(issuer.x509)) break;
    current = issuer.x509;
  }
  return chain;
}

function supportedMechanisms(slot: graphene.Slot): number[] {
  try {
    return slot.module.lib.C_GetMechanismList(slot.handle);
  } catch {
    return [];
  }
}

function signOnce(session: graphene.Session, key: graphene.PrivateKey, plan: MechanismPlan, input: Buffer) {
  return new Promise<Buffer>((resolvePromise, reject) => {
    try {
      session.createSign(plan.mechanism, key).once(input, (error, signature) => {
        if (error) reject(error);
        else resolvePromise(signature);
      });
    } catch (error) {
      reject(error);
    }
  });
}

class OpenTokenModule implements TokenModule {
  private readonly signers = new Set<OpenSigner>();
  private closed = false;

  constructor(
    readonly modulePath: string,
    private readonly library: LoadedLibrary,
  ) {}

  listTokens(): Promise<TokenInfo[]> {
    return this.library.run(() => {
      this.assertOpen();
      this.library.begin();
      try {
        return this.library.presentTokens().map((t) => t.info);
      } catch (error) {
        throw mapPkcs11Error(error);
      } finally {
        this.library.end();
      }
    });
  }

  signer(slotOrLabel: string | number, pin: string, options: SignerOptions = {}): Promise<TokenSigner> {
    // An empty PIN is refused here, without costing a try on the token.
    if (typeof pin !== 'string' || pin.length === 0) {
      return Promise.reject(new WrongPinError({ detail: 'Empty PIN: not sent to the token' }));
    }
    return this.library.run(() => this.openSigner(slotOrLabel, pin, options));
  }

  close(): Promise<void> {
    return this.library.run(() => {
      for (const signer of [...this.signers]) signer.closeNow();
      this.closed = true;
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new TokenError({ detail: 'The token module was closed' });
  }

  private openSigner(slotOrLabel: string | number, pin: string, options: SignerOptions): TokenSigner {
    this.assertOpen();
    const library = this.library;
    library.begin();
    let session: graphene.Session | undefined;
    try {
      const tokens = library.presentTokens();
      const found = matchToken(tokens, slotOrLabel);
      if (!found) {
        throw new NoTokenError(
          tokens.length === 0
            ? { detail: 'No initialised token in any slot' }
            : {
                message: 'The USB token chosen is not inserted. Insert it and keep the signer app open.',
                detail: `No token with slot id, label or serial "${slotOrLabel}" among ${tokens.length} token(s)`,
              },
        );
      }
      if (found.info.pinLocked) throw new PinLockedError({ detail: 'CKF_USER_PIN_LOCKED before login' });

      // A token is logged in per process: end any signer of this library on the same token first.
      for (const other of [...library.signers]) if (other.slotId === found.info.slotId) other.closeNow();

      session = found.slot.open(graphene.SessionFlag.SERIAL_SESSION);
      login(session, found.slot, pin);

      const chosen = selectKey(session);
      const chain = chainOf(chosen.certificate, readCertificates(session));
      let plan: MechanismPlan;
      if (options.mechanism) {
        if (mechanismKeyType(options.mechanism) !== chosen.keyType) {
          throw new TokenError({ detail: `${options.mechanism} cannot sign with a ${chosen.keyType} key` });
        }
        plan = PLANS[options.mechanism];
      } else {
        plan = chooseMechanism(chosen.keyType, supportedMechanisms(found.slot));
      }
      return this.makeSigner(found.info, session, chosen, chain, plan);
    } catch (error) {
      if (session) {
        try {
          session.close();
        } catch {
          // The token may be gone already.
        }
      }
      library.end();
      throw mapPkcs11Error(error);
    }
  }

  private makeSigner(
    token: TokenInfo,
    session: graphene.Session,
    chosen: Candidate,
    chain: Buffer[],
    plan: MechanismPlan,
  ): TokenSigner {
    const library = this.library;
    const owners = this.signers;
    let open = true;
    const state: OpenSigner = {
      slotId: token.slotId,
      closeNow: () => {
        if (!open) return;
        open = false;
        library.signers.delete(state);
        owners.delete(state);
        try {
          session.logout();
        } catch {
          // Not logged in any more (token removed): closing is enough.
        }
        try {
          session.close();
        } catch {
          // Same.
        }
        library.end();
      },
    };
    library.signers.add(state);
    owners.add(state);

    const { key } = chosen;
    return {
      token,
      certificateDer: new Uint8Array(chosen.certificate.der),
      chainDers: chain.map((der) => new Uint8Array(der)),
      algorithm: chosen.keyType === 'rsa' ? 'RSA-SHA256' : 'ECDSA-SHA256',
      sign: (data: Uint8Array) =>
        library.run(async () => {
          if (!open) throw new TokenError({ detail: 'This token signer was closed' });
          const bytes = Buffer.from(data); // a copy: the driver reads it on another thread
          const input =
            plan.input === 'data'
              ? bytes
              : plan.input === 'digest'
                ? createHash('sha256').update(bytes).digest()
                : sha256DigestInfo(createHash('sha256').update(bytes).digest());
          try {
            const signature = await signOnce(session, key, plan, input);
            return new Uint8Array(chosen.keyType === 'ec' ? ecdsaRawToDer(signature) : signature);
          } catch (error) {
            const mapped = mapPkcs11Error(error);
            if (mapped instanceof NoTokenError || pkcs11CodeOf(error) === CKR.USER_NOT_LOGGED_IN) {
              state.closeNow();
              throw new NoTokenError({
                message: 'The USB token was removed. Insert it and sign again.',
                detail: mapped.detail,
              });
            }
            throw mapped;
          }
        }),
      close: () => library.run(() => state.closeNow()),
    };
  }
}

/**
 * Loads a PKCS#11 driver (any path: see knownModules() for the usual ones). Throws ModuleLoadError when the file
 * cannot be loaded or is not a PKCS#11 module. The driver is initialised only while listing tokens or while a signer
 * is open. The path must come from the machine's owner (the agent's settings), never from a web page: loading a
 * library runs its code.
 */
export function openToken(modulePath: string): TokenModule {
  return new OpenTokenModule(modulePath, loadLibrary(modulePath));
}
