import { Injectable } from '@nestjs/common';
import type { SigningMethodCode } from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { IsNull, type EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { ExternalSignatureEntity } from '../signing/external-signature.entity';
import type { KeptSignature, PreparedOutside } from '../signing/external-signing.service';
import { PartyEntity } from './party.entity';
import type { RequestEntity } from './request.entity';
import { SealQueue } from './seal.queue';

/**
 * A signature made outside (an Aadhaar ESP's CMS, a DSC token's), checked and kept by the signing engine, recorded as
 * the party's submission: the party's row taken once, the signature queued for the seal job (which finishes it and
 * commits it, then calls RequestLifecycle.partySigned()).
 */
@Injectable()
export class OutsideSubmissions {
  constructor(
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly sealQueue: SealQueue,
  ) {}

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
}
