import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Limits,
  Messages,
  RecipientMessages,
  SigningMethod,
  cleanText,
  type FailedReport,
  type FailedResponse,
  type FlagText,
  type InitResponse,
  type LocationResponse,
  type ReferenceResponse,
  type RetryResponse,
  type ReturnUrlResponse,
  type SignatureFields,
  type SignatureKind,
  type SignerDetails,
  type SigningRequest,
  type SigningStatusResponse,
  type SigningMethodCode,
} from '@esign/contract';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { AadhaarService } from '../aadhaar/aadhaar.service';
import { DscService } from '../dsc/dsc.service';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { FaceService } from '../identity/face/face.service';
import { LocationService } from '../identity/location/location.service';
import { JobsRunner } from '../jobs/jobs.runner';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { PartyEntity } from '../requests/party.entity';
import { RequestEvents } from '../requests/request-events';
import { RequestsService } from '../requests/requests.service';
import { MetricsService } from '../metrics/metrics.service';
import { LinksService } from '../secrets/links.service';
import { checkImage, checkSignatureImage, fromDataUrl } from '../signing/electronic/signature-image';
import { SealQueue } from '../signing/seal.queue';
import { DocumentStorage } from '../storage/document-storage';
import {
  allowedMethods,
  closedReason,
  esignStatus,
  locationRemark,
  originalSignatureType,
  partyTransition,
  refuseAction,
  refuseSigning,
  type RulePolicy,
} from '../requests/rules';
import { asSeenBy, loadSigner, type Loaded, type SignerContext } from './signer-link.guard';
import { SignerSessions, signingOver } from './signer-sessions.service';
import { SignerOtpService } from './signer-otp.service';

const flag = (value: boolean): FlagText => (value ? 'true' : 'false');
const refused = (message: string) => new AppError('SIGNING_REFUSED', message);

/** What the signature pad sends (spec: drawn, typed name in normal or italic, or an uploaded image). */
export interface SignatureInput extends SignatureFields {
  /** The multipart file part, when the image came as one (else `dataUrl`, or nothing). */
  file: { bytes: Buffer; filename: string | null } | null;
}

function policyOf(org: OrganisationEntity): RulePolicy {
  return {
    dscDownloadUrl: org.dscDownloadUrl,
    locationCapture: org.locationCapture,
    faceCapture: org.faceCapture,
    aadhaarFaceCapture: org.aadhaarFaceCapture,
    esignatureFaceCapture: org.esignatureFaceCapture,
    liveVideo: org.liveVideo,
  };
}

function userAgentText(body: SignerDetails['userAgent'], header: string | undefined): string | null {
  if (body && typeof body === 'object') {
    const browser = cleanText(body.Browser, 120);
    const os = cleanText(body.OS, 120);
    if (browser || os) return [browser, os].filter(Boolean).join(' on ');
  }
  return cleanText(body, 300) ?? cleanText(header, 300);
}

/**
 * The recipient side of the /v1 contract (spec sections 4 and 7): what a party sees, the signer details, location,
 * accept (status 'signing'), reject, choosing a method, submitting an electronic signature, failure and retry. Every
 * change re-reads the request and the parties inside a transaction (the request row locked on engines with row
 * locks) and asks the rules in rules.ts, so two tabs or a double click cannot sign twice or sign out of turn.
 */
