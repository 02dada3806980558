import { X509Certificate } from 'node:crypto';
import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { decodeBase64Strict } from './common';

/**
 * Enveloped XML-DSig as the CCA eSign API uses it, in both directions: the ASP signs its <Esign> request and the ESP
 * its <EsignResp>, each with one Signature over the whole document (Reference URI=""), enveloped-signature then
 * inclusive C14N 1.0, SHA-256 digest, RSA-SHA256, and the signer's certificate in KeyInfo for information only.
 */

export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const SHA256_DIGEST = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';

/** Requests and responses are a few kilobytes (a certificate and a CMS per document); anything far larger is abuse. */
export const MAX_XML_CHARS = 2_000_000;

export type VerifyResult = { ok: true; signedXml: string } | { ok: false; reason: string };

/** The XML cannot be used at all: too large, a DTD (XXE, entity expansion), or not well-formed. */
export class XmlInputError extends Error {}

/**
 * Parses untrusted XML. DTDs are refused outright (no entity of any kind is legitimate in these messages), and any
 * warning or error of the parser, not only fatal ones, stops parsing.
 */
export function parseXmlStrict(xml: string): Document {
  if (typeof xml !== 'string' || xml.length === 0) throw new XmlInputError('empty XML');
  if (xml.length > MAX_XML_CHARS) throw new XmlInputError(`XML larger than ${MAX_XML_CHARS} characters`);
  if (/<!DOCTYPE|<!ENTITY|<!ELEMENT|<!ATTLIST/i.test(xml))
    throw new XmlInputError('DOCTYPE and entity declarations are not allowed');
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        throw new XmlInputError(`${level}: ${message}`);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    throw new XmlInputError(`malformed XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!doc.documentElement) throw new XmlInputError('malformed XML: no document element');
  return doc;
}

/** Child elements of `parent`, optionally only those with the given namespace and local name. */
export function childElements(parent: Element, localName?: string, namespace: string | null = null): Element[] {
  const result: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== node.ELEMENT_NODE) continue;
    const element = node as Element;
    if (localName === undefined || (element.localName === localName && element.namespaceURI === namespace))
      result.push(element);
  }
  return result;
}

/** Appends an enveloped signature, as the last child of the document element, over the whole document. */
export function signEnveloped(xml: string, keyPem: string, certPem: string): string {
  const doc = parseXmlStrict(xml);
  if (doc.getElementsByTagNameNS(DSIG_NS, 'Signature').length > 0) throw new Error('The document is already signed');
  const sig = new SignedXml({
    privateKey: keyPem,
    publicCert: certPem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: C14N,
  });
  // isEmptyUri writes URI="" (otherwise xml-crypto adds an Id attribute to the root and references "#_0").
  sig.addReference({
    xpath: '/*',
    isEmptyUri: true,
    transforms: [ENVELOPED_SIGNATURE, C14N],
    digestAlgorithm: SHA256_DIGEST,
  });
  sig.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  return sig.getSignedXml();
}

export interface VerifyOptions {
  /**
   * Also refuse what the signature does not cover or what canonicalisation drops, even when the signature is valid:
   * comments and processing instructions (other than the XML declaration), a second element named like the document
   * element anywhere (a wrapped copy), anything in the Signature besides SignedInfo, SignatureValue and KeyInfo (no
   * ds:Object), and certificates in KeyInfo other than the trusted one and those that issued it. The ASP reads the
   * ESP's answer this way: a genuine answer never has them, so their presence is an attempt.
   */
  strict?: boolean;
}

/**
 * Verifies the one enveloped signature of the document with `trustedCertPem` only: a certificate or key in KeyInfo is
 * ignored. The profile is enforced exactly (one Signature, child of the root, one Reference with URI="" and the two
 * transforms, SHA-256, RSA-SHA256). On success `signedXml` is what was actually signed (the canonical document without
 * its Signature): read values from it, not from the input.
 */
export function verifyEnveloped(xml: string, trustedCertPem: string, options: VerifyOptions = {}): VerifyResult {
  let doc: Document;
  try {
    doc = parseXmlStrict(xml);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const root = doc.documentElement as Element;
  if (options.strict) {
    const unexpected = unsignedContent(doc, root);
    if (unexpected) return { ok: false, reason: unexpected };
  }

  const signatures = Array.from(doc.getElementsByTagNameNS(DSIG_NS, 'Signature'));
  if (signatures.length === 0) return { ok: false, reason: 'the document is not signed' };
  if (signatures.length > 1) return { ok: false, reason: 'the document contains more than one Signature element' };
  const signature = signatures[0];
  if (signature.parentNode !== root)
    return { ok: false, reason: 'the Signature is not a child of the document element' };

  const profile = checkProfile(signature);
  if (profile) return { ok: false, reason: profile };

  let trusted: string;
  let trustedCertificate: X509Certificate;
  try {
    trustedCertificate = new X509Certificate(trustedCertPem);
    trusted = trustedCertificate.toString();
  } catch {
    return { ok: false, reason: 'the trusted certificate cannot be read' };
  }
  if (options.strict) {
    const keyInfo = checkKeyInfo(signature, trustedCertificate);
    if (keyInfo) return { ok: false, reason: keyInfo };
  }

  const verifier = new SignedXml({ publicCert: trusted, getCertFromKeyInfo: () => null });
  try {
    verifier.loadSignature(signature);
    // checkSignature returns false when a digest does not match and throws when the signature value does not.
    if (!verifier.checkSignature(xml)) return { ok: false, reason: 'the digest of the signed document does not match' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      reason: message.startsWith('invalid signature')
        ? 'the signature value is not valid for the trusted certificate'
        : `signature check failed: ${message}`,
    };
  }
  const signed = verifier.getSignedReferences();
  if (signed.length !== 1) return { ok: false, reason: 'expected exactly one signed reference' };
  // URI="" dereferences to the document element: the signed content must be the root (element name included).
  try {
    const signedRoot = parseXmlStrict(signed[0]).documentElement as Element;
    if (signedRoot.localName !== root.localName || signedRoot.namespaceURI !== root.namespaceURI)
      return { ok: false, reason: 'the signed reference is not the document element' };
  } catch (error) {
    return { ok: false, reason: `the signed content cannot be read: ${(error as Error).message}` };
  }
  return { ok: true, signedXml: signed[0] };
}

/** The strict checks on the whole document (see VerifyOptions.strict); null when there is nothing to refuse. */
function unsignedContent(doc: Document, root: Element): string | null {
  let sameName = 0;
  const walk = (node: Node): string | null => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === child.COMMENT_NODE) return 'the document contains a comment';
      if (child.nodeType === child.PROCESSING_INSTRUCTION_NODE && !(node === doc && child.nodeName === 'xml'))
        return 'the document contains a processing instruction';
      if (child.nodeType === child.ELEMENT_NODE) {
        const element = child as Element;
        if (element.localName === root.localName && ++sameName > 1)
          return `the document contains more than one ${root.localName} element`;
        const found = walk(element);
        if (found) return found;
      }
    }
    return null;
  };
  const found = walk(doc as unknown as Node);
  if (found) return found;
  for (const signature of Array.from(doc.getElementsByTagNameNS(DSIG_NS, 'Signature'))) {
    const names = childElements(signature).map((e) =>
      e.namespaceURI === DSIG_NS ? e.localName : `{${e.namespaceURI}}`,
    );
    const expected =
      names.length === 3 ? ['SignedInfo', 'SignatureValue', 'KeyInfo'] : ['SignedInfo', 'SignatureValue'];
    if (names.join() !== expected.join())
      return 'the Signature may only hold SignedInfo, SignatureValue and KeyInfo (no Object)';
  }
  return null;
}

/**
 * KeyInfo is not signed and never used to verify; in strict mode its certificates must still be the trusted one (and
 * the certificates that issued it, as a chain), so a response naming another signer is refused.
 */
function checkKeyInfo(signature: Element, trusted: X509Certificate): string | null {
  const keyInfos = childElements(signature, 'KeyInfo', DSIG_NS);
  if (keyInfos.length === 0) return null;
  const certificates = Array.from(keyInfos[0].getElementsByTagNameNS(DSIG_NS, 'X509Certificate'));
  if (certificates.length === 0) return null;
  const accepted: X509Certificate[] = [trusted];
  let hasTrusted = false;
  for (const element of certificates) {
    const bytes = decodeBase64Strict(element.textContent ?? '');
    let certificate: X509Certificate;
    try {
      if (!bytes) throw new Error('not base64');
      certificate = new X509Certificate(bytes);
    } catch {
      return 'a KeyInfo certificate cannot be read';
    }
    if (certificate.raw.equals(trusted.raw)) {
      hasTrusted = true;
      continue;
    }
    if (!accepted.some((c) => c.checkIssued(certificate) && c.verify(certificate.publicKey)))
      return "a KeyInfo certificate is not the ESP's certificate (nor its issuer)";
    accepted.push(certificate);
  }
  return hasTrusted ? null : "the KeyInfo certificates do not include the ESP's certificate";
}

/** Returns what is wrong with the Signature's SignedInfo, or null when it is exactly the eSign profile. */
function checkProfile(signature: Element): string | null {
  const signedInfos = childElements(signature, 'SignedInfo', DSIG_NS);
  if (signedInfos.length !== 1) return 'the Signature must have exactly one SignedInfo';
  const signedInfo = signedInfos[0];
  const algorithm = (element: Element, name: string): string | null => {
    const found = childElements(element, name, DSIG_NS);
    return found.length === 1 ? found[0].getAttribute('Algorithm') : null;
  };
  if (algorithm(signedInfo, 'CanonicalizationMethod') !== C14N) return `the canonicalization method must be ${C14N}`;
  if (algorithm(signedInfo, 'SignatureMethod') !== RSA_SHA256) return `the signature method must be ${RSA_SHA256}`;
  const references = childElements(signedInfo, 'Reference', DSIG_NS);
  if (references.length !== 1) return 'the signature must have exactly one Reference';
  const reference = references[0];
  // xml-crypto treats a missing URI like URI="", so its presence is checked here.
  if (!reference.hasAttribute('URI') || reference.getAttribute('URI') !== '')
    return 'the Reference must cover the whole document (URI="")';
  if (algorithm(reference, 'DigestMethod') !== SHA256_DIGEST) return `the digest method must be ${SHA256_DIGEST}`;
  const transformsElements = childElements(reference, 'Transforms', DSIG_NS);
  const transforms =
    transformsElements.length === 1
      ? childElements(transformsElements[0], 'Transform', DSIG_NS).map((t) => t.getAttribute('Algorithm'))
      : [];
  if (transforms.length !== 2 || transforms[0] !== ENVELOPED_SIGNATURE || transforms[1] !== C14N)
    return 'the transforms must be enveloped-signature then inclusive C14N';
  if (childElements(signature, 'SignatureValue', DSIG_NS).length !== 1)
    return 'the Signature must have one SignatureValue';
  return null;
}
