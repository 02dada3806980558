import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import { DocumentStorage } from '../storage/document-storage';
import { ExternalSignatureEntity } from './external-signature.entity';
import { certificatesOf, messageDigestOf, type CmsParts } from './pdf/cms';
import { SigningEngine } from './pdf/engine';
import { certificateInfo } from './pki/certificates';
import { attachmentsOf, partySignatureSpec, type PartySignatureJob } from './party-job';

const OUTSIDE_PLACEHOLDER_BYTES = 32_768;

/** The document prepared for a signature made outside, as the Aadhaar and DSC flows keep it. */
export interface PreparedOutside {
  /** The request's document it was made from: still the current one when the signature is applied, or it is not. */
  baseFileKey: string;
  preparedFileKey: string;
  /** What the CMS must sign (the InputHash of an Aadhaar eSign; the messageDigest of a token's signed attributes). */
  digest: Uint8Array;
}

/** A CMS made outside, checked against its document and kept, ready to be recorded as the party's submission. */
export interface KeptSignature {
  cmsKey: string;
  certificate: { subject: string; issuer: string; serialNumber: string };
}

/**
 * Signatures made outside this server (issue 19): the Aadhaar ESP's CMS and the DSC token's, through the signing
 * engine like every other. Prepare the party's document (stamp, visible signature, field, placeholder); hand the
 * token the PAdES signed attributes and assemble its answer, or take the ESP's CMS as it comes; check it and keep it.
 * The request's side records the submission (requests/outside-submissions.ts) and its seal job finishes it like an
 * electronic signature (timestamp, embed, commit). Nothing outside the signing module builds, reads or embeds a CMS.
 */
@Injectable()
export class ExternalSigning {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly storage: DocumentStorage,
    private readonly engine: SigningEngine,
  ) {}

  /** The party's document prepared for its Aadhaar or DSC signature (`job.method`), stored. */
  async prepare(job: PartySignatureJob): Promise<PreparedOutside> {
    const attachments = await attachmentsOf(job, (key) => this.storage.get(key));
    const { stamp, field } = partySignatureSpec(job, this.clock.now(), attachments);
    const prepared = await this.engine.prepareParty(await this.storage.get(job.baseFileKey), stamp, {
      ...field,
      // An ESP's or a token's CMS carries chains we do not choose.
      placeholderBytes: OUTSIDE_PLACEHOLDER_BYTES,
    });
    const stored = await this.storage.put(Buffer.from(prepared.document));
    return { baseFileKey: job.baseFileKey, preparedFileKey: stored.key, digest: prepared.digest };
  }

  /** The PAdES signed attributes a USB token signs for this document with this certificate. */
  signedAttributes(digest: Uint8Array, certificateDer: Uint8Array): Uint8Array {
    return this.engine.signedAttributes(digest, certificateDer);
  }

  /** A token's signature over signedAttributes() as a CMS (checked with the certificate's key). */
  assemble(parts: CmsParts): Uint8Array {
    return this.engine.assemble(parts);
  }

  /** The signer's certificate a CMS names (the Aadhaar discrepancy check reads its name). */
  signerCertificate(cms: Uint8Array): Uint8Array {
    return certificatesOf(cms).signer;
  }

  /** The digest a CMS signs (an ESP's answer must sign the InputHash that was sent). */
  signedDigest(cms: Uint8Array): Uint8Array {
    return messageDigestOf(cms);
  }

  /** Checks that the CMS signs the prepared document's digest and keeps it (content-addressed). */
  async keep(cms: Uint8Array, digest: Uint8Array): Promise<KeptSignature> {
    if (!Buffer.from(messageDigestOf(cms)).equals(Buffer.from(digest)))
      throw new Error('The signature signs another document than the one prepared for it.');
    const info = certificateInfo(
      `-----BEGIN CERTIFICATE-----\n${Buffer.from(certificatesOf(cms).signer).toString('base64')}\n-----END CERTIFICATE-----`,
    );
    const stored = await this.storage.put(Buffer.from(cms));
    return {
      cmsKey: stored.key,
      certificate: { subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber },
    };
  }

  /** The latest outside signature of the party that is still waiting to be applied (for the status pages). */
  pending(partyId: string): Promise<ExternalSignatureEntity | null> {
    return this.db.manager.findOne(ExternalSignatureEntity, {
      where: { partyId, status: 'pending' },
      order: { createdAt: 'DESC' },
    });
  }
}
