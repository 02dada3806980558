import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DEFAULT_RECTANGLE,
  RequestMessages,
  type DraftReference,
  type PlacementInput,
  type UploadedRecipient,
  type UploadResponse,
} from '@esign/contract';
import { randomInt, randomUUID } from 'node:crypto';
import { DataSource, In, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AppError } from '../../common/app-error';
import type { JsonValue } from '../../database/columns';
import { actorOf, type AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import type { UploadedFile } from '../../common/uploaded-file';
import { AuditService } from '../audit/audit.service';
import { inspectPdf, type InspectedPdf } from '../documents/pdf/inspect';
import { fromRuns } from '../documents/pdf/pageRuns';
import { placeBoxes } from '../documents/pdf/placement';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { DocumentStorage } from '../storage/document-storage';
import { LinksService } from '../secrets/links.service';
import { PartyEntity } from './party.entity';
import { parseBoolean, validateOptions, validateRecipients, type ValidRecipient } from './recipients';
import { RequestEntity } from './request.entity';
import { RequestEvents } from './request-events';

/** Where a new request's document and first placements come from when it is started from a template. */
export interface PreparedDocument {
  inspected: InspectedPdf;
  filename: string;
  templateId: string | null;
  /** Signature boxes per signer position (0-based among signers), from the template's signature fields. */
  signerBoxes?: Array<Pick<PartyEntity, 'boxes' | 'pageNo'> | undefined>;
}

/** Pessimistic row locks exist on MySQL/MariaDB; SQLite serialises writers anyway. */
export function lockFor(manager: EntityManager): { lock?: { mode: 'pessimistic_write' } } {
  return manager.connection.options.type === 'better-sqlite3' ? {} : { lock: { mode: 'pessimistic_write' } };
}

const MIN_RESEND_SECONDS = 60;
const CLIENT_REFERENCE_MAX = 100;

/** A party's recipient-side state before anything happened on its link (new requests and duplicates). */
export const FRESH_RECIPIENT_STATE = {
  tokenHash: null,
  tokenNonce: null,
  invitedAt: null,
  remindedAt: null,
  signedAt: null,
  openedAt: null,
  acceptedAt: null,
  otpVerifiedAt: null,
  rejectedAt: null,
  rejectRemark: null,
  signMethod: null,
  failedAttempts: 0,
  lastErrorCode: null,
  lastErrorMessage: null,
  signerIp: null,
  userAgent: null,
  geo: null,
  selfieKey: null,
  signatureKey: null,
  signatureKind: null,
  signatureStyle: null,
  signatureSubmittedAt: null,
  signCertificate: null,
} satisfies Partial<PartyEntity>;

/**
 * The staff side of a request's life: upload (a draft with parties SAVED), save placements, process (submit and
 * invite), duplicate, delete (cancel), resend. Every change runs in one transaction with its audit events, the jobs
 * and messages it causes and the webhook deliveries.
 */
@Injectable()
export class RequestsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: DocumentStorage,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly links: LinksService,
    private readonly events: RequestEvents,
  ) {}

  /** POST /v1/onboard/checkDocument: the file checks of upload, nothing stored. */
  async checkDocument(file: UploadedFile | undefined): Promise<InspectedPdf> {
    if (!file) throw new AppError('VALIDATION_FAILED', RequestMessages.fileRequired);
    return inspectPdf({ bytes: file.bytes, filename: file.filename, mimeType: file.mimeType });
  }

  async organisation(orgId: string, manager: EntityManager = this.db.manager): Promise<OrganisationEntity> {
    const org = await manager.findOneBy(OrganisationEntity, { id: orgId });
    if (!org) throw new AppError('NOT_FOUND', `No organisation '${orgId}'.`);
    return org;
  }

  /** POST /v1/upload. Everything is checked before anything is written; the request is created whole or not at all. */
  async upload(
    auth: AuthContext,
    body: Record<string, unknown>,
    file: UploadedFile | undefined,
    prepare?: (recipients: ValidRecipient[]) => Promise<PreparedDocument>,
  ): Promise<UploadResponse> {
    const org = await this.organisation(auth.orgId);
    const recipients = validateRecipients(body.data, org.signatureTypes);
    const options = validateOptions(body);
    const editing = body.refId === undefined || body.refId === '' ? null : toRefId(body.refId);
    if (body.refId !== undefined && body.refId !== '' && editing === null)
      throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    const clientReference = clientReferenceOf(body.clientReference);
    // The same client reference again answers the request it created (a retry, or a bulk run resumed).
    if (editing === null && clientReference !== null) {
      const existing = await this.byClientReference(auth, clientReference);
      if (existing) return existing;
    }
    // Editing a draft without a new file (or template) keeps its document.
    if (editing !== null && !file && !prepare) return this.editDraft(auth, editing, recipients, options, null);
    let prepared: PreparedDocument;
    if (prepare) prepared = await prepare(recipients);
    else {
      if (!file) throw new AppError('VALIDATION_FAILED', RequestMessages.fileRequired);
      prepared = { inspected: await this.checkDocument(file), filename: file.filename, templateId: null };
    }
    if (editing !== null) return this.editDraft(auth, editing, recipients, options, prepared);
    const { inspected } = prepared;
    const stored = await this.storage.put(inspected.bytes);
    const now = this.clock.now();

    let request: { req: RequestEntity; parties: PartyEntity[] };
    try {
      request = await this.withNewRefId(async (manager, refId) => {
        const req = manager.create(RequestEntity, {
          refId,
          orgId: auth.orgId,
          clientReference,
          filename: prepared.filename,
          fileKey: stored.key,
          fileSize: stored.size,
          totalPages: inspected.totalPages,
          geometry: inspected.geometry,
          ...options,
          status: 'draft',
          isDraft: true,
          signersTotal: recipients.filter((r) => !r.observer).length,
          signersDone: 0,
          templateId: prepared.templateId,
          createdBy: auth.userId ?? auth.keyId,
          submittedAt: null,
          // Not listed until its placement is saved (see RequestEntity.listedAt and UnsavedDrafts).
          listedAt: null,
          expiresAt: null,
          completedAt: null,
          signedFileKey: null,
          sealError: null,
          sealFailedAt: null,
          deletedAt: null,
          createdAt: now,
          updatedAt: now,
        });
        await manager.insert(RequestEntity, req);
        let signerIndex = 0;
        const parties = recipients.map((r, i) => {
          const fromTemplate = r.observer ? undefined : prepared.signerBoxes?.[signerIndex++];
          return manager.create(PartyEntity, {
            id: randomUUID(),
            refId,
            orgId: auth.orgId,
            order: i + 1,
            name: r.name,
            email: r.email,
            phoneNumber: r.phoneNumber,
            observer: r.observer,
            signatureType: r.signatureType,
            status: 'saved',
            ...FRESH_RECIPIENT_STATE,
            pageNo: fromTemplate?.pageNo ?? null,
            applyAll: false,
            rectangle: null,
            dragCoord: null,
            boxes: fromTemplate?.boxes ?? null,
            createdAt: now,
            updatedAt: now,
          });
        });
        await manager.insert(PartyEntity, parties as QueryDeepPartialEntity<PartyEntity>[]);
        await this.audit.record(manager, {
          orgId: auth.orgId,
          refId,
          type: 'request.created',
          actor: actorOf(auth),
          data: {
            filename: prepared.filename,
            sha256: stored.key,
            pages: inspected.totalPages,
            repaired: inspected.repaired,
            templateId: prepared.templateId,
            recipients: parties.length,
          },
        });
        return { req, parties: await this.parties(manager, refId) };
      });
    } catch (err) {
      // Two uploads with the same reference at once: the unique index lets one in; the other answers the winner's.
      const winner =
        clientReference !== null && isUniqueViolation(err) && (await this.byClientReference(auth, clientReference));
      if (winner) return winner;
      throw err;
    }

    return {
      code: 200,
      refId: request.req.refId,
      requests: request.parties.map((p) => this.uploadedRecipient(p)),
      'file-url': await this.links.documentUrl(auth.orgId, request.req.refId, 'original'),
      pdfheight: inspected.firstPageHeight,
      'total-pages': inspected.totalPages,
    };
  }

  /**
   * POST /v1/upload with the refId of a draft: the draft's recipients and options are replaced, and its document when a
   * new one is given, keeping its Ref ID. A signer who stays a signer at the same order keeps their placement unless the
   * document changed.
   */
  private async editDraft(
    auth: AuthContext,
    refId: number,
    recipients: ValidRecipient[],
    options: ReturnType<typeof validateOptions>,
    prepared: PreparedDocument | null,
  ): Promise<UploadResponse> {
    const file = prepared ? await this.storage.put(prepared.inspected.bytes) : null;
    const now = this.clock.now();
    const result = await this.db.transaction(async (manager) => {
      const req = await this.lockRequest(manager, auth.orgId, refId);
      if (!req.isDraft) throw new AppError('CONFLICT', RequestMessages.notADraft);
      const before = await this.parties(manager, req.refId);
      if (prepared && file) {
        Object.assign(req, {
          filename: prepared.filename,
          fileKey: file.key,
          fileSize: file.size,
          totalPages: prepared.inspected.totalPages,
          geometry: prepared.inspected.geometry,
          templateId: prepared.templateId,
        });
      }
      Object.assign(req, options, { signersTotal: recipients.filter((r) => !r.observer).length, updatedAt: now });
      await manager.save(RequestEntity, req);
      await manager.delete(PartyEntity, { refId: req.refId });
      let signerIndex = 0;
      const parties = recipients.map((r, i) => {
        const old = before.find((p) => p.order === i + 1);
        const fromTemplate = r.observer ? undefined : prepared?.signerBoxes?.[signerIndex++];
        const keep = !prepared && old && !old.observer && !r.observer;
        return manager.create(PartyEntity, {
          id: randomUUID(),
          refId: req.refId,
          orgId: auth.orgId,
          order: i + 1,
          name: r.name,
          email: r.email,
          phoneNumber: r.phoneNumber,
          observer: r.observer,
          signatureType: r.signatureType,
          status: 'saved',
          ...FRESH_RECIPIENT_STATE,
          pageNo: keep ? old.pageNo : (fromTemplate?.pageNo ?? null),
          applyAll: keep ? old.applyAll : false,
          rectangle: keep ? old.rectangle : null,
          dragCoord: keep ? old.dragCoord : null,
          boxes: keep ? old.boxes : (fromTemplate?.boxes ?? null),
          createdAt: now,
          updatedAt: now,
        });
      });
      await manager.insert(PartyEntity, parties as QueryDeepPartialEntity<PartyEntity>[]);
      // Not the inserted objects: after a multi-row insert TypeORM reads back the columns that have defaults and
      // assigns them by position, while its read-back comes in id order, so they can land on the wrong party.
      const stored = await this.parties(manager, req.refId);
      await this.audit.record(manager, {
        orgId: auth.orgId,
        refId: req.refId,
        type: 'request.edited',
        actor: actorOf(auth),
        data: { recipients: parties.length, ...(file ? { filename: req.filename, sha256: file.key } : {}) },
      });
      return { req, parties: stored };
    });
    const first = result.req.geometry[0];
    return {
      code: 200,
      refId: result.req.refId,
      requests: result.parties.map((p) => this.uploadedRecipient(p)),
      'file-url': await this.links.documentUrl(auth.orgId, result.req.refId, 'original'),
      pdfheight: prepared?.inspected.firstPageHeight ?? (first ? displayedHeight(first) : 0),
      'total-pages': result.req.totalPages,
    };
  }

  /** The request created earlier with this client reference, answered as its upload was (plus duplicate and status). */
  private async byClientReference(auth: AuthContext, clientReference: string): Promise<UploadResponse | null> {
    const req = await this.db.manager.findOneBy(RequestEntity, { orgId: auth.orgId, clientReference });
    if (!req) return null;
    const parties = await this.parties(this.db.manager, req.refId);
    const first = req.geometry[0];
    return {
      code: 200,
      refId: req.refId,
      requests: parties.map((p) => this.uploadedRecipient(p)),
      'file-url': await this.links.documentUrl(auth.orgId, req.refId, 'original'),
      pdfheight: first ? displayedHeight(first) : 0,
      'total-pages': req.totalPages,
      duplicate: true,
      status: req.deletedAt && req.isDraft ? 'deleted' : req.status,
      clientReference,
    };
  }

  private uploadedRecipient(p: PartyEntity): UploadedRecipient {
    return {
      refId: p.refId,
      order: p.order,
      name: p.name,
      email: p.email,
      phoneNumber: p.phoneNumber,
      observer: p.observer,
      signature_type: p.signatureType,
      pageNo: p.pageNo ?? (p.boxes ? p.boxes.flatMap((b) => fromRuns(b.pages)) : [1]),
      apply_all: Boolean(p.applyAll),
      rectangle: p.rectangle ?? DEFAULT_RECTANGLE,
      drag_coord: p.dragCoord ?? null,
    };
  }

  /** A random 10-digit Ref ID, drawn again on the rare collision. */
  private async withNewRefId<T>(work: (manager: EntityManager, refId: number) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const refId = randomInt(1_000_000_000, 9_999_999_999);
      if (await this.db.manager.existsBy(RequestEntity, { refId })) continue;
      try {
        return await this.db.transaction((manager) => work(manager, refId));
      } catch (err) {
        // Drawn again only when the Ref ID itself was taken meanwhile (not for another unique index).
        if (!isUniqueViolation(err) || attempt >= 4) throw err;
        if (!(await this.db.manager.existsBy(RequestEntity, { refId }))) throw err;
      }
    }
  }

  /** The request of this organisation, locked for the rest of the transaction on engines with row locks. */
  async lockRequest(manager: EntityManager, orgId: string, refId: unknown, lock = true): Promise<RequestEntity> {
    const id = toRefId(refId);
    const req =
      id === null
        ? null
        : await manager.findOne(RequestEntity, { where: { orgId, refId: id }, ...(lock ? lockFor(manager) : {}) });
    if (!req || req.deletedAt) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    return req;
  }

  parties(manager: EntityManager, refId: number): Promise<PartyEntity[]> {
    return manager.find(PartyEntity, { where: { refId }, order: { order: 'ASC' } });
  }

  /** POST /v1/save: stores each signer's placement on the real pages. */
  async save(auth: AuthContext, data: unknown): Promise<{ code: 200; message: string }> {
    const entries = parsePlacements(data);
    await this.db.transaction(async (manager) => {
      for (const [refId, list] of groupByRef(entries)) {
        const req = await this.lockRequest(manager, auth.orgId, refId);
        if (!req.isDraft) throw new AppError('CONFLICT', RequestMessages.notADraft);
        await this.applyPlacements(manager, auth, req, list);
      }
    });
    return { code: 200, message: RequestMessages.saved };
  }

  private async applyPlacements(
    manager: EntityManager,
    auth: AuthContext,
    req: RequestEntity,
    entries: PlacementInput[],
  ): Promise<void> {
    const parties = await this.parties(manager, req.refId);
    const now = this.clock.now();
    const saved: number[] = [];
    for (const entry of entries) {
      const party = parties.find((p) => p.order === Number(entry.order));
      if (!party) throw new AppError('VALIDATION_FAILED', RequestMessages.saveDataInvalid);
      if (party.observer) continue;
      const applyAll = parseBoolean(entry.apply_all, false, 'apply_all');
      const rectangle = entry.rectangle === undefined || entry.rectangle === '' ? DEFAULT_RECTANGLE : entry.rectangle;
      if (typeof rectangle !== 'string') throw new AppError('VALIDATION_FAILED', 'rectangle must be text x1,y1,x2,y2.');
      const pageNo = entry.pageNo === undefined || entry.pageNo === null ? [1] : toPageList(entry.pageNo);
      const boxes = placeBoxes({ rectangle, pageNo, applyAll, totalPages: req.totalPages, geometry: req.geometry });
      party.pageNo = applyAll ? [] : pageNo;
      party.applyAll = applyAll;
      party.rectangle = rectangle;
      party.dragCoord = (entry.drag_coord ?? null) as JsonValue | null;
      party.boxes = boxes;
      party.updatedAt = now;
      await manager.save(PartyEntity, party);
      saved.push(party.order);
    }
    req.updatedAt = now;
    // A saved draft is listed, as of this save (a submission below lists it again by its submission time).
    req.listedAt = now;
    await manager.save(RequestEntity, req);
    await this.audit.record(manager, {
      orgId: auth.orgId,
      refId: req.refId,
      type: 'request.saved',
      actor: actorOf(auth),
      data: { placements: saved },
    });
  }

  /**
   * POST /v1/process: saves any placements sent, then submits each draft named: invites the first signer
   * (sequential) or every signer (parallel). Processing a request already sent changes nothing (a double click).
   */
  async process(auth: AuthContext, data: unknown): Promise<{ code: 200; message: string }> {
    const entries = parsePlacements(data);
    await this.db.transaction(async (manager) => {
      const org = await this.organisation(auth.orgId, manager);
      for (const [refId, list] of groupByRef(entries)) {
        const req = await this.lockRequest(manager, auth.orgId, refId);
        if (!req.isDraft) continue;
        const hasPlacement = list.some(
          (e) => e.rectangle !== undefined || e.pageNo !== undefined || e.apply_all !== undefined,
        );
        if (hasPlacement) await this.applyPlacements(manager, auth, req, list);
        await this.submit(manager, auth, org, req);
      }
    });
    return { code: 200, message: RequestMessages.processed };
  }

  private async submit(manager: EntityManager, auth: AuthContext, org: OrganisationEntity, req: RequestEntity) {
    const now = this.clock.now();
    const parties = await this.parties(manager, req.refId);
    for (const p of parties) {
      // A signer whose box was never placed signs at the default place: bottom-left of page 1.
      if (!p.observer && !p.boxes?.length) {
        p.pageNo = [1];
        p.rectangle = DEFAULT_RECTANGLE;
        p.boxes = placeBoxes({
          rectangle: DEFAULT_RECTANGLE,
          pageNo: [1],
          applyAll: false,
          totalPages: req.totalPages,
          geometry: req.geometry,
        });
      }
    }
    req.status = 'in-progress';
    req.isDraft = false;
    req.submittedAt = now;
    // Listed by the time it was sent, so newest first holds for a draft submitted long after its upload.
    req.listedAt = now;
    req.expiresAt = new Date(now.getTime() + org.requestExpiryDays * 86_400_000);
    req.updatedAt = now;
    await manager.save(RequestEntity, req);
    await this.audit.record(manager, {
      orgId: req.orgId,
      refId: req.refId,
      type: 'request.submitted',
      actor: actorOf(auth),
      data: { checkOrder: req.checkOrder, otpRequired: req.otpRequired, expiresAt: req.expiresAt.toISOString() },
    });
    const signers = parties.filter((p) => !p.observer);
    const first = signers[0];
    for (const p of parties) {
      p.updatedAt = now;
      if (p.observer || (req.checkOrder && p !== first)) {
        p.status = 'waiting';
        await manager.save(PartyEntity, p);
      }
    }
    for (const p of req.checkOrder ? [first] : signers) await this.invite(manager, org, req, p, actorOf(auth));
    await this.events.submitted(manager, org, req, parties);
  }

  /** Gives the party a fresh link (the previous one dies) and sends the invitation. */
  async invite(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    actor: string,
    resend = false,
  ): Promise<void> {
    const now = this.clock.now();
    const nonce = this.links.newNonce();
    party.tokenNonce = nonce;
    party.tokenHash = this.links.tokenHash(await this.links.partyToken(nonce));
    party.status = 'in-progress';
    party.invitedAt = now;
    party.updatedAt = now;
    await manager.save(PartyEntity, party);
    const signUrl = (await this.links.signUrl(req.orgId, req.refId, party.order, nonce)) as string;
    await this.audit.record(manager, {
      orgId: req.orgId,
      refId: req.refId,
      partyOrder: party.order,
      type: resend ? 'party.reinvited' : 'party.invited',
      actor,
      data: { email: party.email, phoneNumber: party.phoneNumber },
    });
    await this.events.invited(manager, org, req, party, signUrl, resend);
  }

  /** GET /v1/resend_invite/{orgId}/{refId}/{order}: only for a party in progress; a new link, the old one dead. */
  async resendInvite(auth: AuthContext, refId: unknown, order: unknown): Promise<{ code: 200; message: string }> {
    await this.db.transaction(async (manager) => {
      const org = await this.organisation(auth.orgId, manager);
      const req = await this.lockRequest(manager, auth.orgId, refId);
      const party = (await this.parties(manager, req.refId)).find((p) => p.order === Number(order));
      if (!party) throw new AppError('NOT_FOUND', RequestMessages.partyNotFound);
      if (req.status !== 'in-progress' || party.status !== 'in-progress')
        throw new AppError('CONFLICT', RequestMessages.notInProgress);
      const since = party.invitedAt ? (this.clock.now().getTime() - party.invitedAt.getTime()) / 1000 : Infinity;
      if (since < MIN_RESEND_SECONDS) {
        const wait = Math.ceil(MIN_RESEND_SECONDS - since);
        throw new AppError(
          'TOO_MANY_ATTEMPTS',
          `The invite was just sent. Please wait ${wait} seconds before resending it.`,
          {
            'Retry-After': String(wait),
          },
        );
      }
      await this.invite(manager, org, req, party, actorOf(auth), true);
    });
    return { code: 200, message: RequestMessages.inviteSent };
  }

  /** GET /v1/duplicateRef: a new draft with the same document, recipients, options and placements. */
  async duplicate(auth: AuthContext, refId: unknown): Promise<{ code: 200; message: string; refId: number }> {
    const source = await this.lockRequest(this.db.manager, auth.orgId, refId, false);
    const sourceParties = await this.parties(this.db.manager, source.refId);
    const now = this.clock.now();
    const copy = await this.withNewRefId(async (manager, newRefId) => {
      const req = manager.create(RequestEntity, {
        ...source,
        refId: newRefId,
        status: 'draft',
        isDraft: true,
        signersDone: 0,
        createdBy: auth.userId ?? auth.keyId,
        submittedAt: null,
        // The copy is a whole draft (its placements copied): listed at once, first among the drafts.
        listedAt: now,
        clientReference: null,
        expiresAt: null,
        completedAt: null,
        signedFileKey: null,
        sealError: null,
        sealFailedAt: null,
        deletedAt: null,
        createdAt: now,
        updatedAt: now,
      });
      await manager.insert(RequestEntity, req);
      await manager.insert(
        PartyEntity,
        sourceParties.map((p): QueryDeepPartialEntity<PartyEntity> =>
          manager.create(PartyEntity, {
            ...p,
            id: randomUUID(),
            refId: newRefId,
            status: 'saved',
            ...FRESH_RECIPIENT_STATE,
            createdAt: now,
            updatedAt: now,
          }),
        ),
      );
      await this.audit.record(manager, {
        orgId: auth.orgId,
        refId: newRefId,
        type: 'request.created',
        actor: actorOf(auth),
        data: { duplicateOf: source.refId, filename: source.filename, sha256: source.fileKey },
      });
      return req;
    });
    return { code: 200, message: RequestMessages.duplicated, refId: copy.refId };
  }

  /**
   * GET /v1/deleteRef: a draft is deleted; a request already sent is cancelled (links dead, reminders stopped,
   * parties told by webhook) and leaves the lists. Its audit trail and documents stay.
   */
  async delete(auth: AuthContext, refId: unknown): Promise<{ code: 200; message: string }> {
    await this.db.transaction(async (manager) => {
      const req = await this.lockRequest(manager, auth.orgId, refId);
      const now = this.clock.now();
      const wasOpen = req.status === 'in-progress';
      if (wasOpen) {
        req.status = 'cancelled';
        const parties = await this.parties(manager, req.refId);
        for (const p of parties) {
          if (p.status === 'completed' || p.status === 'rejected') continue;
          // The link stays known so the signer page can say 'Your eSign request has been cancelled.'; the request's
          // status refuses every action and the reference call shows no document or personal data.
          p.status = 'cancelled';
          p.updatedAt = now;
          await manager.save(PartyEntity, p);
        }
      }
      req.deletedAt = now;
      req.updatedAt = now;
      await manager.save(RequestEntity, req);
      await this.audit.record(manager, {
        orgId: auth.orgId,
        refId: req.refId,
        type: wasOpen ? 'request.cancelled' : 'request.deleted',
        actor: actorOf(auth),
      });
      await this.events.deleted(manager, req);
    });
    return { code: 200, message: RequestMessages.deleted };
  }

  /** GET /v1/reference/{orgId}/{refId}: a draft's parties for editing. */
  async draftReference(auth: AuthContext, refId: unknown): Promise<DraftReference[]> {
    const req = await this.lockRequest(this.db.manager, auth.orgId, refId, false);
    const parties = await this.parties(this.db.manager, req.refId);
    const uploadUrl = await this.links.documentUrl(req.orgId, req.refId, 'original');
    const firstHeight = req.geometry[0] ? displayedHeight(req.geometry[0]) : 0;
    return parties.map((p) => ({
      refId: req.refId,
      order: p.order,
      uploadUrl,
      filename: req.filename,
      name: p.name,
      email: p.email,
      phoneNumber: p.phoneNumber,
      observer: p.observer,
      signature_type: p.signatureType,
      reminder: req.reminder,
      reminder_duration: req.reminderDuration,
      checkOrder: req.checkOrder,
      otpRequired: req.otpRequired,
      pageNo: p.pageNo ?? [],
      apply_all: Boolean(p.applyAll),
      rectangle: p.rectangle,
      drag_coord: p.dragCoord ?? null,
      'total-pages': req.totalPages,
      pdfheight: firstHeight,
    }));
  }

  /** The stored document of a request, for a verified document link. */
  async document(
    orgId: string,
    refId: number,
    kind: 'original' | 'signed',
  ): Promise<{ bytes: Buffer; filename: string }> {
    const req = await this.db.manager.findOneBy(RequestEntity, { orgId, refId });
    const key = req && (kind === 'original' ? req.fileKey : req.signedFileKey);
    if (!req || !key) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    return { bytes: await this.storage.get(key), filename: req.filename };
  }

  /**
   * The stored document of a request as a stream, for a verified document link: NOT_FOUND before any byte; the size
   * is known for the original (the signed file's is not kept).
   */
  async documentStream(
    orgId: string,
    refId: number,
    kind: 'original' | 'signed',
  ): Promise<{ stream: Awaited<ReturnType<DocumentStorage['stream']>>; filename: string; size?: number }> {
    const req = await this.db.manager.findOneBy(RequestEntity, { orgId, refId });
    const key = req && (kind === 'original' ? req.fileKey : req.signedFileKey);
    if (!req || !key) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    const stream = await this.storage.stream(key);
    return { stream, filename: req.filename, ...(kind === 'original' ? { size: req.fileSize } : {}) };
  }

  /** Reminder job: reminds every invited party still pending, and schedules the next one. */
  async remind(orgId: string, refId: number): Promise<number> {
    return this.db.transaction(async (manager) => {
      const req = await manager.findOne(RequestEntity, { where: { orgId, refId }, ...lockFor(manager) });
      if (!req || req.deletedAt || req.status !== 'in-progress' || !req.reminder || !req.reminderDuration) return 0;
      const org = await this.organisation(orgId, manager);
      const now = this.clock.now();
      // A party whose signature is submitted and waits for its seal (status still 'signing') has nothing left to do.
      const pending = (await this.parties(manager, refId)).filter(
        (p) =>
          !p.observer && !p.signatureSubmittedAt && ['in-progress', 'opened', 'signing', 'failed'].includes(p.status),
      );
      for (const p of pending) {
        p.remindedAt = now;
        p.updatedAt = now;
        await manager.save(PartyEntity, p);
        const signUrl = (await this.links.signUrl(orgId, refId, p.order, p.tokenNonce)) as string;
        await this.audit.record(manager, {
          orgId,
          refId,
          partyOrder: p.order,
          type: 'party.reminded',
          actor: 'system',
        });
        await this.events.reminded(manager, org, req, p, signUrl);
      }
      await this.events.scheduleReminder(manager, req, now);
      return pending.length;
    });
  }

  /** Expiry job: ends a request still in progress at its expiry and tells the parties still pending. */
  async expire(orgId: string, refId: number): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const req = await manager.findOne(RequestEntity, { where: { orgId, refId }, ...lockFor(manager) });
      const now = this.clock.now();
      if (!req || req.status !== 'in-progress' || !req.expiresAt) return false;
      if (req.expiresAt.getTime() > now.getTime()) {
        await this.events.scheduleExpiry(manager, req);
        return false;
      }
      const org = await this.organisation(orgId, manager);
      req.status = 'expired';
      req.updatedAt = now;
      await manager.save(RequestEntity, req);
      const parties = await this.parties(manager, refId);
      const pending: PartyEntity[] = [];
      for (const p of parties) {
        if (p.status === 'completed' || p.status === 'rejected') continue;
        if (!p.observer && p.status !== 'waiting') pending.push(p);
        // As for cancelling: the link only shows 'The signature request has expired.' from now on.
        p.status = 'expired';
        p.updatedAt = now;
        await manager.save(PartyEntity, p);
      }
      await this.audit.record(manager, { orgId, refId, type: 'request.expired', actor: 'system' });
      await this.events.expired(manager, org, req, pending);
      return true;
    });
  }

  /** The lists' view of the parties of these requests (not their whole records), in signing order. */
  async partiesOf(refIds: number[]): Promise<Map<number, PartyEntity[]>> {
    const map = new Map<number, PartyEntity[]>();
    if (!refIds.length) return map;
    // The columns the lists show (of some 40: a party's whole record is 25 µs a row to read and hydrate).
    const rows = await this.db.manager.find(PartyEntity, {
      select: {
        id: true,
        refId: true,
        order: true,
        name: true,
        email: true,
        phoneNumber: true,
        observer: true,
        signatureType: true,
        status: true,
        tokenHash: true,
        tokenNonce: true,
        signMethod: true,
        signedAt: true,
        rejectedAt: true,
        rejectRemark: true,
      },
      where: { refId: In(refIds) },
      order: { order: 'ASC' },
    });
    for (const p of rows) map.set(p.refId, [...(map.get(p.refId) ?? []), p]);
    return map;
  }
}

