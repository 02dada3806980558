import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SigningMethod, type SigningMethodCode } from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { PartyEntity } from '../requests/party.entity';
import type { RequestEntity } from '../requests/request.entity';
import { DocumentStorage } from '../storage/document-storage';
import { ExternalSignatureEntity } from './external-signature.entity';
import { certificatesOf, messageDigestOf, type CmsParts } from './pdf/cms';
import { SigningEngine } from './pdf/engine';
import { certificateInfo } from './pki/certificates';
import { signedByLines } from './seal.service';
import { SealQueue } from './seal.queue';

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
 * token the PAdES signed attributes and assemble its answer, or take the ESP's CMS as it comes; keep it and record the
 * submission. The seal job then finishes it like an electronic signature (timestamp, embed, commit). Nothing outside
 * the signing module builds, reads or embeds a CMS.
 */
@Injectable()
export class ExternalSigning {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly storage: DocumentStorage,
    private readonly engine: SigningEngine,
    private readonly audit: AuditService,
    private readonly sealQueue: SealQueue,
  ) {}

  /** The party's document prepared for its Aadhaar or DSC signature, stored. */
  async prepare(
    req: RequestEntity,
    party: PartyEntity,
    org: Pick<OrganisationEntity, 'timeZone'>,
    method: SigningMethodCode,
  ): Promise<PreparedOutside> {
    const now = this.clock.now();
    const base = req.signedFileKey ?? req.fileKey;
    const how = method === SigningMethod.Aadhaar ? 'with Aadhaar eSign' : 'with a DSC';
    const prepared = await this.engine.prepareParty(
      await this.storage.get(base),
      {
        boxes: party.boxes ?? [],
        text: { value: party.name, italic: false },
        signedBy: signedByLines(party.name, now, method, req.refId, org.timeZone),
      },
      {
        fieldName: `esign_party_${party.order}`,
        name: party.name,
        reason: `Signed by ${party.name} ${how} (Ref ID ${req.refId})`,
        location: party.geo?.country ?? null,
        contactInfo: party.email,
        signingTime: now,
        // An ESP's or a token's CMS carries chains we do not choose.
        placeholderBytes: OUTSIDE_PLACEHOLDER_BYTES,
      },
    );
    const stored = await this.storage.put(Buffer.from(prepared.document));
    return { baseFileKey: base, preparedFileKey: stored.key, digest: prepared.digest };
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

  /**
   * Records the kept signature as the party's submission, in the caller's transaction: once (a conditional update:
   * a second answer, another tab or a retry finds it taken), the seal job queued to finish it. False when the party
   * had submitted already or is no longer signing with this method.
   */
  async submit(
    manager: EntityManager,
    input: {
      req: Pick<RequestEntity, 'orgId' | 'refId'>;
      party: PartyEntity;
      method: SigningMethodCode;
      prepared: Pick<PreparedOutside, 'baseFileKey' | 'preparedFileKey'>;
      kept: KeptSignature;
      ip: string | null;
    },
  ): Promise<boolean> {
    const { party, method, prepared, kept } = input;
    const now = this.clock.now();
    const taken = await manager.update(
      PartyEntity,
      { id: party.id, status: 'signing', signMethod: method, signatureSubmittedAt: IsNull() },
      { signatureSubmittedAt: now, updatedAt: now },
    );
    if (!taken.affected) return false;
    await manager.insert(ExternalSignatureEntity, {
      id: randomUUID(),
      orgId: party.orgId,
      refId: party.refId,
      partyId: party.id,
      method,
      baseFileKey: prepared.baseFileKey,
      preparedFileKey: prepared.preparedFileKey,
      cmsKey: kept.cmsKey,
      certificate: kept.certificate,
      status: 'pending',
      error: null,
      createdAt: now,
      finishedAt: null,
    });
    await this.audit.recordParty(manager, party, 'party.signature_submitted', input.ip, {
      method,
      certificate: kept.certificate.subject,
      serialNumber: kept.certificate.serialNumber,
      cmsSha256: kept.cmsKey,
    });
    await this.sealQueue.enqueue(manager, input.req, party);
    return true;
  }

  /** The latest outside signature of the party that is still waiting to be applied (for the status pages). */
  pending(partyId: string): Promise<ExternalSignatureEntity | null> {
    return this.db.manager.findOne(ExternalSignatureEntity, {
      where: { partyId, status: 'pending' },
      order: { createdAt: 'DESC' },
    });
  }
}
