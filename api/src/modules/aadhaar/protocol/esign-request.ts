import { type Element } from '@xmldom/xmldom';
import { escapeXmlAttribute, formatIndianTimestamp, parseIndianTimestamp } from './common';
import { childElements, parseXmlStrict, verifyEnveloped, XmlInputError } from './xml-dsig';

/** AuthMode of eSign 2.1: 1 OTP, 2 fingerprint, 3 iris. */
export type EsignAuthMode = '1' | '2' | '3';

export const ESIGN_VERSION = '2.1';
export const AUTH_MODES: readonly EsignAuthMode[] = ['1', '2', '3'];
/** How far the request's ts may be from the ESP's clock, either way, by default. */
export const DEFAULT_MAX_SKEW_MS = 30 * 60_000;

/** Error codes an ESP answers a bad request with (see the eSign API notes). */
export const EsignErrorCode = {
  INVALID_AUTH_MODE: '901',
  ASP_ID_EMPTY: '902',
  ASP_ID_UNKNOWN: '903',
  NO_HASH: '905',
  TS_EMPTY: '907',
  TS_INVALID: '908',
  TXN_EMPTY: '909',
  TXN_DUPLICATE: '910',
  SIGNATURE_INVALID: '911',
  ASP_CERTIFICATE: '922',
  USER_CANCELLED: '944',
  XML_PARSE_ERROR: '992',
} as const;

export interface EsignDocHash {
  /** The InputHash id, echoed on the DocSignature of the response. */
  id: string;
  /** SHA-256 of the document's signed bytes (for a PDF, the CMS's messageDigest), 64 hex digits. */
  hashHex: string;
  /** Shown to the signer at the ESP. */
  docInfo: string;
}

export interface BuildEsignRequestInput {
  aspId: string;
  /** Unique per ASP; echoed in the response. */
  txn: string;
  ts: Date;
  responseUrl: string;
  /** One document: `docInfo` and `hashHex` (id "1"). For several, use `docs`. */
  docInfo?: string;
  hashHex?: string;
  docs?: EsignDocHash[];
  authMode?: EsignAuthMode;
  ekycIdType?: string;
}

export interface EsignRequest {
  ver: string;
  /** The ts attribute as sent (Indian time, no zone). */
  ts: string;
  timestamp: Date;
  txn: string;
  aspId: string;
  authMode: EsignAuthMode;
  ekycId: string;
  ekycIdType: string;
  responseSigType: string;
  responseUrl: string;
  hashes: EsignDocHash[];
}

export type ParseEsignRequestResult =
  { ok: true; value: EsignRequest } | { ok: false; errCode: string; errMsg: string };

export interface ParseEsignRequestOptions {
  /** The ESP's clock. */
  now: Date;
  /**
   * The certificate the ASP registered, PEM. The request is verified with this one only. null/undefined: 903 when
   * `isKnownAspId` is not given, 922 (no certificate) when it is and says the ASP is known.
   */
  aspCertificate: (aspId: string) => string | null | undefined;
  /** Is this ASP registered with the ESP? (903 otherwise). Defaults to "has a certificate". */
  isKnownAspId?: (aspId: string) => boolean;
  /** Has this ASP already used this txn? (910). Checked after the signature, so only on authentic requests. */
  isDuplicateTxn?: (aspId: string, txn: string) => boolean;
  maxSkewMs?: number;
}

const HASH_HEX = /^[0-9a-fA-F]{64}$/;

