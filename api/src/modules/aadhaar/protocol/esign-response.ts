import { X509Certificate } from 'node:crypto';
import { type Element } from '@xmldom/xmldom';
import { decodeBase64Strict, escapeXmlAttribute, formatIndianTimestamp } from './common';
import { childElements, parseXmlStrict, verifyEnveloped } from './xml-dsig';

/** 1 success, 0 failure, 2 pending. */
export type EsignResponseStatus = '1' | '0' | '2';

export interface EsignDocSignature {
  /** The InputHash id this signs. */
  id: string;
  /** Detached CMS (PKCS#7) whose messageDigest is the InputHash, DER. Absent when `error` is set. */
  cmsDer: Uint8Array | null;
  sigHashAlgorithm: string;
  /** A per-document error; null when there is none. */
  error: string | null;
}

export interface BuildEsignResponseInput {
  status: EsignResponseStatus;
  ts: Date;
  txn: string;
  /** The ESP's own reference for the transaction. */
  resCode: string;
  errCode?: string;
  errMsg?: string;
  userCertificateDer?: Uint8Array;
  signatures?: { id: string; cmsDer?: Uint8Array; error?: string }[];
}

export interface EsignResponseDocSignature {
  id: string;
  sigHashAlgorithm: string;
  error: string | null;
  cmsDer: Buffer | null;
}

interface EsignResponseCommon {
  txn: string;
  /** As sent (Indian time, no zone). */
  ts: string;
  resCode: string;
  /** null when the ESP sent none (or "NA"). */
  errCode: string | null;
  errMsg: string | null;
}

/** A success: the parser has checked the certificate is one and every document has a CMS and no error. */
export interface EsignSuccessResponse extends EsignResponseCommon {
  status: '1';
  userCertificateDer: Buffer;
  signatures: (EsignResponseDocSignature & { cmsDer: Buffer; error: null })[];
}

/** A failure (status 0, errCode present) or pending (status 2). */
export interface EsignOtherResponse extends EsignResponseCommon {
  status: '0' | '2';
  userCertificateDer: Buffer | null;
  signatures: EsignResponseDocSignature[];
}

/** Narrow on `status === '1'` to get the certificate and the CMS without null checks. */
export type EsignResponse = EsignSuccessResponse | EsignOtherResponse;

export type ParseEsignResponseResult = { ok: true; value: EsignResponse } | { ok: false; reason: string };

const STATUSES: readonly string[] = ['1', '0', '2'] satisfies EsignResponseStatus[];
/** What ESPs write in errCode/errMsg on success. */
const NOT_APPLICABLE = 'NA';

/** The unsigned <EsignResp>; the ESP signs it with `signEnveloped`. */
export function buildEsignResponse(input: BuildEsignResponseInput): string {
  if (!STATUSES.includes(input.status)) throw new Error(`Invalid status ${input.status}`);
  if (!input.txn) throw new Error('txn is required');
  if (input.status === '0' && !input.errCode) throw new Error('A failure needs an errCode');
  if (input.status === '1' && (!input.userCertificateDer || !input.signatures?.length))
    throw new Error('A success needs the user certificate and the document signatures');
  const attrs: [string, string][] = [
    ['status', input.status],
    ['ts', formatIndianTimestamp(input.ts)],
    ['txn', input.txn],
    ['resCode', input.resCode],
    ['errCode', input.errCode ?? NOT_APPLICABLE],
    ['errMsg', input.errMsg ?? NOT_APPLICABLE],
  ];
  let body = '';
  if (input.userCertificateDer)
    body += `<UserX509Certificate>${Buffer.from(input.userCertificateDer).toString('base64')}</UserX509Certificate>`;
  if (input.signatures?.length) {
    const ids = new Set<string>();
    body += '<Signatures>';
    for (const signature of input.signatures) {
      if (!signature.id || ids.has(signature.id)) throw new Error('DocSignature ids must be unique and non-empty');
      ids.add(signature.id);
      if (!signature.cmsDer && !signature.error) throw new Error(`DocSignature ${signature.id}: no CMS and no error`);
      const value = signature.cmsDer ? Buffer.from(signature.cmsDer).toString('base64') : '';
      body +=
        `<DocSignature id="${escapeXmlAttribute(signature.id)}" sigHashAlgorithm="SHA256" ` +
        `error="${escapeXmlAttribute(signature.error ?? '')}">${value}</DocSignature>`;
    }
    body += '</Signatures>';
  }
  return `<EsignResp ${attrs.map(([name, value]) => `${name}="${escapeXmlAttribute(value)}"`).join(' ')}>${body}</EsignResp>`;
}

