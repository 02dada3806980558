import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Limits,
  RequestMessages,
  SigningMethod,
  dateSignedValue,
  formatDateTime,
  type SignatureLevel,
  refIdOf,
} from '@esign/contract';
import { createHash } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FaultPoints } from '../../common/fault-points';
import { AuditService } from '../audit/audit.service';
import type { AuditEventEntity } from '../audit/audit-event.entity';
import type { JobContext } from '../jobs/job.types';
import { JobsRunner } from '../jobs/jobs.runner';
import { LEVEL_ACCEPTED_EVENT, MetricsService } from '../metrics/metrics.service';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { LinksService } from '../secrets/links.service';
import { renewalTime } from '../signing/evidence/renewal';
import { TimestampUnavailableError, Timestamps } from '../signing/evidence/timestamps';
import { ExternalSignatureEntity } from '../signing/external-signature.entity';
import { attachmentsOf, partySignatureSpec } from '../signing/party-job';
import type {
  CertificateEvent,
  CertificateField,
  CertificateParty,
  CompletionCertificateInput,
} from '../signing/pdf/completion-certificate';
import {
  SigningEngine,
  levelRank,
  type ArchivedDocument,
  type DocumentInput,
  type FinishedSignature,
  type PreparedSignature,
} from '../signing/pdf/engine';
import { SealPkiService, type CertificateSummary } from '../signing/pki/seal-pki.service';
import { DocumentStorage } from '../storage/document-storage';
import { filledFields, sha256Hex } from './fields';
import { PartyEntity } from './party.entity';
import { partySignatureJob } from './party-signature-job';
import { RequestEntity } from './request.entity';
import { RequestEvents } from './request-events';
import { RequestLifecycle } from './request-lifecycle.service';
import { RequestRepository } from './request-repository';
import { partyTransition } from './rules';
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, type SealJobPayload } from './seal.queue';

/**
 * What one round did with a party's signature: applied to the document; discarded (an Aadhaar or DSC signature over a
 * document that changed since: the party's attempt failed and they sign again); or lost to another run that changed
 * the document first (the next round sees it).
 */
type PartyRound = 'applied' | 'discarded' | 'lost to another run';

export interface SealOutcome {
  /** Parties whose signature this run applied (a discarded one is not). */
  applied: number;
  /** This run added the certificate of completion and the final seal. */
  completed: boolean;
}

export const ExternalMessages = {
  documentChanged: 'The document changed while you were signing (another signer signed first). Please sign again.',
  documentChangedDsc:
    'The document changed while your USB token was signing (another signer signed first). Please sign again.',
} as const;

/**
 * The organisation's level (issue 19) as the seal job applies it: what each party's signature and the seal get
 * (B-T from B-T up), what the completion adds (the DSS for B-LT, and the archive timestamp for B-LTA), and the lowest
 * level an operator accepted with `manage reseal --accept-level` (never lower than that, and only audited).
 */
export class LevelPolicy {
  constructor(
    readonly required: SignatureLevel,
    private readonly accepted?: SignatureLevel,
  ) {}

  get signature(): SignatureLevel {
    return levelRank(this.required) >= levelRank('B-T') ? 'B-T' : 'B-B';
  }

  get archive(): 'B-LT' | 'B-LTA' | null {
    return this.required === 'B-LTA' || this.required === 'B-LT' ? this.required : null;
  }

  /** May a step end at `level` below the required one? Only when an operator accepted at most that. */
  accepts(level: SignatureLevel): boolean {
    return this.accepted !== undefined && levelRank(level) >= levelRank(this.accepted);
  }
}

/** More rounds than a request can need (6 signatures and the seal), even with other runs taking some. */
const MAX_ROUNDS = 50;
const MAX_ERROR = 500;

const methodText = (p: PartyEntity): string | null => {
  if (p.signMethod === SigningMethod.Aadhaar) return 'Aadhaar eSign';
  if (p.signMethod === SigningMethod.DSC) return 'DSC';
  if (p.signMethod !== SigningMethod.ESignature) return null;
  if (p.signatureKind === 'typed') return `e-Signature (typed name, ${p.signatureStyle ?? 'normal'})`;
  return `e-Signature (${p.signatureKind === 'uploaded' ? 'uploaded image' : 'drawn'})`;
};

