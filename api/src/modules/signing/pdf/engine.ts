import type { Signer } from '@libpdf/core';
import type { PlacedBox } from '../../requests/party.entity';
import type { CompletionCertificateInput } from './completion-certificate';

/** What a signer's boxes show: their image (drawn or uploaded), or their name typed in normal or italic. */
export interface StampInput {
  boxes: PlacedBox[];
  image?: Uint8Array | null;
  text?: { value: string; italic: boolean } | null;
  /** A small line under the name or image, e.g. 'Signed using Aadhaar eSign'. */
  caption?: string | null;
}

/** One PAdES signature: who signs (certificate and key), the field, and what the signature dictionary says. */
export interface SignatureSpec {
  signer: Signer;
  /** Unique in the document (no dots). */
  fieldName: string;
  reason: string;
  location?: string | null;
  contactInfo?: string | null;
  signingTime: Date;
}

/**
 * The signing engine, behind one interface with one caller (SealService): every change it makes is appended as an
 * incremental update ending in a PAdES B-B signature, so earlier signatures stay valid. ARCHITECTURE.md says why
 * @libpdf/core implements it.
 */
export abstract class SigningEngine {
  /** Stamps the party's boxes and signs, in one incremental update. */
  abstract signParty(document: Uint8Array, stamp: StampInput, signature: SignatureSpec): Promise<Uint8Array>;
  /** Appends the certificate of completion pages and seals the whole document. */
  abstract complete(
    document: Uint8Array,
    certificate: CompletionCertificateInput,
    seal: SignatureSpec,
  ): Promise<Uint8Array>;
}

/** The document cannot take another signature without breaking the ones it carries (a rewrite would be needed). */
export class DocumentNotSignableError extends Error {
  constructor(reason: string) {
    super(`The document cannot be signed without breaking its earlier signatures (${reason}).`);
    this.name = 'DocumentNotSignableError';
  }
}
