import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Limits, RequestMessages, SigningMethod, formatDateTime } from '@esign/contract';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import type { AuditEventEntity } from '../audit/audit-event.entity';
import type { JobContext } from '../jobs/job.types';
import { JobsRunner } from '../jobs/jobs.runner';
import { partyTransition } from '../recipients/rules';
import { PartyEntity } from '../requests/party.entity';
import { RequestEntity } from '../requests/request.entity';
import { RequestEvents } from '../requests/request-events';
import { RequestsService, toRefId } from '../requests/requests.service';
import { MetricsService } from '../metrics/metrics.service';
import { LinksService } from '../secrets/links.service';
import { DocumentStorage } from '../storage/document-storage';
import type { CertificateEvent, CertificateParty, CompletionCertificateInput } from './pdf/completion-certificate';
import { SigningEngine, type StampInput } from './pdf/engine';
import { SealPkiService, type CertificateSummary } from './pki/seal-pki.service';
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, type SealJobPayload } from './seal.queue';

export interface SealOutcome {
  /** Parties whose signature this run applied. */
  applied: number;
  /** This run added the certificate of completion and the final seal. */
  completed: boolean;
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
@Injectable()
export class SealService implements OnModuleInit {
  private readonly log = new Logger('Seal');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly storage: DocumentStorage,
    private readonly audit: AuditService,
    private readonly pki: SealPkiService,
    private readonly engine: SigningEngine,
    private readonly requests: RequestsService,
    private readonly events: RequestEvents,
    private readonly links: LinksService,
    private readonly runner: JobsRunner,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.runner.register<SealJobPayload>(SEAL_JOB, (payload, ctx) => this.handle(payload, ctx));
  }

  private async handle({ orgId, refId }: SealJobPayload, ctx: JobContext): Promise<void> {
    try {
      await this.run(orgId, refId);
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

  /** The operator's `manage reseal`: runs the seal now, whatever the job's state; a failure is recorded as a job's. */
  async reseal(refIdText: string): Promise<SealOutcome & { status: string }> {
    const refId = toRefId(refIdText);
    const req = refId === null ? null : await this.db.manager.findOneBy(RequestEntity, { refId });
    if (!req || refId === null) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    let outcome: SealOutcome;
    try {
      outcome = await this.run(req.orgId, refId);
    } catch (err) {
      await this.recordFailure(req.orgId, refId, err, false);
      throw new AppError('UNAVAILABLE', `Sealing request ${refId} failed: ${(err as Error).message}`);
    }
    const after = await this.db.manager.findOneByOrFail(RequestEntity, { refId });
    return { ...outcome, status: after.status };
  }

  /** Works through the request until nothing is left to apply. */
  async run(orgId: string, refId: number): Promise<SealOutcome> {
    const outcome: SealOutcome = { applied: 0, completed: false };
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const req = await this.db.manager.findOneBy(RequestEntity, { orgId, refId });
      if (!req || req.status !== 'in-progress') return outcome;
      const parties = await this.requests.parties(this.db.manager, refId);
      const pending = parties
        .filter((p) => !p.observer && p.signatureSubmittedAt && p.status !== 'completed')
        .sort((a, b) => a.signatureSubmittedAt!.getTime() - b.signatureSubmittedAt!.getTime() || a.order - b.order);
      if (pending.length) {
        if (await this.applyParty(req, pending[0])) outcome.applied++;
        continue;
      }
      const signers = parties.filter((p) => !p.observer);
      if (!signers.length || !signers.every((p) => p.status === 'completed')) return outcome;
      if (await this.complete(req, parties)) {
        outcome.completed = true;
        this.metrics.sealCompleted();
        return outcome;
      }
    }
    throw new Error(`the seal of request ${refId} did not settle after ${MAX_ROUNDS} rounds`);
  }

  /** Stamps and signs one party's signature on the current document; false when another run changed it first. */
  private async applyParty(req: RequestEntity, party: PartyEntity): Promise<boolean> {
    const base = req.signedFileKey ?? req.fileKey;
    const org = await this.requests.organisation(req.orgId);
    const stamp: StampInput = {
      boxes: party.boxes ?? [],
      image: party.signatureKey ? await this.storage.get(party.signatureKey) : null,
      text: party.signatureKind === 'typed' ? { value: party.name, italic: party.signatureStyle === 'italic' } : null,
    };
    const { signer, certificate } = await this.pki.signerFor(org, party);
    const now = this.clock.now();
    const signed = await this.engine.signParty(await this.storage.get(base), stamp, {
      signer,
      fieldName: `esign_party_${party.order}`,
      reason: `Signed by ${party.name} with an electronic signature (Ref ID ${req.refId})`,
      location: party.geo?.country ?? null,
      contactInfo: party.email,
      signingTime: now,
    });
    const stored = await this.storage.put(Buffer.from(signed));
    return this.db.transaction((manager) =>
      this.commitSigned(
        manager,
        req,
        party.id,
        base,
        stored.key,
        certificate,
        now,
        (me) => me.signatureSubmittedAt !== null,
      ),
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
    ready: (party: PartyEntity) => boolean = () => true,
  ): Promise<boolean> {
    const fresh = await this.requests.lockRequest(manager, req.orgId, req.refId);
    if (fresh.status !== 'in-progress' || (fresh.signedFileKey ?? fresh.fileKey) !== base) return false;
    const parties = await this.requests.parties(manager, fresh.refId);
    const me = parties.find((p) => p.id === partyId);
    const to = me && ready(me) ? partyTransition(me.status, 'complete') : null;
    if (!me || !to) return false;
    me.status = to;
    me.signedAt = now;
    me.signatureSubmittedAt ??= now;
    me.signCertificate = certificate;
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
      },
      'system',
    );
    await this.events.signed(manager, fresh, me);
    if (fresh.checkOrder) {
      const next = parties.find((p) => !p.observer && p.status === 'waiting');
      if (next)
        await this.requests.invite(
          manager,
          await this.requests.organisation(fresh.orgId, manager),
          fresh,
          next,
          'system',
        );
    }
    return true;
  }

  /** The certificate of completion and the final seal; false when another run changed the document first. */
  private async complete(req: RequestEntity, parties: PartyEntity[]): Promise<boolean> {
    const base = req.signedFileKey ?? req.fileKey;
    const org = await this.requests.organisation(req.orgId);
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
    };
    const seal = await this.pki.sealSigner(org);
    const sealed = await this.engine.complete(await this.storage.get(base), certificate, {
      signer: seal.signer,
      fieldName: 'esign_seal',
      reason: `Sealed by ${org.name}: every party has signed (Ref ID ${req.refId})`,
      signingTime: now,
    });
    const stored = await this.storage.put(Buffer.from(sealed));

    return this.db.transaction(async (manager) => {
      const fresh = await this.requests.lockRequest(manager, req.orgId, req.refId);
      if (fresh.status !== 'in-progress' || (fresh.signedFileKey ?? fresh.fileKey) !== base) return false;
      const all = await this.requests.parties(manager, fresh.refId);
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
      fresh.signedFileKey = stored.key;
      fresh.sealError = null;
      fresh.sealFailedAt = null;
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