/** An audit event's data as one readable line for the certificate. */
export function eventDetail(data: Record<string, unknown> | null, timeZone?: string): string | null {
  if (!data) return null;
  // A time in the data (an expiry, a rejection) is written as every time a person reads: in the organisation's zone.
  const show = (value: unknown) =>
    typeof value === 'string' && ISO_TIME.test(value) ? formatDateTime(value, timeZone) : String(value);
  const parts = Object.entries(data)
    .filter(([key, value]) => value !== null && value !== undefined && key !== 'otpId')
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : show(value)}`);
  const text = parts.join('; ');
  return text ? (text.length > 240 ? `${text.slice(0, 239)}…` : text) : null;
}

/**
 * The one caller of the signing engine, run as the durable `request.seal` job: applies each submitted signature to the
 * document (its stamp and a PAdES signature with a one-time certificate in the signer's name), in the order they were
 * submitted, and once every signer is done appends the certificate of completion and the organisation's final seal.
 *
 * Safe to run again and on several nodes at once: each step works on the request's current document and is committed
 * only if that document is still the current one (otherwise the step is redone on the newer one). The bytes are
 * content-addressed, so a run that loses leaves at most an unreferenced file. A failing run records the error on the
 * request (the console shows it), and the job is retried with backoff; `manage reseal` runs it by hand.
 */
/** How many documents SealService keeps for the next revision (each a few MB for a large book). */
const RECENT_DOCUMENTS = 4;

@Injectable()
export class SealService implements OnModuleInit {
  private readonly log = new Logger('Seal');
  /**
   * The documents this process stored last, by storage key (issue 23). Keys are the SHA-256 of the bytes, so a key
   * found here names exactly these bytes: the next revision of a job takes the engine's version (bytes, running hash
   * and structure read) instead of reading the file back, hashing it and parsing its structure again.
   */
  private readonly recent = new Map<string, FinishedSignature['signed']>();
  /** Settles when the last run queued in this process has ended (see run). */
  private turn: Promise<void> = Promise.resolve();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly storage: DocumentStorage,
    private readonly audit: AuditService,
    private readonly pki: SealPkiService,
    private readonly engine: SigningEngine,
    private readonly repo: RequestRepository,
    private readonly lifecycle: RequestLifecycle,
    private readonly events: RequestEvents,
    private readonly links: LinksService,
    private readonly runner: JobsRunner,
    private readonly metrics: MetricsService,
    private readonly timestamps: Timestamps,
    private readonly faults: FaultPoints,
  ) {}

  onModuleInit(): void {
    // One seal at a time per runner (see run): the next stays queued, and the other slots go to e-mails and webhooks.
    this.runner.register<SealJobPayload>(SEAL_JOB, (payload, ctx) => this.handle(payload, ctx), { concurrency: 1 });
  }

  private async handle({ orgId, refId }: SealJobPayload, ctx: JobContext): Promise<void> {
    try {
      await this.run(orgId, refId, undefined, () => ctx.progressed());
    } catch (err) {
      await this.recordFailure(orgId, refId, err, ctx.isLastAttempt);
      throw err;
    }
  }

  async recordFailure(orgId: string, refId: number, err: unknown, final: boolean): Promise<void> {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR - 80);
    const text = final
      ? `${message} (gave up after ${SEAL_MAX_ATTEMPTS} attempts; an operator can run: manage reseal --ref ${refId})`
      : message;
    this.log.error(`seal of request ${refId} failed: ${text}`);
    if (final) this.metrics.sealFailed();
    await this.db.transaction(async (manager) => {
      await manager.update(RequestEntity, { orgId, refId }, { sealError: text, sealFailedAt: this.clock.now() });
      await this.audit.record(manager, {
        orgId,
        refId,
        type: 'request.seal_failed',
        actor: 'system',
        data: { error: text, final },
      });
    });
  }

  /**
   * The operator's `manage reseal`: runs the seal now, whatever the job's state; a failure is recorded as a job's.
   * `accept`: the lowest level the operator accepts when no timestamp authority answers (audited as a downgrade);
   * without it the seal never completes below the organisation's level.
   */
  async reseal(refIdText: string, accept?: SignatureLevel): Promise<SealOutcome & { status: string }> {
    const refId = refIdOf(refIdText);
    const req = refId === null ? null : await this.db.manager.findOneBy(RequestEntity, { refId });
    if (!req || refId === null) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    let outcome: SealOutcome;
    try {
      outcome = await this.run(req.orgId, refId, accept);
    } catch (err) {
      await this.recordFailure(req.orgId, refId, err, false);
      throw new AppError('UNAVAILABLE', `Sealing request ${refId} failed: ${(err as Error).message}`);
    }
    const after = await this.db.manager.findOneByOrFail(RequestEntity, { refId });
    return { ...outcome, status: after.status };
  }

  /**
   * Works through the request until nothing is left to apply. Runs in this process go one at a time. Each signature
   * queues its own job, and runs of one request side by side would each prepare, sign and timestamp the same step for
   * all but one to lose it; runs of different requests side by side only split the process's one thread (the work is
   * CPU-bound: parsing, hashing, signing), so each step takes as long as all of them together and a process restarted
   * every few seconds never finishes one (the kill test's stuck seals). In turn, each step is committed as soon as it
   * is done, and a later run of the same request finds the work done or picks up what arrived meanwhile. Runs on other
   * nodes still meet only the commit's check.
   */
  async run(
    orgId: string,
    refId: number,
    accept?: SignatureLevel,
    progressed?: () => Promise<void>,
  ): Promise<SealOutcome> {
    const mine = this.turn.then(() => this.runAlone(orgId, refId, accept, progressed));
    this.turn = mine.then(
      () => undefined,
      () => undefined,
    );
    return mine;
  }

  /** `progressed`: told after each committed step (the job's interruptions are then forgotten). */
  private async runAlone(
    orgId: string,
    refId: number,
    accept?: SignatureLevel,
    progressed?: () => Promise<void>,
  ): Promise<SealOutcome> {
    const outcome: SealOutcome = { applied: 0, completed: false };
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const req = await this.db.manager.findOneBy(RequestEntity, { orgId, refId });
      if (!req || req.status !== 'in-progress') return outcome;
      const parties = await this.repo.parties(this.db.manager, refId);
      const pending = parties
        .filter((p) => !p.observer && p.signatureSubmittedAt && p.status !== 'completed')
        .sort((a, b) => a.signatureSubmittedAt!.getTime() - b.signatureSubmittedAt!.getTime() || a.order - b.order);
      const org = await this.repo.organisation(req.orgId);
      const policy = new LevelPolicy(org.signatureLevel, accept);
      const started = Date.now();
      if (pending.length) {
        const done = await this.applyParty(req, org, pending[0], policy);
        if (done === 'applied') outcome.applied++;
        if (done !== 'lost to another run') await progressed?.();
        this.log.log(`request ${refId}: party ${pending[0].order}'s signature ${done} (${Date.now() - started} ms)`);
        continue;
      }
      const signers = parties.filter((p) => !p.observer);
      if (!signers.length || !signers.every((p) => p.status === 'completed')) return outcome;
      // Every signature is applied and the seal is next: where a test stops a seal (issue 24's watchdog).
      this.faults.hit('seal.before-completion');
      if (await this.complete(req, org, parties, policy)) {
        outcome.completed = true;
        this.metrics.sealCompleted();
        this.log.log(`request ${refId}: completed and sealed (${Date.now() - started} ms)`);
        return outcome;
      }
    }
    throw new Error(`the seal of request ${refId} did not settle after ${MAX_ROUNDS} rounds`);
  }

  /** The stored document `key` for the engine: the version this process made when it has it, else read from storage. */
  private async document(key: string): Promise<DocumentInput> {
    const recent = this.recent.get(key);
    if (recent) return recent;
    // The SHA-256 storage checked the bytes with is the document's running hash: they are not hashed again.
    const { bytes, hash } = await this.storage.getHashed(key);
    return this.engine.open(bytes, hash);
  }

  /** Keeps the engine's version of a document just stored (a few, the newest last: concurrent jobs each find theirs). */
  private remember(key: string, document: FinishedSignature['signed']): void {
    // Stored under the SHA-256 the engine kept running (put's second argument), so the two agree; a store that
    // answered another key (a put of bytes given without it) is not mixed up with the engine's version.
    if (document.key !== key) return;
    this.recent.delete(key);
    this.recent.set(key, document);
    while (this.recent.size > RECENT_DOCUMENTS) this.recent.delete(this.recent.keys().next().value!);
  }

  /**
   * Applies one party's signature to the current document: an electronic signature is prepared (stamp, visible
   * signature, field) and signed here with a one-time certificate in the signer's name; an Aadhaar or DSC signature
   * was prepared and signed outside and is finished here. Either way it is timestamped (B-T) and embedded. False when
   * another run changed the document first.
   */
  private async applyParty(
    req: RequestEntity,
    org: OrganisationEntity,
    party: PartyEntity,
    policy: LevelPolicy,
  ): Promise<PartyRound> {
    const external = await this.db.manager.findOne(ExternalSignatureEntity, {
      where: { partyId: party.id, status: 'pending' },
      order: { createdAt: 'DESC' },
    });
    if (external) return this.applyExternal(req, org, party, external, policy);
    const image = party.signatureKey ? await this.storage.get(party.signatureKey) : null;
    const job = partySignatureJob(req, party, org, SigningMethod.ESignature, image);
    const base = job.baseFileKey;
    const now = this.clock.now();
    const attachments = await attachmentsOf(job, (key) => this.storage.get(key));
    const { stamp, field } = partySignatureSpec(job, now, attachments);
    const prepared = await this.engine.prepareParty(await this.document(base), stamp, field);
    const { signer, certificate } = await this.pki.signerFor(org, party);
    const cms = await this.engine.signWith(prepared.digest, signer);
    const finished = await this.finish(req, party, prepared, cms, policy);
    const stored = await this.storage.put(finished.signed.parts, finished.signed.key, finished.signed.previous);
    this.remember(stored.key, finished.signed);
    const committed = await this.db.transaction((manager) =>
      this.commitSigned(manager, req, party.id, base, stored.key, certificate, now, finished, (me) =>
        Boolean(me.signatureSubmittedAt),
      ),
    );
    return committed ? 'applied' : 'lost to another run';
  }

  /** An Aadhaar or DSC signature made outside on a prepared document: finished here, or discarded if it moved. */
  private async applyExternal(
    req: RequestEntity,
    org: OrganisationEntity,
    party: PartyEntity,
    external: ExternalSignatureEntity,
    policy: LevelPolicy,
  ): Promise<PartyRound> {
    const base = req.signedFileKey ?? req.fileKey;
    const now = this.clock.now();
    if (external.baseFileKey !== base) return this.discardExternal(req, party, external, now);
    const prepared = this.engine.preparedFrom(await this.storage.get(external.preparedFileKey));
    const finished = await this.finish(req, party, prepared, await this.storage.get(external.cmsKey), policy);
    const stored = await this.storage.put(finished.signed.parts, finished.signed.key, finished.signed.previous);
    this.remember(stored.key, finished.signed);
    const committed = await this.db.transaction(async (manager) => {
      const done = await this.commitSigned(
        manager,
        req,
        party.id,
        base,
        stored.key,
        external.certificate,
        now,
        finished,
        (me) => me.signMethod === external.method && Boolean(me.signatureSubmittedAt),
        external.createdAt,
      );
      if (done)
        await manager.update(
          ExternalSignatureEntity,
          { id: external.id, status: 'pending' },
          { status: 'applied', finishedAt: now },
        );
      return done;
    });
    // A request that moved between the check and the commit: the next round sees the new base and discards.
    void org;
    return committed ? 'applied' : 'lost to another run';
  }

  /**
   * The document changed after the outside signature was prepared (another party's signature was applied first): its
   * signature covers a document that is no longer the request's, so it cannot be used. The party's attempt fails with
   * the reason, and they sign again.
   */
  private async discardExternal(
    req: RequestEntity,
    party: PartyEntity,
    external: ExternalSignatureEntity,
    now: Date,
  ): Promise<PartyRound> {
    const message =
      external.method === SigningMethod.DSC ? ExternalMessages.documentChangedDsc : ExternalMessages.documentChanged;
    return this.db.transaction(async (manager): Promise<PartyRound> => {
      const taken = await manager.update(
        ExternalSignatureEntity,
        { id: external.id, status: 'pending' },
        { status: 'discarded', error: message, finishedAt: now },
      );
      if (!taken.affected) return 'lost to another run';
      const fresh = await this.repo.lockRequest(manager, req.orgId, req.refId);
      const me = (await this.repo.parties(manager, fresh.refId)).find((p) => p.id === party.id);
      if (!me) return 'lost to another run';
      me.status = partyTransition(me.status, 'fail') ?? me.status;
      me.failedAttempts += 1;
      me.lastErrorCode = 'DOCUMENT_CHANGED';
      me.lastErrorMessage = message;
      me.signatureSubmittedAt = null;
      me.updatedAt = now;
      await manager.save(PartyEntity, me);
      await this.audit.recordParty(
        manager,
        me,
        'party.signature_discarded',
        null,
        { method: external.method, reason: message, attempt: me.failedAttempts },
        'system',
      );
      return 'discarded';
    });
  }

  /**
   * The signature's finish at the level the organisation asks: with a signature-timestamp from B-T up. Without a
   * timestamp authority the run fails (the job retries with backoff), unless an operator accepted B-B (audited).
   */
  private async finish(
    req: RequestEntity,
    party: PartyEntity | null,
    prepared: PreparedSignature,
    cms: Uint8Array,
    policy: LevelPolicy,
  ): Promise<FinishedSignature> {
    try {
      return await this.engine.finish(prepared, cms, policy.signature);
    } catch (err) {
      if (!(err instanceof TimestampUnavailableError) || !policy.accepts('B-B')) throw err;
      const finished = await this.engine.finish(prepared, cms, 'B-B');
      await this.recordDowngrade(req, party, policy, 'B-B', err.message);
      return finished;
    }
  }

  /**
   * The level a completion will reach: the organisation's; or, when an operator accepted less and the timestamp
   * authority does not answer now, the highest accepted level that needs no timestamp (B-B). The downgrade is audited.
   */
  private async plannedLevel(req: RequestEntity, policy: LevelPolicy): Promise<SignatureLevel> {
    const required = policy.required;
    if (levelRank(required) < levelRank('B-T') || !policy.accepts('B-B')) return required;
    try {
      await this.timestamps.timestamp(createHash('sha256').update(`probe:${req.refId}`).digest());
      return required;
    } catch (err) {
      if (!(err instanceof TimestampUnavailableError)) throw err;
      await this.recordDowngrade(req, null, policy, 'B-B', err.message);
      return 'B-B';
    }
  }

  private async recordDowngrade(
    req: RequestEntity,
    party: PartyEntity | null,
    policy: LevelPolicy,
    reached: SignatureLevel,
    reason: string,
  ): Promise<void> {
    await this.db.transaction((manager) =>
      this.audit.record(manager, {
        orgId: req.orgId,
        refId: req.refId,
        partyOrder: party?.order ?? null,
        type: LEVEL_ACCEPTED_EVENT,
        actor: 'operator',
        data: { party: party?.order ?? 'seal', required: policy.required, reached, reason: reason.slice(0, 300) },
      }),
    );
    this.log.warn(
      `request ${req.refId}: ${party ? `party ${party.order}` : 'the seal'} completed at ${reached} (operator)`,
    );
  }

  /**
   * Makes a signed document the request's current one and the party completed, in the caller's transaction, if the
   * document it was made from (`base`) is still the current one; then the next signer of a sequential request is
   * invited. Used for electronic signatures (applyParty) and for signatures made outside, on a prepared document
   * (Aadhaar eSign, DSC). Answers false when the request or the document moved on first.
   */
  async commitSigned(
    manager: EntityManager,
    req: { orgId: string; refId: number },
    partyId: string,
    base: string,
    signedKey: string,
    certificate: CertificateSummary,
    now: Date,
    evidence: Pick<FinishedSignature, 'level' | 'timestamp'>,
    ready: (party: PartyEntity) => boolean = () => true,
    /** When the document was prepared: the day its date fields show (issue 21). */
    preparedAt: Date = now,
  ): Promise<boolean> {
    const fresh = await this.repo.lockRequest(manager, req.orgId, req.refId);
    if (fresh.status !== 'in-progress' || (fresh.signedFileKey ?? fresh.fileKey) !== base) return false;
    const parties = await this.repo.parties(manager, fresh.refId);
    const me = parties.find((p) => p.id === partyId);
    const to = me && ready(me) ? partyTransition(me.status, 'complete') : null;
    if (!me || !to) return false;
    me.status = to;
    me.signedAt = now;
    me.signatureSubmittedAt ??= now;
    me.signCertificate = certificate;
    me.signatureLevel = evidence.level;
    me.timestampAt = evidence.timestamp?.time ?? null;
    me.timestampTsa = evidence.timestamp?.tsa.slice(0, 200) ?? null;
    if (me.fields?.some((f) => f.kind === 'date')) {
      // The date fields show the day the document was prepared, as drawn in it (partySignatureSpec).
      const { timeZone } = await this.repo.organisation(fresh.orgId);
      const day = dateSignedValue(preparedAt, timeZone);
      me.fields = me.fields.map((f) =>
        f.kind === 'date'
          ? { ...f, value: day, sha256: sha256Hex(day), filledAt: now.toISOString(), filledBy: 'signing' }
          : f,
      );
    }
    me.updatedAt = now;
    await manager.save(PartyEntity, me);
    fresh.signedFileKey = signedKey;
    fresh.signersDone = parties.filter((p) => !p.observer && p.status === 'completed').length;
    fresh.sealError = null;
    fresh.sealFailedAt = null;
    fresh.updatedAt = now;
    await manager.save(RequestEntity, fresh);
    await this.audit.recordParty(
      manager,
      me,
      'party.signed',
      null,
      {
        method: me.signMethod,
        kind: me.signatureKind,
        documentSha256: signedKey,
        certificate: certificate.subject,
        serialNumber: certificate.serialNumber,
        level: evidence.level,
        timestampedAt: evidence.timestamp?.time.toISOString() ?? null,
        tsa: evidence.timestamp?.tsa ?? null,
        ...(me.fields?.length ? { fields: Object.fromEntries(me.fields.map((f) => [f.id, f.sha256])) } : {}),
      },
      'system',
    );
    await this.lifecycle.partySigned(manager, fresh, parties, me);
    return true;
  }

  /**
   * The certificate of completion and the final seal (B-T), then the document's validation data (B-LT) and its
   * archive timestamp (B-LTA), as the organisation asks; false when another run changed the document first.
   */
  private async complete(
    req: RequestEntity,
    org: OrganisationEntity,
    parties: PartyEntity[],
    policy: LevelPolicy,
  ): Promise<boolean> {
    const base = req.signedFileKey ?? req.fileKey;
    // The level this completion reaches is settled before the certificate says it: the organisation's, or (an
    // operator having accepted less) what can be had when no timestamp authority answers. Nothing below falls back.
    const planned = await this.plannedLevel(req, policy);
    const events = await this.audit.list(this.db.manager, req.orgId, req.refId);
    const now = this.clock.now();
    const certificate: CompletionCertificateInput = {
      organisation: org.name,
      filename: req.filename,
      refId: req.refId,
      totalPages: req.totalPages,
      originalSha256: req.fileKey,
      signedSha256: base,
      submittedAt: req.submittedAt ?? req.createdAt,
      completedAt: now,
      parties: await Promise.all(parties.map((p) => this.certificateParty(p))),
      events: events.map((e) => certificateEvent(e, org.timeZone)),
      chainIntact: this.audit.verifyChain(events) === null,
      lastHash: events[events.length - 1]?.hash ?? '',
      timeZone: org.timeZone,
      evidence: { level: planned, timestamps: this.timestamps.describe() },
      fields: certificateFields(parties),
    };
    const seal = await this.pki.sealSigner(org);
    const prepared = await this.engine.prepareCompletion(await this.document(base), certificate, {
      fieldName: 'esign_seal',
      name: org.name,
      reason: `Sealed by ${org.name}: every party has signed (Ref ID ${req.refId})`,
      signingTime: now,
    });
    const cms = await this.engine.signWith(prepared.digest, seal.signer);
    const sealed = await this.engine.finish(prepared, cms, levelRank(planned) >= levelRank('B-T') ? 'B-T' : 'B-B');
    let level: SignatureLevel = sealed.level;
    let archive: ArchivedDocument | null = null;
    if (planned === 'B-LT' || planned === 'B-LTA') {
      archive = await this.engine.archive(sealed.signed, planned);
      level = archive.level;
    }
    const { signed } = archive ?? sealed;
    const stored = await this.storage.put(signed.parts, signed.key, signed.previous);
    const renewAt = archive?.timestamp ? renewalTime(archive.timestamp) : null;

    const done = await this.db.transaction(async (manager) => {
      const fresh = await this.repo.lockRequest(manager, req.orgId, req.refId);
      if (fresh.status !== 'in-progress' || (fresh.signedFileKey ?? fresh.fileKey) !== base) return false;
      const all = await this.repo.parties(manager, fresh.refId);
      for (const p of all) {
        if (!p.observer) continue;
        const to = partyTransition(p.status, 'complete');
        if (!to) continue;
        p.status = to;
        p.updatedAt = now;
        await manager.save(PartyEntity, p);
      }
      fresh.status = 'completed';
      fresh.completedAt = now;
      fresh.endedAt = now;
      fresh.signedFileKey = stored.key;
      fresh.sealError = null;
      fresh.sealFailedAt = null;
      fresh.evidenceLevel = level;
      fresh.archivedAt = archive?.timestamp?.time ?? null;
      fresh.archiveRenewAt = renewAt;
      fresh.updatedAt = now;
      await manager.save(RequestEntity, fresh);
      await this.audit.record(manager, {
        orgId: fresh.orgId,
        refId: fresh.refId,
        type: 'request.completed',
        actor: 'system',
        data: {
          documentSha256: stored.key,
          seal: seal.certificate.subject,
          serialNumber: seal.certificate.serialNumber,
          level,
          sealTimestampedAt: sealed.timestamp?.time.toISOString() ?? null,
          tsa: sealed.timestamp?.tsa ?? null,
          archiveTimestampedAt: archive?.timestamp?.time.toISOString() ?? null,
          revocationGaps: archive?.gaps.length ? archive.gaps : null,
        },
      });
      const downloadUrl = await this.links.documentUrl(
        fresh.orgId,
        fresh.refId,
        'signed',
        Limits.completedLinkDays * 86_400,
      );
      await this.events.completed(manager, org, fresh, all, downloadUrl);
      return true;
    });
    return done;
  }

  private async certificateParty(p: PartyEntity): Promise<CertificateParty> {
    return {
      order: p.order,
      name: p.name,
      email: p.email,
      phoneNumber: p.phoneNumber,
      role: p.observer ? 'Receives a copy' : 'Signer',
      status: p.observer ? 'completed' : p.status,
      method: methodText(p),
      invitedAt: p.invitedAt,
      openedAt: p.openedAt,
      acceptedAt: p.acceptedAt,
      signedAt: p.signedAt,
      ip: p.signerIp,
      userAgent: p.userAgent,
      location: p.geo ? { latitude: p.geo.latitude, longitude: p.geo.longitude, country: p.geo.country } : null,
      otpVerifiedAt: p.otpVerifiedAt,
      face: p.selfieKey ? { checked: p.faceScore !== null, thumbnail: await this.storage.get(p.selfieKey) } : null,
      liveness: p.liveness
        ? { score: p.liveness.score, threshold: p.liveness.threshold, passed: p.liveness.passed }
        : null,
      certificate: p.signCertificate,
      evidence: p.signatureLevel
        ? { level: p.signatureLevel, timestampedAt: p.timestampAt, tsa: p.timestampTsa }
        : null,
    };
  }
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function certificateEvent(e: AuditEventEntity, timeZone: string): CertificateEvent {
  return {
    at: e.createdAt,
    type: e.type,
    actor: e.actor,
    ip: e.ip,
    detail: eventDetail(e.data, timeZone),
    hash: e.hash,
  };
}

/** Every field a signer filled (issue 21), as the certificate of completion lists it. */
function certificateFields(parties: PartyEntity[]): CertificateField[] {
  const attachments = new Map(
    parties.flatMap((p) => (p.fields ?? []).map((f) => [`${p.order}:${f.id}`, f.attachment] as const)),
  );
  return filledFields(parties).map((f) => {
    const file = attachments.get(`${f.signer}:${f.id}`) ?? null;
    return {
      signer: f.signer,
      signerName: f.signerName,
      kind: f.kind,
      label: f.label,
      value: f.value,
      filledAt: f.filledAt ? new Date(f.filledAt) : null,
      sha256: f.sha256,
      attachment: file ? { name: file.name, type: file.type, size: file.size } : null,
    };
  });
}