@Injectable()
export class RecipientsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly links: LinksService,
    private readonly requests: RequestsService,
    private readonly events: RequestEvents,
    private readonly storage: DocumentStorage,
    private readonly location: LocationService,
    private readonly seal: SealQueue,
    private readonly runner: JobsRunner,
    private readonly aadhaar: AadhaarService,
    private readonly dsc: DscService,
    private readonly face: FaceService,
    private readonly metrics: MetricsService,
    private readonly sessions: SignerSessions,
    private readonly otp: SignerOtpService,
  ) {}

  private load(manager: EntityManager, ctx: SignerContext, lock: boolean): Promise<Loaded> {
    return loadSigner(manager, this.requests, ctx, lock);
  }

  private inTransaction<T>(ctx: SignerContext, work: (loaded: Loaded, manager: EntityManager) => Promise<T>) {
    return this.db.transaction(async (manager) => work(await this.load(manager, ctx, true), manager));
  }

  /** GET /v1/reference/{orgId}/{refId}/{orderNo}: the signing request (spec section 3). */
  async reference(ctx: SignerContext): Promise<ReferenceResponse> {
    const { req, me, org } = await this.load(this.db.manager, ctx, false);
    const live = req.status === 'in-progress';
    // Verified means verified in this browser (a live signer session), not once by anyone holding the link.
    const otpPending = req.otpRequired && !ctx.session;
    // The document is shown once the party has proved who they are, and never on a closed request.
    const showDocument = live && !me.observer && !otpPending;
    const documentKind = req.signedFileKey ? 'signed' : 'original';
    const request: SigningRequest = {
      name: live ? me.name : '',
      email: live ? me.email : '',
      phoneNumber: live ? me.phoneNumber : '',
      uploadUrl: showDocument ? await this.links.documentUrl(req.orgId, req.refId, documentKind) : null,
      status: me.status,
      request_status: req.status,
      otpRequired: req.otpRequired,
      auth: !otpPending,
      auth_type: req.otpRequired ? 'otp' : 'link',
      refId: req.refId,
      refIds: [req.refId],
      requestId: me.id,
      orgId: req.orgId,
      orderNo: me.order,
      live_video: flag(org.liveVideo),
      live_video_threshold: org.liveVideoThreshold,
      face_capture: flag(org.faceCapture),
      location_capture: flag(org.locationCapture),
      aadhaar_face_capture: flag(org.aadhaarFaceCapture),
      esignature_face_capture: flag(org.esignatureFaceCapture),
      otp_verification: flag(req.otpRequired),
      otpVerificationRequired: flag(otpPending),
      signature_type: me.signMethod,
      original_signature_type: originalSignatureType(me.signatureType),
      signing_methods: allowedMethods(me.signatureType, Boolean(org.dscDownloadUrl)),
      accepted: Boolean(me.acceptedAt),
      esignStatus: esignStatus(req.status, me, Limits.maxSignAttempts),
      esignedDate: (me.signedAt ?? (req.status === 'completed' ? req.completedAt : null))?.toISOString() ?? null,
      updated_timestamp: me.updatedAt.toISOString(),
      timestamp: req.submittedAt?.toISOString() ?? null,
      total_pages: req.totalPages,
      rectangle: me.rectangle,
      remark: live ? locationRemark(me.geo) : null,
      seal_error: live && me.signatureSubmittedAt && me.status !== 'completed' ? req.sealError : null,
      dsc_download_url: live ? org.dscDownloadUrl : null,
      dsc_tutorial_url: live ? org.dscTutorialUrl : null,
      return_url: org.returnUrl,
      document_name: showDocument ? req.filename : null,
      organisation_name: org.name,
      boxes: showDocument
        ? (me.boxes ?? []).map(({ pages, x, y, width, height }) => ({ pages, x, y, width, height }))
        : null,
      time_zone: org.timeZone,
      otp: live && otpPending && !me.observer ? await this.otp.pending(me) : null,
      checks: { location: me.geo !== null, face: me.selfieKey !== null, liveness: me.liveness?.passed === true },
    };
    return { code: 200, request, total_pages: req.totalPages };
  }

  /** POST /v1/signer_details: status opened, then signing (the party accepted); IP, device, position, selfie. */
  async signerDetails(
    ctx: SignerContext,
    body: SignerDetails,
    ip: string | null,
    userAgentHeader: string | undefined,
  ): Promise<{ code: 200; message: string; status: string }> {
    const { status, position } = body;
    let selfieKey: string | null = null;
    let faceScore: number | null = null;
    if (body.selfie !== null) {
      // A face capture on an OTP request comes only from the browser that verified the OTP.
      if (ctx.request.otpRequired && !ctx.session && !signingOver(ctx.request, ctx.party))
        throw new AppError('OTP_REQUIRED', RecipientMessages.otpSessionRequired);
      const bytes = fromDataUrl(body.selfie);
      if (!bytes) throw new AppError('UNSUPPORTED_MEDIA_TYPE', RecipientMessages.selfieInvalid);
      await checkImage(bytes, {
        maxBytes: Limits.selfieMaxBytes,
        tooLarge: RecipientMessages.selfieInvalid,
        invalid: RecipientMessages.selfieInvalid,
      });
      // The server's own face check decides (the browser's only gives quick feedback): exactly one face.
      const faces = await this.face.facesIn(bytes).catch((error: unknown) => {
        if (error instanceof AppError) throw error;
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', RecipientMessages.selfieInvalid);
      });
      if (!faces.length) throw new AppError('VALIDATION_FAILED', RecipientMessages.noFace);
      if (faces.length > 1) throw new AppError('VALIDATION_FAILED', RecipientMessages.manyFaces);
      faceScore = Math.round(faces[0].score * 1000) / 1000;
      selfieKey = (await this.storage.put(bytes)).key;
    }
    const userAgent = userAgentText(body.userAgent, userAgentHeader);

    const next = await this.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
      const refusal = refuseAction(req, me, parties);
      if (refusal) throw refused(refusal);
      const now = this.clock.now();
      const event = status === 'signing' ? 'accept' : 'open';
      const to = partyTransition(me.status, event);
      if (!to) throw refused(me.status === 'failed' ? RecipientMessages.retryFirst : RecipientMessages.acceptFirst);
      const firstOpen = !me.openedAt;
      const accepting = event === 'accept' && !me.acceptedAt;
      me.status = to;
      me.openedAt ??= now;
      if (accepting) me.acceptedAt = now;
      me.signerIp = ip;
      if (userAgent) me.userAgent = userAgent;
      if (selfieKey) {
        me.selfieKey = selfieKey;
        me.faceScore = faceScore;
      }
      if (position && (!me.geo || !org.locationCapture))
        me.geo = this.location.decide(org, position.lat, position.long);
      me.updatedAt = now;
      await manager.save(PartyEntity, me);
      if (firstOpen) {
        await this.audit.recordParty(manager, me, 'party.opened', ip, { userAgent });
        await this.events.opened(manager, req, me);
      }
      if (accepting) await this.audit.recordParty(manager, me, 'party.accepted', ip, { userAgent });
      if (selfieKey)
        await this.audit.recordParty(manager, me, 'party.face_captured', ip, { selfieSha256: selfieKey, faceScore });
      return to;
    });
    return { code: 200, message: RecipientMessages.detailsSaved, status: next };
  }

  async locationRequired(ctx: SignerContext): Promise<{ code: 200; location_required: FlagText }> {
    const org = await this.requests.organisation(ctx.request.orgId);
    return { code: 200, location_required: flag(org.locationCapture) };
  }

  async videoOrgStatus(ctx: SignerContext): Promise<{ code: 200; live_video: FlagText; live_video_threshold: number }> {
    const org = await this.requests.organisation(ctx.request.orgId);
    return { code: 200, live_video: flag(org.liveVideo), live_video_threshold: org.liveVideoThreshold };
  }

  /** POST /v1/get_location: where the signer is and whether the organisation lets them sign from there. */
  async getLocation(
    ctx: SignerContext,
    { lat, long }: { lat: number; long: number },
    ip: string | null,
  ): Promise<LocationResponse> {
    const decided = await this.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
      const refusal = refuseAction(req, me, parties);
      if (refusal) throw refused(refusal);
      const geo = this.location.decide(org, lat, long);
      me.geo = geo;
      me.updatedAt = this.clock.now();
      await manager.save(PartyEntity, me);
      await this.audit.recordParty(manager, me, geo.allowed ? 'party.located' : 'party.location_blocked', ip, {
        ...geo,
      });
      return geo;
    });
    return {
      code: 200,
      allow_signing_from_india: decided.allowed,
      remark: locationRemark(decided),
      country: decided.country,
      in_india: decided.inIndia,
    };
  }

  /**
   * GET /v1/init/{orgId}/{requestId}?method=N: checks that the party may sign with the method now and records the
   * choice. The Aadhaar (0) and DSC (1) gateways come with their own step; until then they answer 503.
   */
  async init(ctx: SignerContext, method: SigningMethodCode, ip: string | null): Promise<InitResponse> {
    const loaded = await this.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
      const refusal = refuseSigning(req, asSeenBy(me, req, ctx.session), parties, policyOf(org), method);
      if (refusal) throw refused(refusal);
      if (me.signMethod !== method) {
        me.signMethod = method;
        me.updatedAt = this.clock.now();
        await manager.save(PartyEntity, me);
        await this.audit.recordParty(manager, me, 'party.method_chosen', ip, { method });
      }
      return { req, me, org };
    });
    const answer = { code: 200 as const, message: 'success', requestId: ctx.party.id, method, name: loaded.me.name };
    if (method !== SigningMethod.Aadhaar) return answer;
    // The prepared document and the signed <Esign> request the page posts to the ESP (DESIGN.md section 5).
    return { ...answer, ...(await this.aadhaar.start(loaded.req, loaded.me, loaded.org, ip)) };
  }

  /**
   * POST /v1/dscToken/{orgId}/{requestId}: the USB token password for the signer's desktop agent, which signs with the
   * token; answers once the signature is in the document (the page then polls the status). Refusals are 400 (hold-on).
   */
  async dscToken(ctx: SignerContext, pin: string, ip: string | null) {
    const loaded = await this.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
      const refusal = refuseSigning(req, asSeenBy(me, req, ctx.session), parties, policyOf(org), SigningMethod.DSC);
      if (refusal) throw refused(refusal);
      if (me.signMethod !== SigningMethod.DSC) {
        me.signMethod = SigningMethod.DSC;
        me.updatedAt = this.clock.now();
        await manager.save(PartyEntity, me);
        await this.audit.recordParty(manager, me, 'party.method_chosen', ip, { method: SigningMethod.DSC });
      }
      return { req, me, org };
    });
    const answer = await this.dsc.sign(loaded.req, loaded.me, loaded.org, pin, ip);
    this.runner.nudge();
    return answer;
  }

  /** GET /v1/aadhaar_discrepancy_check/{requestId}: did the name in the Aadhaar certificate match the party's? */
  async discrepancy(ctx: SignerContext) {
    const { me, org } = await this.load(this.db.manager, ctx, false);
    return this.aadhaar.discrepancy(me, org.returnUrl);
  }

  /**
   * POST /v1/esignature/{orgId}/{requestId}: the electronic signature (method 2). The image is checked and stored,
   * the submission recorded once (a conditional update: a second submit, another tab or a retry finds it taken), and
   * the seal job applies it to the document.
   */
  async esignature(ctx: SignerContext, input: SignatureInput, ip: string | null) {
    const { kind, style } = input;
    let imageKey: string | null = null;
    let resolvedKind: SignatureKind;
    if (kind === 'typed') {
      resolvedKind = 'typed';
    } else {
      const fromUrl = input.dataUrl !== null ? fromDataUrl(input.dataUrl) : null;
      if (input.dataUrl !== null && !fromUrl)
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', Messages.invalidSignatureImage);
      const bytes = input.file?.bytes ?? fromUrl;
      if (!bytes) throw new AppError('VALIDATION_FAILED', Messages.emptySignaturePad);
      resolvedKind = kind ?? (input.file?.filename ? 'uploaded' : 'drawn');
      await checkSignatureImage(bytes, resolvedKind === 'uploaded' ? (input.file?.filename ?? null) : null);
      imageKey = (await this.storage.put(bytes)).key;
    }

    await this.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
      const refusal = refuseSigning(
        req,
        asSeenBy(me, req, ctx.session),
        parties,
        policyOf(org),
        SigningMethod.ESignature,
      );
      if (refusal) throw refused(refusal);
      const now = this.clock.now();
      const taken = await manager.update(
        PartyEntity,
        { id: me.id, status: 'signing', signatureSubmittedAt: IsNull() },
        {
          signMethod: SigningMethod.ESignature,
          signatureKind: resolvedKind,
          signatureStyle: resolvedKind === 'typed' ? style : null,
          signatureKey: imageKey,
          signatureSubmittedAt: now,
          signerIp: ip,
          updatedAt: now,
        },
      );
      if (!taken.affected) throw refused(RecipientMessages.alreadySigned);
      // The party's signing has ended: so has every session of it.
      await this.sessions.endFor(manager, [me.id]);
      await this.audit.recordParty(manager, me, 'party.signature_submitted', ip, {
        method: SigningMethod.ESignature,
        kind: resolvedKind,
        style: resolvedKind === 'typed' ? style : null,
        imageSha256: imageKey,
      });
      await this.seal.enqueue(manager, req, me);
    });
    this.metrics.signed(SigningMethod.ESignature);
    this.runner.nudge();
    return { code: 200 as const, message: RecipientMessages.signed, requestId: ctx.party.id, status: 'signing' };
  }

  /** GET /v1/request/{orgId}/{requestId}: the party's status, polled every second by the signing page. */
  async status(ctx: SignerContext): Promise<SigningStatusResponse> {
    const { req, me } = await this.load(this.db.manager, ctx, false);
    return {
      code: 200,
      status: me.status,
      signature_type: me.signMethod,
      refId: req.refId,
      orderNo: me.order,
      request_status: req.status,
      esignStatus: esignStatus(req.status, me, Limits.maxSignAttempts),
      signed: me.status === 'completed',
      seal_error: me.signatureSubmittedAt && me.status !== 'completed' ? req.sealError : null,
    };
  }

  /** POST /v1/esign/reject: the party rejects with a remark; the request is closed and the others are told. */
  async reject(ctx: SignerContext, remark: string, ip: string | null): Promise<ReturnUrlResponse> {
    const org = await this.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
      const refusal = refuseAction(req, me, parties);
      if (refusal) throw refused(refusal);
      const to = partyTransition(me.status, 'reject');
      if (!to) throw refused(RecipientMessages.invalidLink);
      const now = this.clock.now();
      me.status = to;
      me.rejectedAt = now;
      me.rejectRemark = remark;
      me.signerIp = ip;
      me.updatedAt = now;
      await manager.save(PartyEntity, me);
      req.status = 'rejected';
      req.updatedAt = now;
      await manager.save(req);
      // Told by e-mail and SMS: every other signer who had been invited (signed already or not); not those whose turn
      // had not come, nor copy-receivers (they hear only of the completed document).
      const others: PartyEntity[] = [];
      for (const p of parties) {
        if (p.id === me.id) continue;
        if (p.invitedAt && !p.observer) others.push(p);
        const cancelled = partyTransition(p.status, 'cancel');
        if (cancelled && p.status !== 'completed') {
          p.status = cancelled;
          p.updatedAt = now;
          await manager.save(PartyEntity, p);
        }
      }
      await this.sessions.endFor(
        manager,
        parties.map((p) => p.id),
      );
      await this.audit.recordParty(manager, me, 'party.rejected', ip, { remark });
      const notice = await this.events.rejected(manager, org, req, me, others);
      await this.audit.record(manager, {
        orgId: me.orgId,
        refId: me.refId,
        type: 'request.rejected',
        actor: `party:${me.order}`,
        data: { ...notice, told: others.map((p) => p.order) },
      });
      return org;
    });
    return { code: 200, message: RecipientMessages.rejected, return_url: org.returnUrl };
  }

  /**
   * GET /v1/download/{orgId}/{requestId}: where to go after signing, and the signed document and its verification
   * report once it exists.
   */
  async download(ctx: SignerContext): Promise<ReturnUrlResponse> {
    const { req, me, org } = await this.load(this.db.manager, ctx, false);
    const signed = me.status === 'completed' && req.signedFileKey && ['in-progress', 'completed'].includes(req.status);
    return {
      code: 200,
      message: 'success',
      return_url: org.returnUrl,
      download_url: signed ? await this.links.documentUrl(req.orgId, req.refId, 'signed') : null,
      verification_url: signed ? await this.links.reportUrl(req.orgId, req.refId) : null,
    };
  }

  /**
   * POST /v1/failed/{orgId}/{requestId}: the failed page reports a failed attempt (once per attempt: a reload of the
   * page does not count again). send_email false (the address carried the email flag) sends no message.
   */
  async failed(
    ctx: SignerContext,
    { sendEmail, errorCode: code, errorMessage: message }: FailedReport,
    ip: string | null,
  ): Promise<FailedResponse> {
    const result = await this.inTransaction(ctx, async ({ req, me, org }, manager) => {
      // A finished request's link only answers the status pages: no failure is recorded, and none is claimed.
      const closed = closedReason(req.status);
      if (closed) throw refused(closed);
      const now = this.clock.now();
      const to = req.status === 'in-progress' && me.status === 'signing' && !me.signatureSubmittedAt;
      if (to) {
        me.status = partyTransition(me.status, 'fail') ?? me.status;
        me.failedAttempts += 1;
        me.lastErrorCode = code ?? me.lastErrorCode ?? 'FAILED';
        me.lastErrorMessage = message ?? me.lastErrorMessage ?? 'The signing attempt did not complete.';
        me.updatedAt = now;
        await manager.save(PartyEntity, me);
        await this.audit.recordParty(manager, me, 'party.failed', ip, {
          errorCode: me.lastErrorCode,
          errorMessage: me.lastErrorMessage,
          attempt: me.failedAttempts,
        });
        await this.events.failed(manager, org, req, me, me.lastErrorMessage ?? '', sendEmail);
      }
      return { req, me, org };
    });
    const { req, me, org } = result;
    return {
      code: 200,
      message: RecipientMessages.failureRecorded,
      errorCode: me.lastErrorCode ?? '',
      errorMessage: me.lastErrorMessage ?? '',
      requestId: me.id,
      refId: req.refId,
      signatureType: me.signMethod as SigningMethodCode | null,
      order: me.order,
      return_url: org.returnUrl,
      attempts_left: Math.max(0, Limits.maxSignAttempts - me.failedAttempts),
    };
  }

  /** GET /v1/retry/{orgId}/{requestId}: another attempt, until the limit ('Count Exceeded'). */
  async retry(ctx: SignerContext, ip: string | null): Promise<RetryResponse> {
    return this.inTransaction(ctx, async ({ req, parties, me }, manager) => {
      const closed = closedReason(req.status);
      if (closed) throw refused(closed);
      const base = { code: 200 as const, order: me.order, requestId: me.id };
      if (me.failedAttempts >= Limits.maxSignAttempts)
        return { ...base, message: Messages.countExceeded, attempt: me.failedAttempts };
      const to = partyTransition(me.status, 'retry');
      if (!to) throw refused(RecipientMessages.nothingToRetry);
      const refusal = refuseAction(req, { ...me, status: to }, parties);
      if (refusal) throw refused(refusal);
      me.status = to;
      me.updatedAt = this.clock.now();
      await manager.save(PartyEntity, me);
      await this.audit.recordParty(manager, me, 'party.retry', ip, { attempt: me.failedAttempts + 1 });
      return { ...base, message: RecipientMessages.retryAllowed, attempt: me.failedAttempts + 1 };
    });
  }
}
