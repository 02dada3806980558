import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SIGNER_ERASED_DATA, SIGNER_ERASED_EVENT, SignerDataMessages, type SignerErasureResult } from '@esign/contract';
import AdmZip from 'adm-zip';
import { createHash } from 'node:crypto';
import { DataSource, In } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { AuditEventEntity } from '../audit/audit-event.entity';
import { OutboxMessageEntity } from '../notifications/outbox-message.entity';
import { OtpEntity } from '../otp/otp.entity';
import { PartyEntity } from '../requests/party.entity';
import { RequestEntity } from '../requests/request.entity';
import { DocumentStorage } from '../storage/document-storage';
import { RetentionService } from './retention.service';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
/** A party's columns that are secrets of the product, not data about the signer: never exported. */
const SECRET_COLUMNS = new Set(['tokenHash', 'tokenNonce']);

/**
 * A signer's data (issue 24; India's DPDP Act, 2023), for an organisation's administrator: everything the
 * organisation holds about one signer, found by e-mail or mobile number, as a ZIP with a JSON manifest, and the
 * erasure of what the law lets go (selfie, video, location, IP, phone) while the signed documents, the name and
 * e-mail they carry, and the audit trail stay (the signatures and their evidence need them). Only the caller's
 * organisation's records, and of them only this signer's: the other parties of the same requests are not in the
 * export, nor are the documents themselves (they carry the other signers too).
 */
