import type { Hash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { SignatureLevel } from '@esign/contract';
import type { Signer } from '@libpdf/core';
import { Revocation, RevocationRecord } from '../evidence/revocation';
import { Timestamps, type TimestampToken } from '../evidence/timestamps';
import { ValidationDataGatherer } from '../evidence/validation-data';
import {
  assembleCms,
  messageDigestOf,
  signatureImprint,
  signedAttributesFor,
  withSignatureTimestamp,
  type CmsParts,
} from './cms';
import { appendCompletionCertificate, type CompletionCertificateInput } from './completion-certificate';
import {
  SigningEngine,
  type ArchivedDocument,
  type DocumentInput,
  type FieldSpec,
  type FinishedSignature,
  type PreparedSignature,
  type StampInput,
} from './engine';
import { assertTimestampCovers, byteRangeDigestOf, embedExternal, SignatureTooLargeError } from './external';
import { RevisionCanvas } from './revision/canvas';
import { SigningDocument } from './revision/document';
import { signatureContents, writeDss } from './revision/dss';
import { revisable } from './revision/revisable';
import { Revision } from './revision/revision';
import { placeSignature, signatureValue, writeSigned, type WrittenSignature } from './revision/signature';
import { stampParty } from './stamp';

/** A party's signature made here: a one-time certificate and its chain of two, and a timestamp token. */
const PARTY_PLACEHOLDER_BYTES = 16_384;
/** The certificate of completion and its seal, and the archive timestamp: room for chains and a timestamp token. */
const SEAL_PLACEHOLDER_BYTES = 32_768;

/** A signature prepared by this engine: the revision written with its placeholders, the whole file made on demand. */
class PreparedRevision implements PreparedSignature {
  private whole: Uint8Array | null = null;
  constructor(readonly written: WrittenSignature & { structure: ReturnType<Revision['write']>['structure'] }) {}

  get document(): Uint8Array {
    this.whole ??= Buffer.concat([this.written.base.bytes, this.written.update]);
    return this.whole;
  }

  get digest(): Uint8Array {
    return this.written.digest;
  }

  get key(): string {
    return this.written.base.digestWith(this.written.update).toString('hex');
  }

  /** The document with `cms` (DER) in /Contents: the signed version, its structure carried forward. */
  signed(cms: Uint8Array): SigningDocument {
    const { base, contents, signature } = this.written;
    const hex = Buffer.from(cms).toString('hex');
    if (hex.length > contents.hexLength) throw new SignatureTooLargeError(cms.length, contents.hexLength / 2);
    const update = Buffer.from(this.written.update);
    update.write(hex, contents.offset, 'latin1');
    const read = new Map([[signature.num, signatureValue(update, signature)]]);
    return base.appended(update, this.written.structure(read));
  }
}

/** A prepared file read back from storage (an Aadhaar or DSC signature's): its digest found again in its bytes. */
class StoredPrepared implements PreparedSignature {
  constructor(
    readonly document: Uint8Array,
    readonly digest: Uint8Array,
  ) {}

  get key(): string {
    return SigningDocument.of(this.document).key;
  }
}

/**
 * The signing engine (ARCHITECTURE.md, "Signing engine" and "The incremental writer"): every revision an incremental
 * update written by our writer over @esign/pdf-syntax, reading only what the revision changes; what it draws (stamps,
 * fields, the certificate of completion) made with @libpdf/core in a scratch document; the CMS built by cms.ts.
 */
@Injectable()
export class IncrementalEngine extends SigningEngine {
  constructor(
    private readonly timestamps: Timestamps,
    private readonly revocation: Revocation,
  ) {
    super();
  }

  open(document: Uint8Array, hash?: Hash): SigningDocument {
    return SigningDocument.of(document, hash);
  }

  async prepareParty(input: DocumentInput, stamp: StampInput, field: FieldSpec): Promise<PreparedSignature> {
    const revision = new Revision(await revisable(input));
    // The stamp, the party's fields and attachments: one incremental update with the signature field.
    const canvas = new RevisionCanvas(revision);
    const widget = stampParty(canvas, stamp, field.signingTime);
    canvas.finish();
    const placed = placeSignature(
      revision,
      field,
      field.widget === undefined ? widget : field.widget,
      field.placeholderBytes ?? PARTY_PLACEHOLDER_BYTES,
    );
    return new PreparedRevision(writeSigned(revision, placed));
  }

  async prepareCompletion(
    input: DocumentInput,
    certificate: CompletionCertificateInput,
    field: FieldSpec,
  ): Promise<PreparedSignature> {
    const revision = new Revision(await revisable(input));
    const canvas = new RevisionCanvas(revision);
    appendCompletionCertificate(canvas.scratch, certificate, canvas.fonts);
    const root = revision.pageTreeRoot();
    const pages = canvas.scratch.getPages();
    // The drawing's page tree is the document's: its pages' /Parent becomes the document's root node.
    const scratchRoot = pages[0]?.dict.getRef('Parent');
    if (scratchRoot) canvas.substitute(scratchRoot, root);
    canvas.finish();
    const rootNode = revision.value(root.num);
    const inherits = rootNode instanceof Map && (rootNode.has('Rotate') || rootNode.has('CropBox'));
    const copied = pages.map((page) => {
      const ref = canvas.copy(page.ref);
      const dict = revision.value(ref.num);
      // The root node's /Rotate or /CropBox would be inherited by the new pages: they say their own.
      if (inherits && dict instanceof Map) {
        dict.set('Rotate', 0);
        const media = dict.get('MediaBox');
        if (media !== undefined) dict.set('CropBox', media);
      }
      return ref;
    });
    revision.appendPages(copied);
    const placed = placeSignature(revision, { ...field }, null, SEAL_PLACEHOLDER_BYTES);
    return new PreparedRevision(writeSigned(revision, placed));
  }

  preparedFrom(document: Uint8Array): PreparedSignature {
    return new StoredPrepared(document, byteRangeDigestOf(document));
  }

  signedAttributes(digest: Uint8Array, certificateDer: Uint8Array): Uint8Array {
    return signedAttributesFor(digest, certificateDer);
  }

  assemble(parts: CmsParts): Uint8Array {
    return assembleCms(parts);
  }

  async signWith(digest: Uint8Array, signer: Signer): Promise<Uint8Array> {
    const certificateDer = signer.certificate;
    const signedAttributesDer = signedAttributesFor(digest, certificateDer);
    const signature = await signer.sign(signedAttributesDer, 'SHA-256');
    return assembleCms({
      digest,
      signedAttributesDer,
      signature,
      certificateDer,
      chainDers: signer.certificateChain ?? [],
      signatureAlgorithm: signer.keyType === 'EC' ? 'ECDSA-SHA256' : 'RSA-SHA256',
    });
  }

  async finish(prepared: PreparedSignature, cms: Uint8Array, level: SignatureLevel): Promise<FinishedSignature> {
    if (!Buffer.from(messageDigestOf(cms)).equals(Buffer.from(prepared.digest)))
      throw new Error('The signature signs another document than the one prepared for it.');
    let timestamp: TimestampToken | null = null;
    let signed = cms;
    if (level !== 'B-B') {
      timestamp = await this.timestamps.timestamp(signatureImprint(cms));
      signed = withSignatureTimestamp(cms, timestamp.token);
    }
    const document =
      prepared instanceof PreparedRevision
        ? prepared.signed(signed)
        : SigningDocument.of(embedExternal(prepared.document, signed));
    return {
      signed: document,
      // The whole file only for a caller that asks (the seal job stores the parts: signed.parts).
      get document() {
        return document.bytes;
      },
      cms: signed,
      level: timestamp ? 'B-T' : 'B-B',
      timestamp,
    };
  }

  async archive(input: DocumentInput, level: 'B-LT' | 'B-LTA'): Promise<ArchivedDocument> {
    let document = await revisable(input);
    // The DSS: one revision holding every signature's validation data (and the catalog naming it).
    const record = new RevocationRecord();
    const dssRevision = new Revision(document);
    const contents = signatureContents(dssRevision);
    const gatherer = new ValidationDataGatherer(this.revocation.provider(record));
    const evidence = [];
    for (const one of contents) evidence.push(await gatherer.gather(one));
    writeDss(dssRevision, evidence, new Date());
    const dss = dssRevision.write();
    document = document.appended(dss.update.bytes, dss.structure(new Map()));
    let timestamp: TimestampToken | null = null;
    if (level === 'B-LTA') {
      // The document timestamp: an RFC 3161 token over the whole file, as its last revision.
      const revision = new Revision(document);
      const placed = placeSignature(
        revision,
        { fieldName: `esign_archive_${Date.now().toString(36)}`, reason: '', signingTime: new Date() },
        null,
        SEAL_PLACEHOLDER_BYTES,
        'DocTimeStamp',
      );
      const prepared = new PreparedRevision(writeSigned(revision, placed));
      timestamp = await this.timestamps.timestamp(prepared.digest);
      document = prepared.signed(timestamp.token);
      assertTimestampCovers(document.bytes, prepared.digest);
    }
    const archived = document;
    return {
      signed: archived,
      get document() {
        return archived.bytes;
      },
      level,
      gaps: record.gaps,
      timestamp,
      signatures: contents.length,
    };
  }
}
