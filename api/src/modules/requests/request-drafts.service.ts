import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DEFAULT_RECTANGLE,
  FieldMessages,
  RequestMessages,
  type DraftReference,
  flag,
  pageListSchema,
  type PlacementEntry,
  type PlacementsInput,
  type UploadInput,
  type UploadedRecipient,
  type UploadResponse,
} from '@esign/contract';
import { randomInt, randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AppError } from '../../common/app-error';
import type { JsonValue } from '../../database/columns';
import { actorOf, type AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import type { UploadedFile } from '../../common/uploaded-file';
import { parseInput } from '../../common/validation/input';
import { AuditService } from '../audit/audit.service';
import { inspectPdf, type InspectedPdf } from '../documents/pdf/inspect';
import { fromRuns } from '../documents/pdf/pageRuns';
import { placeBoxes } from '../documents/pdf/placement';
import { DocumentStorage } from '../storage/document-storage';
import { LinksService } from '../secrets/links.service';
import { PartyEntity } from './party.entity';
import { enabledRecipients, type RequestOptions, type ValidRecipient } from './recipients';
import { RequestEntity } from './request.entity';
import { RequestRepository } from './request-repository';
import { checkUniqueIds, draftFieldsOf, fieldDefinitionOf, parseFields, placeFields, type PartyField } from './fields';

/** Where a new request's document and first placements come from when it is started from a template. */
export interface PreparedDocument {
  inspected: InspectedPdf;
  filename: string;
  templateId: string | null;
  /** Signature boxes per signer position (0-based among signers), from the template's signature fields. */
  signerBoxes?: Array<(Pick<PartyEntity, 'boxes' | 'pageNo'> & { fields?: PartyField[] | null }) | undefined>;
}

/** A placement's apply_all, checked when the placement is applied (an observer's is not). */
const APPLY_ALL = flag('apply_all', false);

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

/** A new draft's state (an upload, a duplicate): nothing sent, signed, sealed or deleted. */
const FRESH_DRAFT_STATE = {
  status: 'draft',
  isDraft: true,
  signersDone: 0,
  submittedAt: null,
  expiresAt: null,
  completedAt: null,
  signedFileKey: null,
  sealError: null,
  sealFailedAt: null,
  deletedAt: null,
} satisfies Partial<RequestEntity>;

/** Where a party's signature goes, as staff placed it (or a template did). */
type Placement = Pick<PartyEntity, 'pageNo' | 'applyAll' | 'rectangle' | 'dragCoord' | 'boxes' | 'fields'>;

const placementOf = (p: Placement): Placement => ({
  pageNo: p.pageNo,
  applyAll: p.applyAll,
  rectangle: p.rectangle,
  dragCoord: p.dragCoord,
  boxes: p.boxes,
  fields: p.fields,
});

/** Each recipient's placement from the template's signature fields (by signer position), or none. */
function templatePlacements(recipients: ValidRecipient[], prepared: PreparedDocument | null): Placement[] {
  let signerIndex = 0;
  return recipients.map((r) => {
    const fromTemplate = r.observer ? undefined : prepared?.signerBoxes?.[signerIndex++];
    return {
      pageNo: fromTemplate?.pageNo ?? null,
      applyAll: false,
      rectangle: null,
      dragCoord: null,
      boxes: fromTemplate?.boxes ?? null,
      fields: fromTemplate?.fields ?? null,
    };
  });
}

/** The recipients as new parties (SAVED, in their order), each at the placement given for its index. */
function newParties(
  manager: EntityManager,
  orgId: string,
  refId: number,
  recipients: ValidRecipient[],
  now: Date,
  placement: (index: number, recipient: ValidRecipient) => Placement,
): PartyEntity[] {
  return recipients.map((r, i) =>
    manager.create(PartyEntity, {
      id: randomUUID(),
      refId,
      orgId,
      order: i + 1,
      name: r.name,
      email: r.email,
      phoneNumber: r.phoneNumber,
      observer: r.observer,
      signatureType: r.signatureType,
      language: r.language,
      status: 'saved',
      ...FRESH_RECIPIENT_STATE,
      ...placement(i, r),
      createdAt: now,
      updatedAt: now,
    }),
  );
}

/**
 * A request before it is sent, as staff make it: upload (a draft with parties SAVED, from a file or a template), edit
 * the draft, save placements, duplicate, and the draft's reference for editing. Every change runs in one transaction
 * with its audit events.
 */
@Injectable()
export class RequestDrafts {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: DocumentStorage,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly links: LinksService,
    private readonly repo: RequestRepository,
  ) {}

  /** POST /v1/onboard/checkDocument: the file checks of upload, nothing stored. */
  async checkDocument(file: UploadedFile | undefined): Promise<InspectedPdf> {
    if (!file) throw new AppError('VALIDATION_FAILED', RequestMessages.fileRequired);
    return inspectPdf({ bytes: file.bytes, filename: file.filename, mimeType: file.mimeType });
  }

  /** POST /v1/upload. Everything is checked before anything is written; the request is created whole or not at all. */
  async upload(
    auth: AuthContext,
    input: UploadInput,
    file: UploadedFile | undefined,
    prepare?: (recipients: ValidRecipient[]) => Promise<PreparedDocument>,
  ): Promise<UploadResponse> {
    const org = await this.repo.organisation(auth.orgId);
    const recipients = enabledRecipients(input.recipients, org.signatureTypes);
    const { checkOrder, otpRequired, reminder, reminderDuration } = input;
    const options: RequestOptions = { checkOrder, otpRequired, reminder, reminderDuration };
    const { refId: editing, clientReference } = input;
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
          ...FRESH_DRAFT_STATE,
          signersTotal: recipients.filter((r) => !r.observer).length,
          templateId: prepared.templateId,
          createdBy: auth.userId ?? auth.keyId,
          // Not listed until its placement is saved (see RequestEntity.listedAt and UnsavedDrafts).
          listedAt: null,
          createdAt: now,
          updatedAt: now,
        });
        await manager.insert(RequestEntity, req);
        const fromTemplate = templatePlacements(recipients, prepared);
        const parties = newParties(manager, auth.orgId, refId, recipients, now, (i) => fromTemplate[i]);
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
        return { req, parties: await this.repo.parties(manager, refId) };
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
    options: RequestOptions,
    prepared: PreparedDocument | null,
  ): Promise<UploadResponse> {
    const file = prepared ? await this.storage.put(prepared.inspected.bytes) : null;
    const now = this.clock.now();
    const result = await this.db.transaction(async (manager) => {
      const req = await this.repo.lockRequest(manager, auth.orgId, refId);
      if (!req.isDraft) throw new AppError('CONFLICT', RequestMessages.notADraft);
      const before = await this.repo.parties(manager, req.refId);
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
      const fromTemplate = templatePlacements(recipients, prepared);
      const parties = newParties(manager, auth.orgId, req.refId, recipients, now, (i, r) => {
        const old = before.find((p) => p.order === i + 1);
        // A signer who stays a signer at the same order keeps their placement unless the document changed.
        return !prepared && old && !old.observer && !r.observer ? placementOf(old) : fromTemplate[i];
      });
      await manager.insert(PartyEntity, parties as QueryDeepPartialEntity<PartyEntity>[]);
      // Not the inserted objects: after a multi-row insert TypeORM reads back the columns that have defaults and
      // assigns them by position, while its read-back comes in id order, so they can land on the wrong party.
      const stored = await this.repo.parties(manager, req.refId);
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
    const parties = await this.repo.parties(this.db.manager, req.refId);
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
      fields: (p.fields ?? []).map(fieldDefinitionOf),
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

  /** POST /v1/save: stores each signer's placement on the real pages. */
  async save(auth: AuthContext, entries: PlacementsInput): Promise<{ code: 200; message: string }> {
    await this.db.transaction(async (manager) => {
      for (const [refId, list] of groupByRef(entries)) {
        const req = await this.repo.lockRequest(manager, auth.orgId, refId);
        if (!req.isDraft) throw new AppError('CONFLICT', RequestMessages.notADraft);
        await this.applyPlacements(manager, auth, req, list);
      }
    });
    return { code: 200, message: RequestMessages.saved };
  }

  /** Saves placements on a draft in the caller's transaction (POST /v1/save, and /v1/process with placements). */
  async applyPlacements(
    manager: EntityManager,
    auth: AuthContext,
    req: RequestEntity,
    entries: PlacementEntry[],
  ): Promise<void> {
    const parties = await this.repo.parties(manager, req.refId);
    const now = this.clock.now();
    const saved: number[] = [];
    for (const entry of entries) {
      const party = parties.find((p) => p.order === entry.order);
      if (!party) throw new AppError('VALIDATION_FAILED', RequestMessages.saveDataInvalid);
      const fieldInputs = entry.fields === undefined || entry.fields === null ? null : parseFields(entry.fields);
      if (party.observer) {
        if (fieldInputs?.length) throw new AppError('VALIDATION_FAILED', FieldMessages.signerInvalid);
        continue;
      }
      // An entry that carries only fields (issue 21: the CLI adding fields to a template's signer) changes the fields
      // and leaves the signature box as it is; any other entry places the box as the specification says.
      const placing = entry.rectangle !== undefined || entry.pageNo !== undefined || entry.apply_all !== undefined;
      if (fieldInputs && !placing) {
        const taken = parties.filter((p) => p !== party).flatMap((p) => (p.fields ?? []).map((f) => f.id));
        const placed = placeFields(fieldInputs, party, req, taken, now);
        party.fields = placed.length ? placed : null;
        party.updatedAt = now;
        await manager.save(PartyEntity, party);
        saved.push(party.order);
        continue;
      }
      const applyAll = parseInput(APPLY_ALL, entry.apply_all);
      const rectangle = entry.rectangle === undefined || entry.rectangle === '' ? DEFAULT_RECTANGLE : entry.rectangle;
      if (typeof rectangle !== 'string') throw new AppError('VALIDATION_FAILED', 'rectangle must be text x1,y1,x2,y2.');
      const pageNo =
        entry.pageNo === undefined || entry.pageNo === null ? [1] : parseInput(pageListSchema, entry.pageNo);
      const boxes = placeBoxes({ rectangle, pageNo, applyAll, totalPages: req.totalPages, geometry: req.geometry });
      party.pageNo = applyAll ? [] : pageNo;
      party.applyAll = applyAll;
      party.rectangle = rectangle;
      party.dragCoord = (entry.drag_coord ?? null) as JsonValue | null;
      party.boxes = boxes;
      if (fieldInputs) {
        const taken = parties.filter((p) => p !== party).flatMap((p) => (p.fields ?? []).map((f) => f.id));
        const placed = placeFields(fieldInputs, party, req, taken, now);
        party.fields = placed.length ? placed : null;
      }
      party.updatedAt = now;
      await manager.save(PartyEntity, party);
      saved.push(party.order);
    }
    checkUniqueIds(parties.map((p) => p.fields ?? []));
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

  /** GET /v1/duplicateRef: a new draft with the same document, recipients, options and placements. */
  async duplicate(auth: AuthContext, refId: unknown): Promise<{ code: 200; message: string; refId: number }> {
    const source = await this.repo.lockRequest(this.db.manager, auth.orgId, refId, false);
    const sourceParties = await this.repo.parties(this.db.manager, source.refId);
    const now = this.clock.now();
    const copy = await this.withNewRefId(async (manager, newRefId) => {
      const req = manager.create(RequestEntity, {
        ...source,
        refId: newRefId,
        ...FRESH_DRAFT_STATE,
        createdBy: auth.userId ?? auth.keyId,
        // The copy is a whole draft (its placements copied): listed at once, first among the drafts.
        listedAt: now,
        clientReference: null,
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
            fields: draftFieldsOf(p.fields),
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

  /** GET /v1/reference/{orgId}/{refId}: a draft's parties for editing. */
  async draftReference(auth: AuthContext, refId: unknown): Promise<DraftReference[]> {
    const req = await this.repo.lockRequest(this.db.manager, auth.orgId, refId, false);
    const parties = await this.repo.parties(this.db.manager, req.refId);
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
      language: p.language ?? null,
      reminder: req.reminder,
      reminder_duration: req.reminderDuration,
      checkOrder: req.checkOrder,
      otpRequired: req.otpRequired,
      pageNo: p.pageNo ?? [],
      apply_all: Boolean(p.applyAll),
      rectangle: p.rectangle,
      drag_coord: p.dragCoord ?? null,
      fields: (p.fields ?? []).map(fieldDefinitionOf),
      'total-pages': req.totalPages,
      pdfheight: firstHeight,
    }));
  }
}

const isUniqueViolation = (err: unknown): boolean =>
  /UNIQUE constraint|Duplicate entry|ER_DUP_ENTRY/i.test(String((err as Error)?.message));

/** The height a viewer shows a page at: its crop box, turned by its rotation. */
function displayedHeight(g: { cropBox: [number, number, number, number]; rotation: number }): number {
  return g.rotation % 180 === 0 ? g.cropBox[3] : g.cropBox[2];
}

/** Placements by Ref ID, in the order given. */
export function groupByRef(entries: PlacementEntry[]): Map<number, PlacementEntry[]> {
  const map = new Map<number, PlacementEntry[]>();
  for (const e of entries) {
    map.set(e.refId, [...(map.get(e.refId) ?? []), e]);
  }
  return map;
}
