/**
 * Typed errors of the USB token signer. `message` is written for the person at the signing page's hold-on screen;
 * `code` is stable for the agent's protocol; `detail` is the technical cause (PKCS#11 return value and function, or
 * the loader's message) for logs. None of them ever contains the PIN.
 */

export type DscTokenErrorCode = 'WRONG_PIN' | 'PIN_LOCKED' | 'NO_TOKEN' | 'NO_KEY' | 'MODULE_LOAD' | 'TOKEN_ERROR';

export interface DscTokenErrorOptions {
  detail?: string;
  /** The CK_RV the token returned, when the error came from the token. */
  pkcs11Code?: number;
}

export abstract class DscTokenError extends Error {
  abstract readonly code: DscTokenErrorCode;
  readonly detail?: string;
  readonly pkcs11Code?: number;

  protected constructor(message: string, options: DscTokenErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.detail = options.detail;
    this.pkcs11Code = options.pkcs11Code;
  }
}

export class WrongPinError extends DscTokenError {
  readonly code = 'WRONG_PIN';
  /** The token says the next wrong PIN locks it (CKF_USER_PIN_FINAL_TRY). */
  readonly finalTry: boolean;

  constructor(options: DscTokenErrorOptions & { finalTry?: boolean } = {}) {
    super(
      options.finalTry
        ? 'The USB token password is wrong. One more wrong password will lock the token.'
        : 'The USB token password is wrong.',
      options,
    );
    this.finalTry = options.finalTry ?? false;
  }
}

export class PinLockedError extends DscTokenError {
  readonly code = 'PIN_LOCKED';

  constructor(options: DscTokenErrorOptions = {}) {
    super(
      "The USB token is locked: too many wrong passwords. Unlock it with the token maker's tool, or ask your DSC provider.",
      options,
    );
  }
}

export class NoTokenError extends DscTokenError {
  readonly code = 'NO_TOKEN';

  constructor(options: DscTokenErrorOptions & { message?: string } = {}) {
    super(options.message ?? 'No USB token was found. Insert it and keep the signer app open.', options);
  }
}

export class NoKeyError extends DscTokenError {
  readonly code = 'NO_KEY';

  constructor(options: DscTokenErrorOptions = {}) {
    super('The USB token has no signing certificate with its key. Check that this is your DSC token.', options);
  }
}

export class ModuleLoadError extends DscTokenError {
  readonly code = 'MODULE_LOAD';

  constructor(options: DscTokenErrorOptions = {}) {
    super(
      'The USB token driver could not be loaded. Install the driver that came with the token, then restart the signer app.',
      options,
    );
  }
}

/** Any other failure reported by the token or its driver. */
export class TokenError extends DscTokenError {
  readonly code = 'TOKEN_ERROR';

  constructor(options: DscTokenErrorOptions = {}) {
    super('The USB token could not sign. Remove it, insert it again and retry.', options);
  }
}

/** PKCS#11 v2.40 return values the signer tells apart (pkcs11t.h). */
export const CKR = {
  SLOT_ID_INVALID: 0x03,
  CANT_LOCK: 0x0a,
  DEVICE_ERROR: 0x30,
  DEVICE_REMOVED: 0x32,
  FUNCTION_CANCELED: 0x50,
  KEY_HANDLE_INVALID: 0x60,
  OBJECT_HANDLE_INVALID: 0x82,
  PIN_INCORRECT: 0xa0,
  PIN_INVALID: 0xa1,
  PIN_LEN_RANGE: 0xa2,
  PIN_EXPIRED: 0xa3,
  PIN_LOCKED: 0xa4,
  SESSION_CLOSED: 0xb0,
  SESSION_HANDLE_INVALID: 0xb3,
  TOKEN_NOT_PRESENT: 0xe0,
  TOKEN_NOT_RECOGNIZED: 0xe1,
  USER_ALREADY_LOGGED_IN: 0x100,
  USER_NOT_LOGGED_IN: 0x101,
  USER_PIN_NOT_INITIALIZED: 0x102,
} as const;

/** The CK_RV carried by a pkcs11js Pkcs11Error (`code`, message "CKR_..."), if it is one. */
export function pkcs11CodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  const message = (error as { message?: unknown }).message;
  if (typeof code === 'number' && typeof message === 'string' && message.startsWith('CKR_')) return code;
  return undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const method = (error as { method?: unknown }).method;
  return typeof method === 'string' && method ? `${error.message} (${method})` : error.message;
}

/**
 * Turns whatever the PKCS#11 layer threw into a DscTokenError. `finalTry` is whether the token now says one more
 * wrong PIN locks it, when the caller could read the token's flags after a CKR_PIN_INCORRECT.
 */
export function mapPkcs11Error(error: unknown, context: { finalTry?: boolean } = {}): DscTokenError {
  if (error instanceof DscTokenError) return error;
  const pkcs11Code = pkcs11CodeOf(error);
  const options = { detail: describe(error), pkcs11Code };
  switch (pkcs11Code) {
    case CKR.PIN_INCORRECT:
    case CKR.PIN_INVALID:
    case CKR.PIN_LEN_RANGE:
      return new WrongPinError({ ...options, finalTry: context.finalTry });
    case CKR.PIN_LOCKED:
      return new PinLockedError(options);
    case CKR.SLOT_ID_INVALID:
    case CKR.DEVICE_REMOVED:
    case CKR.TOKEN_NOT_PRESENT:
    case CKR.TOKEN_NOT_RECOGNIZED:
    case CKR.SESSION_CLOSED:
    case CKR.SESSION_HANDLE_INVALID:
      return new NoTokenError(options);
    default:
      return new TokenError(options);
  }
}
