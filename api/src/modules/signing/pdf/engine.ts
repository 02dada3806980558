import type { Hash } from 'node:crypto';
import type { AttachmentType, FieldKind, SignatureLevel } from '@esign/contract';
import type { Signer } from '@libpdf/core';
import type { PlacedBox } from '../../documents/pdf/geometry';
import type { RevocationGap } from '../evidence/revocation';
import type { TimestampToken } from '../evidence/timestamps';
import type { CmsParts } from './cms';
import type { CompletionCertificateInput } from './completion-certificate';
import type { SigningDocument } from './revision/document';

/** What a signer's boxes show: their image (drawn or uploaded), or their name typed in normal or italic. */
export interface StampInput {
  boxes: PlacedBox[];
  image?: Uint8Array | null;
  text?: { value: string; italic: boolean } | null;
  /**
   * The visible signature (issue 19): in the signer's first box, beside the image or name and inside a thin frame,
   * these lines ('Digitally signed by {name}', the date and time, the method, the Ref ID). The other boxes carry the
   * image or name alone.
   */
  signedBy?: string[] | null;
  /**
   * The party's filled fields (issue 21), drawn flattened into the same revision as the stamp, before the signature:
   * the signature covers exactly what this party filled. Signature-kind fields are not here (their boxes are in
   * `boxes`).
   */
  fields?: FieldDrawing[] | null;
  /** The party's attachments, embedded as file attachments of the same revision. */
  attachments?: AttachmentEmbedding[] | null;
}

/** One field's value as drawn into the document (issue 21). */
export interface FieldDrawing {
  id: string;
  kind: Exclude<FieldKind, 'signature'>;
  /** The label (or the kind's name): a radio group's or checkbox's caption, an attachment's line. */
  label: string;
  /** 1-based page. */
  page: number;
  /** [x1, y1, x2, y2] in points from the displayed page's top-left corner (crop box turned by /Rotate, y down). */
  box: [number, number, number, number];
  /**
   * The text drawn: the value as stored ('true'/'false' for a checkbox; the option chosen; an attachment's file
   * name; a date field's day, filled by partySignatureSpec at signing). null: nothing drawn (an empty optional field;
   * an unchecked box still shows its empty square).
   */
  value: string | null;
  /** A radio group's options (each drawn with its mark, the chosen one filled); null otherwise. */
  options: string[] | null;
}

/** An attachment as embedded in the party's revision (its name in the EmbeddedFiles tree is unique per field). */
export interface AttachmentEmbedding {
  fieldId: string;
  /** The file name the signer gave. */
  name: string;
  type: AttachmentType;
  bytes: Uint8Array;
  /** SHA-256 (hex) of the bytes. */
  sha256: string;
  /** e.g. 'Cancelled cheque, attached by Asha Rao' */
  description: string;
}