/** The unsigned <Esign> request; sign it with `signEnveloped` and the ASP's registered key. */
export function buildEsignRequest(input: BuildEsignRequestInput): string {
  const authMode = input.authMode ?? '1';
  const ekycIdType = input.ekycIdType ?? 'A';
  if (!AUTH_MODES.includes(authMode)) throw new Error(`Invalid AuthMode ${authMode}`);
  if (!input.aspId) throw new Error('aspId is required');
  if (!input.txn) throw new Error('txn is required');
  if (!/^https?:\/\//i.test(input.responseUrl)) throw new Error('responseUrl must be an http(s) URL');
  const docs = input.docs ?? [{ id: '1', hashHex: input.hashHex ?? '', docInfo: input.docInfo ?? '' }];
  if (docs.length === 0) throw new Error('At least one document hash is required');
  const ids = new Set<string>();
  for (const doc of docs) {
    if (!HASH_HEX.test(doc.hashHex)) throw new Error(`InputHash ${doc.id}: a SHA-256 hash is 64 hex digits`);
    if (!doc.id || ids.has(doc.id)) throw new Error(`InputHash ids must be unique and non-empty (${doc.id})`);
    ids.add(doc.id);
  }
  const attrs: [string, string][] = [
    ['ver', ESIGN_VERSION],
    ['sc', 'Y'],
    ['ts', formatIndianTimestamp(input.ts)],
    ['txn', input.txn],
    ['ekycId', ''],
    ['ekycIdType', ekycIdType],
    ['aspId', input.aspId],
    ['AuthMode', authMode],
    ['responseSigType', 'pkcs7'],
    ['responseUrl', input.responseUrl],
  ];
  const hashes = docs
    .map(
      (doc) =>
        `<InputHash id="${escapeXmlAttribute(doc.id)}" hashAlgorithm="SHA256" docInfo="${escapeXmlAttribute(doc.docInfo)}">` +
        `${doc.hashHex.toLowerCase()}</InputHash>`,
    )
    .join('');
  return `<Esign ${attrs.map(([name, value]) => `${name}="${escapeXmlAttribute(value)}"`).join(' ')}><Docs>${hashes}</Docs></Esign>`;
}

/**
 * The ESP side: parses a signed <Esign>, verifies it with the ASP's registered certificate, and validates it. Every
 * value returned is read from the signed content. Order: 992 (XML), 902/903 (ASP), 922 (no certificate), 911
 * (signature), then 907/908 (ts), 909/910 (txn), 901 (AuthMode), 905 (hashes).
 */
export function parseEsignRequest(xml: string, options: ParseEsignRequestOptions): ParseEsignRequestResult {
  const fail = (errCode: string, errMsg: string): ParseEsignRequestResult => ({ ok: false, errCode, errMsg });
  let unverified: Element;
  try {
    unverified = parseXmlStrict(xml).documentElement as Element;
  } catch (error) {
    return fail(EsignErrorCode.XML_PARSE_ERROR, (error as Error).message);
  }
  if (unverified.localName !== 'Esign' || unverified.namespaceURI)
    return fail(EsignErrorCode.XML_PARSE_ERROR, 'The document element must be Esign');

  const aspId = unverified.getAttribute('aspId') ?? '';
  if (!aspId.trim()) return fail(EsignErrorCode.ASP_ID_EMPTY, 'ASP id is empty');
  const certPem = options.aspCertificate(aspId);
  const known = options.isKnownAspId ? options.isKnownAspId(aspId) : !!certPem;
  if (!known) return fail(EsignErrorCode.ASP_ID_UNKNOWN, 'ASP id is not registered');
  if (!certPem) return fail(EsignErrorCode.ASP_CERTIFICATE, 'No certificate is registered for the ASP');

  const verified = verifyEnveloped(xml, certPem);
  if (!verified.ok) return fail(EsignErrorCode.SIGNATURE_INVALID, `Request signature invalid: ${verified.reason}`);

  let root: Element;
  try {
    root = parseXmlStrict(verified.signedXml).documentElement as Element;
  } catch (error) {
    if (error instanceof XmlInputError) return fail(EsignErrorCode.XML_PARSE_ERROR, error.message);
    throw error;
  }
  if (root.localName !== 'Esign' || root.namespaceURI || root.getAttribute('aspId') !== aspId)
    return fail(EsignErrorCode.SIGNATURE_INVALID, 'The signed content is not this request');
  const attr = (name: string): string => root.getAttribute(name) ?? '';

  const ts = attr('ts').trim();
  if (!ts) return fail(EsignErrorCode.TS_EMPTY, 'ts is empty');
  const timestamp = parseIndianTimestamp(ts);
  if (!timestamp) return fail(EsignErrorCode.TS_INVALID, 'ts is not YYYY-MM-DDThh:mm:ss');
  const skew = Math.abs(timestamp.getTime() - options.now.getTime());
  if (skew > (options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS))
    return fail(EsignErrorCode.TS_INVALID, `ts is ${Math.round(skew / 60_000)} minutes away from the ESP's clock`);

  const txn = attr('txn').trim();
  if (!txn) return fail(EsignErrorCode.TXN_EMPTY, 'txn is empty');
  if (options.isDuplicateTxn?.(aspId, txn)) return fail(EsignErrorCode.TXN_DUPLICATE, 'txn was already used');

  const authMode = attr('AuthMode').trim();
  if (!(AUTH_MODES as readonly string[]).includes(authMode))
    return fail(EsignErrorCode.INVALID_AUTH_MODE, `AuthMode "${authMode}" is not 1, 2 or 3`);

  const docs = childElements(root, 'Docs');
  if (docs.length !== 1) return fail(EsignErrorCode.NO_HASH, 'Docs is missing');
  const inputs = childElements(docs[0], 'InputHash');
  if (inputs.length === 0) return fail(EsignErrorCode.NO_HASH, 'No InputHash');
  const hashes: EsignDocHash[] = [];
  for (const input of inputs) {
    const id = (input.getAttribute('id') ?? '').trim();
    const hashHex = (input.textContent ?? '').trim();
    if (!id || hashes.some((h) => h.id === id))
      return fail(EsignErrorCode.NO_HASH, 'InputHash ids must be unique and non-empty');
    if ((input.getAttribute('hashAlgorithm') ?? '').toUpperCase() !== 'SHA256')
      return fail(EsignErrorCode.NO_HASH, `InputHash ${id}: hashAlgorithm must be SHA256`);
    if (!HASH_HEX.test(hashHex)) return fail(EsignErrorCode.NO_HASH, `InputHash ${id}: not a SHA-256 hash in hex`);
    hashes.push({ id, hashHex: hashHex.toLowerCase(), docInfo: input.getAttribute('docInfo') ?? '' });
  }

  return {
    ok: true,
    value: {
      ver: attr('ver'),
      ts,
      timestamp,
      txn,
      aspId,
      authMode: authMode as EsignAuthMode,
      ekycId: attr('ekycId'),
      ekycIdType: attr('ekycIdType'),
      responseSigType: attr('responseSigType'),
      responseUrl: attr('responseUrl'),
      hashes,
    },
  };
}
