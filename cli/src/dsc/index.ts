/** DSC on a USB token: PKCS#11 modules, tokens, and the signer the desktop agent (`esign-cli dsc-agent`) uses. */
export { candidateModules, knownModules, type KnownModule } from './modules';
export {
  chooseMechanism,
  openToken,
  type MechanismPlan,
  type SignatureAlgorithm,
  type SignerOptions,
  type SigningMechanism,
  type TokenInfo,
  type TokenModule,
  type TokenSigner,
} from './token';
export {
  CKR,
  DscTokenError,
  mapPkcs11Error,
  ModuleLoadError,
  NoKeyError,
  NoTokenError,
  PinLockedError,
  TokenError,
  WrongPinError,
  type DscTokenErrorCode,
} from './errors';
export { certificateKeyUsage, ecdsaRawToDer, sha256DigestInfo, type KeyUsage } from './der';