/** Where the signature's widget is: the box (PDF user space of that page) clicking which shows the signature. */
export interface WidgetPlace {
  /** 1-based page number. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The signature dictionary of one signature: its field, what it says, and its widget. */
export interface FieldSpec {
  /** Unique in the document (no dots). */
  fieldName: string;
  reason: string;
  location?: string | null;
  contactInfo?: string | null;
  signingTime: Date;
  /** /Name: the signer's name, for display. */
  name?: string | null;
  /** The signer's first box; null or absent: an invisible widget on the first page. */
  widget?: WidgetPlace | null;
  /**
   * Bytes reserved for the CMS in /Contents (written as twice as many hex digits): the certificate chain, the
   * signed attributes and the signature-timestamp token with the TSA's chain. 16 KB by default; an outside CMS
   * (an ESP's, a token's chain) gets more.
   */
  placeholderBytes?: number;
}

/**
 * A document for the engine: its bytes as stored, or a SigningDocument (a version the engine made or opened, whose
 * structure and running SHA-256 are known: the seal job passes each signature's result to the next step).
 */
export type DocumentInput = Uint8Array | SigningDocument;

/** A document ready for its signature: the update with an empty /Contents, and the SHA-256 its /ByteRange covers. */
export interface PreparedSignature {
  /** The prepared file (made on first use: the seal job never needs it whole). */
  readonly document: Uint8Array;
  /** The messageDigest the CMS must carry (the InputHash an ESP signs; what a token's signed attributes carry). */
  readonly digest: Uint8Array;
  /** SHA-256 (hex) of the prepared file: its storage key. */
  readonly key: string;
}

/** A signature in the document, and the level it reached (B-B, or B-T with its timestamp). */
export interface FinishedSignature {
  /** The signed document: its bytes, its SHA-256 (`key`), and what the next revision needs of it. */
  signed: SigningDocument;
  document: Uint8Array;
  cms: Uint8Array;
  level: SignatureLevel;
  timestamp: TimestampToken | null;
}

/** The document's validation data (B-LT) and, for B-LTA, its archive timestamp. */
export interface ArchivedDocument {
  signed: SigningDocument;
  document: Uint8Array;
  level: 'B-LT' | 'B-LTA';
  /** Certificates whose revocation data could not be had (recorded, never invented). */
  gaps: RevocationGap[];
  /** The document timestamp (B-LTA), else null. */
  timestamp: TimestampToken | null;
  /** How many signatures (and document timestamps) the DSS covers. */
  signatures: number;
}

/**
 * The signing engine (issue 19): one path for the three methods, behind one interface whose one caller is the seal
 * job (SealService) and its external-signature intake.
 *
 *   prepare   the stamp and the signature field with its widget and a zero-filled /Contents, one incremental
 *             update; its /ByteRange's SHA-256 is what the CMS must sign
 *   sign      a key held here (the e-Signature's one-time certificate, the organisation's seal): signWith(); an
 *             ESP's CMS as it came (Aadhaar); a token's signature over signedAttributes(), assemble()d (DSC)
 *   finish    the signature-timestamp token (B-T) added to the CMS, which is written into /Contents
 *   archive   at completion: the DSS with every chain's certificates and revocation data (B-LT), then a document
 *             timestamp over the whole file as the last revision (B-LTA)
 *
 * Every change is an incremental update, so earlier signatures stay valid: written by the engine's own writer of
 * incremental updates over @esign/pdf-syntax, the drawing made with @libpdf/core (ARCHITECTURE.md, "The incremental
 * writer", says why).
 */
export abstract class SigningEngine {
  /** A stored document opened for a series of revisions; `hash`: SHA-256 over its bytes so far, when known. */
  abstract open(document: Uint8Array, hash?: Hash): SigningDocument;
  /** Stamps the party's boxes (the visible signature in the first) and adds its signature field, unsigned. */
  abstract prepareParty(document: DocumentInput, stamp: StampInput, field: FieldSpec): Promise<PreparedSignature>;
  /** Appends the certificate of completion's pages and adds the seal's signature field, unsigned. */
  abstract prepareCompletion(
    document: DocumentInput,
    certificate: CompletionCertificateInput,
    field: FieldSpec,
  ): Promise<PreparedSignature>;
  /** A prepared document read back from storage (its /Contents still empty): the digest its CMS must carry. */
  abstract preparedFrom(document: Uint8Array): PreparedSignature;
  /** The PAdES signed attributes a token signs for this digest with this certificate (DER SET). */
  abstract signedAttributes(digest: Uint8Array, certificateDer: Uint8Array): Uint8Array;
  /** A token's signature over signedAttributes() as a CMS (checked with the certificate's key). */
  abstract assemble(parts: CmsParts): Uint8Array;
  /** The CMS of a key held here over `digest`. */
  abstract signWith(digest: Uint8Array, signer: Signer): Promise<Uint8Array>;
  /**
   * The CMS into the prepared document, with a signature-timestamp token first unless `level` is B-B. Throws
   * TimestampUnavailableError when no TSA answers (nothing is embedded: the caller retries, never downgrades).
   */
  abstract finish(prepared: PreparedSignature, cms: Uint8Array, level: SignatureLevel): Promise<FinishedSignature>;
  /** B-LT: the DSS; B-LTA: the DSS, then a document timestamp as the last revision. */
  abstract archive(document: DocumentInput, level: 'B-LT' | 'B-LTA'): Promise<ArchivedDocument>;
}

/** The document cannot take another signature without breaking the ones it carries (a rewrite would be needed). */
export class DocumentNotSignableError extends Error {
  constructor(reason: string) {
    super(`The document cannot be signed without breaking its earlier signatures (${reason}).`);
    this.name = 'DocumentNotSignableError';
  }
}

/** At least `floor`: B-B < B-T < B-LT < B-LTA. */
export const levelRank = (level: SignatureLevel): number => ['B-B', 'B-T', 'B-LT', 'B-LTA'].indexOf(level);