@Injectable()
export class SignerDataService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly storage: DocumentStorage,
    private readonly retention: RetentionService,
  ) {}

  /** The signer's parties in this organisation (e-mail case aside; the phone as /v1/upload stores it). */
  private async parties(orgId: string, identifier: string): Promise<PartyEntity[]> {
    const column = identifier.includes('@') ? 'LOWER(p.email)' : 'p.phone_number';
    const found = await this.db
      .getRepository(PartyEntity)
      .createQueryBuilder('p')
      .where('p.org_id = :orgId', { orgId })
      .andWhere(`${column} = :identifier`, { identifier })
      .orderBy('p.ref_id', 'ASC')
      .addOrderBy('p.party_order', 'ASC')
      .getMany();
    if (!found.length)
      throw new AppError('NOT_FOUND', SignerDataMessages.noRecords.replace('{identifier}', identifier));
    return found;
  }

  /** The ZIP: manifest.json (every record about the signer) and files/ (their selfies and signature images). */
  async export(orgId: string, identifier: string): Promise<{ zip: Buffer; filename: string }> {
    const parties = await this.parties(orgId, identifier);
    const refIds = [...new Set(parties.map((p) => p.refId))];
    const partyIds = parties.map((p) => p.id);
    const [requests, events, otps, messages] = await Promise.all([
      this.db.getRepository(RequestEntity).find({ where: { orgId, refId: In(refIds) } }),
      this.db.getRepository(AuditEventEntity).find({ where: { orgId, refId: In(refIds) }, order: { id: 'ASC' } }),
      this.db.getRepository(OtpEntity).find({ where: { partyId: In(partyIds) }, order: { createdAt: 'ASC' } }),
      this.db.getRepository(OutboxMessageEntity).find({ where: { orgId, to: In(this.addresses(parties)) } }),
    ]);
    const orders = new Set(parties.map((p) => `${p.refId}:${p.order}`));
    const zip = new AdmZip();
    const files: { path: string; sha256: string; of: string }[] = [];
    const addFile = async (key: string | null, of: string) => {
      if (!key || files.some((f) => f.sha256 === key)) return;
      if (!(await this.storage.exists(key))) return;
      const path = `files/${key}`;
      zip.addFile(path, await this.storage.get(key));
      files.push({ path, sha256: key, of });
    };
    for (const p of parties) {
      await addFile(p.selfieKey, `selfie of party ${p.order} of request ${p.refId}`);
      await addFile(p.signatureKey, `signature image of party ${p.order} of request ${p.refId}`);
    }
    const manifest = {
      format: 'esign-signer-export',
      version: 1,
      organisation: orgId,
      identifier,
      generated_at: this.clock.now().toISOString(),
      parties: parties.map((p) => this.partyRecord(p)),
      requests: requests.map((r) => ({
        ref_id: r.refId,
        filename: r.filename,
        status: r.status,
        submitted_at: iso(r.submittedAt),
        completed_at: iso(r.completedAt),
        ended_at: iso(r.endedAt),
        document_sha256: r.fileKey,
        signed_document_sha256: r.signedFileKey,
        files_deleted_at: iso(r.filesDeletedAt),
      })),
      // The audit events about the signer's own parties (the request's other events are about other people).
      audit_events: events
        .filter((e) => e.partyOrder !== null && orders.has(`${e.refId}:${e.partyOrder}`))
        .map((e) => ({
          ref_id: e.refId,
          party_order: e.partyOrder,
          at: e.createdAt.toISOString(),
          type: e.type,
          actor: e.actor,
          ip: e.ip,
          data: e.data,
          hash: e.hash,
        })),
      one_time_codes: otps.map((o) => ({
        ref_id: o.refId,
        sent_at: o.createdAt.toISOString(),
        expires_at: o.expiresAt.toISOString(),
        attempts: o.attempts,
        verified_at: iso(o.verifiedAt),
      })),
      messages: messages
        .filter((m) => m.refId === null || refIds.includes(m.refId))
        .map((m) => ({
          ref_id: m.refId,
          channel: m.channel,
          kind: m.kind,
          to: m.to,
          subject: m.subject,
          text: m.text,
          status: m.status,
          created_at: m.createdAt.toISOString(),
          sent_at: iso(m.sentAt),
        })),
      files,
      not_included:
        "The documents themselves (they carry the other signers too): each request's SHA-256 identifies them.",
    };
    zip.addFile('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'));
    const name = createHash('sha256').update(identifier).digest('hex').slice(0, 12);
    return { zip: zip.toBuffer(), filename: `signer-${orgId}-${name}.zip` };
  }

  private addresses(parties: PartyEntity[]): string[] {
    const all = new Set<string>();
    for (const p of parties) {
      if (p.email) all.add(p.email);
      if (p.phoneNumber) all.add(p.phoneNumber);
    }
    return [...all];
  }

  /** Every column of a party but the link's secrets, as the manifest writes it. */
  private partyRecord(p: PartyEntity): Record<string, unknown> {
    const record: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(p)) {
      if (SECRET_COLUMNS.has(name)) continue;
      const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      record[snake] = value instanceof Date ? value.toISOString() : value;
    }
    return record;
  }

  /**
   * Erases the signer's selfies (and their files, when nothing else needs them), location, IP and phone from every
   * party of theirs in this organisation, with an audit event per request; videos are never stored. The SMS sent to
   * the phone keep their rows with the address erased. Nothing a signed document or the audit chain needs is touched.
   */
  async erase(orgId: string, identifier: string, actor: string): Promise<SignerErasureResult> {
    const parties = await this.parties(orgId, identifier);
    const selfies = parties.map((p) => p.selfieKey).filter((k): k is string => !!k);
    const phones = [...new Set(parties.map((p) => p.phoneNumber).filter(Boolean))];
    const now = this.clock.now();
    await this.db.transaction(async (manager) => {
      for (const p of parties) {
        await manager.update(
          PartyEntity,
          { id: p.id },
          {
            selfieKey: null,
            faceScore: null,
            liveness: null,
            geo: null,
            signerIp: null,
            phoneNumber: '',
            updatedAt: now,
          },
        );
        await this.audit.record(manager, {
          orgId,
          refId: p.refId,
          partyOrder: p.order,
          type: SIGNER_ERASED_EVENT,
          actor,
          data: { erased: [...SIGNER_ERASED_DATA] },
        });
      }
      if (phones.length)
        await manager.update(OutboxMessageEntity, { orgId, channel: 'sms', to: In(phones) }, { to: '' });
    });
    const filesDeleted = await this.retention.deleteUnreferenced(selfies);
    return {
      identifier,
      parties: parties.length,
      requests: [...new Set(parties.map((p) => p.refId))],
      erased: SIGNER_ERASED_DATA,
      files_deleted: filesDeleted,
      kept: SignerDataMessages.kept,
    };
  }
}
