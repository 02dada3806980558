/**
 * @esign/verifier: what `esign-cli verify` and the API's verification report both run over a signed PDF. Every
 * signature's integrity, signer, method, chain, timestamp, revocation data and PAdES level; document timestamps; what
 * the signatures cover; and, at a given date, whether each would still validate using only what the file carries.
 */
export { verifyDocument } from './report';
export type {
  CoverageReport,
  DocumentReport,
  DocumentTimestampReport,
  DssReport,
  SignatureReport,
  TimestampReport,
  VerifyOptions,
} from './report';
export type { AtCheck } from './levels';
export type { RevocationStatus } from './revocation';
export { checkChain, certificatesFromPem, commonName, type ChainCheck } from './chain';
export { checkCms, type CmsCheck } from './cms';
export { checkTimestampToken, type TimestampCheck } from './timestamp';
export { findSignatures, looksLikePdf, type ByteRange, type PdfSignature } from './pdf';
export { signatureMethod, SIGNATURE_METHODS, type SignatureMethod } from './method';
export { pdfText, readCertificate, type AuditCheck, type CompletionCertificate } from './audit';
