import { Injectable } from '@nestjs/common';
import type { SignatureLevel } from '@esign/contract';
import { PDF, type DigestAlgorithm, type Signer, type TimestampAuthority } from '@libpdf/core';
import { Revocation, RevocationRecord } from '../evidence/revocation';
import { Timestamps, type TimestampToken } from '../evidence/timestamps';
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
  DocumentNotSignableError,
  SigningEngine,
  type ArchivedDocument,
  type FieldSpec,
  type FinishedSignature,
  type PreparedSignature,
  type StampInput,
} from './engine';
import { byteRangeDigestOf, embedExternal, placeSignatureField } from './external';
import { openForSigning, stampParty } from './stamp';

/** A party's signature made here: a one-time certificate and its chain of two, and a timestamp token. */
const PARTY_PLACEHOLDER_BYTES = 16_384;
/** The certificate of completion and its seal: room for the seal's chain and a timestamp token with the TSA's. */
const SEAL_PLACEHOLDER_BYTES = 32_768;

/** @libpdf/core's TimestampAuthority over ours, keeping the checked token it got (the archive's record). */
class RecordingAuthority implements TimestampAuthority {
  last: TimestampToken | null = null;
  /** The digest the token was asked for (what the document timestamp's /ByteRange must hash to). */
  digest: Uint8Array | null = null;
  constructor(private readonly timestamps: Timestamps) {}
  async timestamp(digest: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
    if (algorithm !== 'SHA-256') throw new Error(`Document timestamps are SHA-256 here, not ${algorithm}.`);
    this.digest = Uint8Array.from(digest);
    this.last = await this.timestamps.timestamp(digest);
    return this.last.token;
  }
}

/** The signing engine on @libpdf/core (ARCHITECTURE.md, "Signing engine"). */
@Injectable()
export class LibPdfEngine extends SigningEngine {
  constructor(
    private readonly timestamps: Timestamps,
    private readonly revocation: Revocation,
  ) {
    super();
  }

  async prepareParty(document: Uint8Array, stamp: StampInput, field: FieldSpec): Promise<PreparedSignature> {
    const pdf = await openForSigning(document);
    // The stamp, the party's fields and attachments: one incremental update with the signature field.
    const widget = stampParty(pdf, stamp, field.signingTime);
    const placed = await placeSignatureField(
      pdf,
      { ...field, widget: field.widget === undefined ? widget : field.widget },
      field.placeholderBytes ?? PARTY_PLACEHOLDER_BYTES,
    );
    return { document: placed.prepared, digest: placed.byteRangeDigest };
  }

  async prepareCompletion(
    document: Uint8Array,
    certificate: CompletionCertificateInput,
    field: FieldSpec,
  ): Promise<PreparedSignature> {
    const pdf = await openForSigning(document);
    await appendCompletionCertificate(pdf, certificate);
    const placed = await placeSignatureField(pdf, { ...field, widget: null }, SEAL_PLACEHOLDER_BYTES);
    return { document: placed.prepared, digest: placed.byteRangeDigest };
  }

  preparedFrom(document: Uint8Array): PreparedSignature {
    return { document, digest: byteRangeDigestOf(document) };
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
    return {
      document: embedExternal(prepared.document, signed),
      cms: signed,
      level: timestamp ? 'B-T' : 'B-B',
      timestamp,
    };
  }

  async archive(document: Uint8Array, level: 'B-LT' | 'B-LTA'): Promise<ArchivedDocument> {
    const record = new RevocationRecord();
    const pdf = await PDF.load(document);
    const validated = await pdf.addValidationData({ revocationProvider: this.revocation.provider(record) });
    const rewrite = validated.warnings.find((w) => /incremental save not possible/i.test(w.message));
    if (rewrite) throw new DocumentNotSignableError(rewrite.message);
    let bytes = validated.bytes;
    let timestamp: TimestampToken | null = null;
    if (level === 'B-LTA') {
      const authority = new RecordingAuthority(this.timestamps);
      const archived = await (
        await PDF.load(bytes)
      ).addTimestamp({
        timestampAuthority: authority,
        fieldName: `esign_archive_${Date.now().toString(36)}`,
        estimatedSize: SEAL_PLACEHOLDER_BYTES,
      });
      bytes = archived.bytes;
      timestamp = authority.last;
      assertTimestampCovers(bytes, authority.digest);
    }
    return { document: bytes, level, gaps: record.gaps, timestamp, signatures: validated.signatureCount };
  }
}

/**
 * The document timestamp just added must hash to what its token was asked for. A kill test found, rarely, a sealed
 * file whose archive timestamp's imprint did not match its /ByteRange (cause not found yet: see ARCHITECTURE.md); a
 * file like that is never stored: the seal fails, and its job runs again with a new timestamp.
 */
export function assertTimestampCovers(document: Uint8Array, digest: Uint8Array | null): void {
  const covered = byteRangeDigestOf(document);
  if (!digest || Buffer.compare(Buffer.from(covered), Buffer.from(digest)) !== 0)
    throw new Error('The document timestamp does not cover the bytes it was made for; the seal will run again.');
}