/** The height a viewer shows a page at: its crop box, turned by its rotation. */
const isUniqueViolation = (err: unknown): boolean =>
  /UNIQUE constraint|Duplicate entry|ER_DUP_ENTRY/i.test(String((err as Error)?.message));

/** clientReference of /v1/upload (or the Idempotency-Key header): 1 to 100 characters after trimming; null when absent. */
export function clientReferenceOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text || text.length > CLIENT_REFERENCE_MAX)
    throw new AppError('VALIDATION_FAILED', RequestMessages.clientReferenceInvalid);
  return text;
}

function displayedHeight(g: { cropBox: [number, number, number, number]; rotation: number }): number {
  return g.rotation % 180 === 0 ? g.cropBox[3] : g.cropBox[2];
}

export function toRefId(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

function toPageList(value: unknown): number[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  return list.map((v) => {
    const n = Number(typeof v === 'string' ? v.trim() : v);
    if (!Number.isInteger(n))
      throw new AppError('VALIDATION_FAILED', `pageNo must list page numbers; '${String(v)}' is not one.`);
    return n;
  });
}

function parsePlacements(data: unknown): PlacementInput[] {
  let list = data;
  if (typeof data === 'string') {
    try {
      list = JSON.parse(data);
    } catch {
      throw new AppError('VALIDATION_FAILED', RequestMessages.saveDataInvalid);
    }
  }
  if (list && typeof list === 'object' && !Array.isArray(list)) list = [list];
  if (!Array.isArray(list) || list.length === 0)
    throw new AppError('VALIDATION_FAILED', RequestMessages.saveDataInvalid);
  for (const e of list) {
    if (
      !e ||
      typeof e !== 'object' ||
      toRefId((e as PlacementInput).refId) === null ||
      !Number.isInteger(Number((e as PlacementInput).order))
    )
      throw new AppError('VALIDATION_FAILED', RequestMessages.saveDataInvalid);
  }
  return list as PlacementInput[];
}

function groupByRef(entries: PlacementInput[]): Map<number, PlacementInput[]> {
  const map = new Map<number, PlacementInput[]>();
  for (const e of entries) {
    const id = toRefId(e.refId) as number;
    map.set(id, [...(map.get(id) ?? []), e]);
  }
  return map;
}
