import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RequestMessages, RetentionMessages, refIdOf } from '@esign/contract';
import { DataSource, type EntityManager } from 'typeorm';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/app-error';
import type { ByteRange } from '../../common/http/byte-range';
import { RowReader } from '../../database/row-reader';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { DocumentStorage } from '../storage/document-storage';
import { PartyEntity } from './party.entity';
import { RequestEntity } from './request.entity';

/** Pessimistic row locks exist on MySQL/MariaDB; SQLite serialises writers anyway. */
export function lockFor(manager: EntityManager): { lock?: { mode: 'pessimistic_write' } } {
  return manager.connection.options.type === 'better-sqlite3' ? {} : { lock: { mode: 'pessimistic_write' } };
}

/**
 * The one repository of requests and their parties: every module that reads or locks a request's rows (recipients,
 * the signing methods, the seal job, the lists) goes through it, in the caller's transaction where one is given.
 */
@Injectable()
export class RequestRepository {
  // Every recipient call reads these (RowReader: the SQL is built once, not per call).
  private readonly organisationById: RowReader<OrganisationEntity>;
  private readonly partiesByRequest: RowReader<PartyEntity>;
  private readonly listParties: RowReader<PartyEntity>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: DocumentStorage,
  ) {
    this.organisationById = new RowReader(db, OrganisationEntity, ['id']);
    this.partiesByRequest = new RowReader(db, PartyEntity, ['refId'], { orderBy: 'order' });
    // The columns the lists show (of some 40: a party's whole record is 25 µs a row to read and hydrate).
    this.listParties = new RowReader(db, PartyEntity, ['refId'], {
      orderBy: 'order',
      select: [
        'id',
        'refId',
        'order',
        'name',
        'email',
        'phoneNumber',
        'observer',
        'signatureType',
        'status',
        'tokenHash',
        'tokenNonce',
        'signMethod',
        'invitedAt',
        'openedAt',
        'signedAt',
        'rejectedAt',
        'rejectRemark',
        'language',
      ],
    });
  }

  /** The request's organisation (its options: signature types, level, time zone, expiry). */
  async organisation(orgId: string, manager: EntityManager = this.db.manager): Promise<OrganisationEntity> {
    const org = await this.organisationById.one([orgId], manager);
    if (!org) throw new AppError('NOT_FOUND', `No organisation '${orgId}'.`);
    return org;
  }

  /** The request of this organisation, locked for the rest of the transaction on engines with row locks. */
  async lockRequest(manager: EntityManager, orgId: string, refId: unknown, lock = true): Promise<RequestEntity> {
    const id = refIdOf(refId);
    const req =
      id === null
        ? null
        : await manager.findOne(RequestEntity, { where: { orgId, refId: id }, ...(lock ? lockFor(manager) : {}) });
    if (!req || req.deletedAt) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    return req;
  }

  /** The request's parties, in signing order. */
  parties(manager: EntityManager, refId: number): Promise<PartyEntity[]> {
    return this.partiesByRequest.all([refId], manager);
  }

  /** The lists' view of the parties of these requests (not their whole records), in signing order. */
  async partiesOf(refIds: number[]): Promise<Map<number, PartyEntity[]>> {
    const map = new Map<number, PartyEntity[]>();
    if (!refIds.length) return map;
    const rows = await this.listParties.anyOf(refIds);
    for (const p of rows) map.set(p.refId, [...(map.get(p.refId) ?? []), p]);
    return map;
  }

  /**
   * The stored document of a request as a stream, for a verified document link: NOT_FOUND before any byte; the size
   * is known for the original (the signed file's is not kept).
   */
  async documentStream(
    orgId: string,
    refId: number,
    kind: 'original' | 'signed',
    want?: (size: number) => ByteRange | null,
  ): Promise<{ stream: Readable; filename: string; size: number; range: ByteRange | null }> {
    const req = await this.db.manager.findOneBy(RequestEntity, { orgId, refId });
    if (!req) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    return this.streamOf(req, kind, want);
  }

  /** As documentStream, of a request row the caller has just read (the signer's own document call). */
  async streamOf(
    req: RequestEntity,
    kind: 'original' | 'signed',
    want?: (size: number) => ByteRange | null,
  ): Promise<{ stream: Readable; filename: string; size: number; range: ByteRange | null }> {
    const key = kind === 'original' ? req.fileKey : req.signedFileKey;
    if (!key) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    if (req.filesDeletedAt) throw new AppError('NOT_FOUND', RetentionMessages.filesDeleted);
    const { stream, size, range } = await this.storage.download(key, want);
    return { stream, filename: req.filename, size, range };
  }
}