/**
 * The ASP side: verifies an <EsignResp> with the ESP's certificate (only), checks it answers `expected.txn`, and reads
 * it from the signed content. A success must carry a readable user certificate and one CMS per document without an
 * error; a failure must carry an errCode.
 */
export function parseEsignResponse(
  xml: string,
  espCertPem: string,
  expected: { txn: string },
): ParseEsignResponseResult {
  const fail = (reason: string): ParseEsignResponseResult => ({ ok: false, reason });
  // Strict: comments, a second EsignResp, a ds:Object or another certificate in KeyInfo are refused outright.
  const verified = verifyEnveloped(xml, espCertPem, { strict: true });
  if (!verified.ok) return fail(`ESP signature invalid: ${verified.reason}`);
  let root: Element;
  try {
    root = parseXmlStrict(verified.signedXml).documentElement as Element;
  } catch (error) {
    return fail(`malformed response: ${(error as Error).message}`);
  }
  if (root.localName !== 'EsignResp' || root.namespaceURI)
    return fail('malformed response: the document element must be EsignResp');
  const attr = (name: string): string => (root.getAttribute(name) ?? '').trim();
  const orNull = (value: string): string | null => (value === '' || value === NOT_APPLICABLE ? null : value);

  const status = attr('status');
  if (!STATUSES.includes(status)) return fail(`malformed response: status "${status}"`);
  const txn = attr('txn');
  if (!expected.txn || txn !== expected.txn) return fail(`the response is for txn "${txn}", not "${expected.txn}"`);
  const errCode = orNull(attr('errCode'));
  const errMsg = orNull(root.getAttribute('errMsg') ?? '');

  let userCertificateDer: Buffer | null = null;
  const certificates = childElements(root, 'UserX509Certificate');
  if (certificates.length > 1) return fail('malformed response: more than one UserX509Certificate');
  if (certificates.length === 1 && (certificates[0].textContent ?? '').trim()) {
    userCertificateDer = decodeBase64Strict(certificates[0].textContent ?? '');
    if (!userCertificateDer) return fail('malformed response: UserX509Certificate is not base64');
    try {
      new X509Certificate(userCertificateDer);
    } catch {
      return fail('malformed response: UserX509Certificate is not a certificate');
    }
  }

  const signatures: EsignResponseDocSignature[] = [];
  const containers = childElements(root, 'Signatures');
  if (containers.length > 1) return fail('malformed response: more than one Signatures');
  for (const element of containers.length ? childElements(containers[0], 'DocSignature') : []) {
    const id = (element.getAttribute('id') ?? '').trim();
    if (!id || signatures.some((s) => s.id === id)) return fail('malformed response: DocSignature ids must be unique');
    const error = orNull((element.getAttribute('error') ?? '').trim());
    const text = (element.textContent ?? '').trim();
    const cmsDer = text ? decodeBase64Strict(text) : null;
    if (text && !cmsDer) return fail(`malformed response: DocSignature ${id} is not base64`);
    if (!cmsDer && !error) return fail(`malformed response: DocSignature ${id} is empty`);
    signatures.push({ id, sigHashAlgorithm: element.getAttribute('sigHashAlgorithm') ?? '', error, cmsDer });
  }

  const common: EsignResponseCommon = { txn, ts: attr('ts'), resCode: attr('resCode'), errCode, errMsg };
  if (status === '1') {
    if (!userCertificateDer) return fail('malformed response: a success without UserX509Certificate');
    const signed = signatures.filter((s): s is EsignSuccessResponse['signatures'][number] => !!s.cmsDer && !s.error);
    if (signatures.length === 0 || signed.length !== signatures.length)
      return fail('malformed response: a success without a signature for every document');
    return { ok: true, value: { status, ...common, userCertificateDer, signatures: signed } };
  }
  if (status === '0' && !errCode) return fail('malformed response: a failure without errCode');
  return { ok: true, value: { status: status as '0' | '2', ...common, userCertificateDer, signatures } };
}
