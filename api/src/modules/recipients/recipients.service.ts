import { Injectable } from '@nestjs/common';
import {
  Limits,
  Messages,
  RecipientMessages,
  type FailedReport,
  type FailedResponse,
  type ReferenceResponse,
  type RetryResponse,
  type ReturnUrlResponse,
  type SigningRequest,
  type SigningStatusResponse,
  type SigningMethodCode,
} from '@esign/contract';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import type { ByteRange } from '../../common/http/byte-range';
import { AuditService } from '../audit/audit.service';
import { filledFields } from '../requests/fields';
import { PartyEntity } from '../requests/party.entity';
import { RequestRepository } from '../requests/request-repository';
import type { RequestEntity } from '../requests/request.entity';
import { RequestEvents } from '../requests/request-events';
import { LinksService } from '../secrets/links.service';
import {
  allowedMethods,
  closedReason,
  esignStatus,
  locationRemark,
  originalSignatureType,
  partyTransition,
  refuseAction,
} from '../requests/rules';
import type { SignerContext } from './signer-link.guard';
import { SignerSessions } from './signer-sessions.service';
import { SignerOtpService } from './signer-otp.service';
import { SignerRows, flag, refused } from './signer-rows';

/**
 * The document a party may see now, or null: once the party has proved who they are (verified in this browser where
 * the request asks for OTP), never on a closed request, never for an observer. The signed one once there is one.
 */
export function shownDocument(req: RequestEntity, me: PartyEntity, ctx: SignerContext): 'original' | 'signed' | null {
  if (req.status !== 'in-progress' || me.observer || (req.otpRequired && !ctx.session)) return null;
  return req.signedFileKey ? 'signed' : 'original';
}

/**
 * The recipient side of the /v1 contract (spec sections 4 and 7) that is the link holder's own: what a party sees, the
 * status, reject, download, failure and retry. The identity checks are SignerChecks', signing RecipientSigning's.
 * Every change re-reads the request and the parties inside a transaction (SignerRows: the request row locked on
 * engines with row locks) and asks the rules in requests/rules.ts, so two tabs or a double click cannot sign twice or
 * sign out of turn.
 */
@Injectable()
export class RecipientsService {
  constructor(
    private readonly rows: SignerRows,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly links: LinksService,
    private readonly events: RequestEvents,
    private readonly sessions: SignerSessions,
    private readonly otp: SignerOtpService,
    private readonly requests: RequestRepository,
  ) {}

  /** GET /v1/reference/{orgId}/{refId}/{orderNo}: the signing request (spec section 3). */
  async reference(ctx: SignerContext): Promise<ReferenceResponse> {
    const { req, me, org } = await this.rows.own(ctx);
    const live = req.status === 'in-progress';
    // Verified means verified in this browser (a live signer session), not once by anyone holding the link.
    const otpPending = req.otpRequired && !ctx.session;
    const documentKind = shownDocument(req, me, ctx);
    const showDocument = documentKind !== null;
    const request: SigningRequest = {
      name: live ? me.name : '',
      email: live ? me.email : '',
      phoneNumber: live ? me.phoneNumber : '',
      uploadUrl: documentKind ? await this.links.documentUrl(req.orgId, req.refId, documentKind) : null,
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
      language: me.language ?? null,
    };
    return { code: 200, request, total_pages: req.totalPages };
  }

  /**
   * GET /v1/document/{orgId}/{refId}/{orderNo} (issue 23): the document the reference's uploadUrl shows, by the link
   * token itself, so the signing page opens it beside the reference call instead of after its answer. The permission
   * is uploadUrl's (shownDocument); what is refused says why, as the other calls do.
   */
  async document(
    ctx: SignerContext,
    want: (size: number) => ByteRange | null,
  ): Promise<{ stream: Readable; filename: string; size: number; range: ByteRange | null }> {
    // The guard has just read the party and its request for this call (pdf.js makes a few per document): no more reads.
    const { request: req, party: me } = ctx;
    const kind = shownDocument(req, me, ctx);
    if (!kind) {
      if (closedReason(req.status)) throw refused(closedReason(req.status) as string);
      if (me.observer) throw refused(RecipientMessages.notASigner);
      throw new AppError('OTP_REQUIRED', RecipientMessages.otpSessionRequired);
    }
    return this.requests.streamOf(req, kind, want);
  }

  /** GET /v1/request/{orgId}/{requestId}: the party's status, polled every second by the signing page. */
  async status(ctx: SignerContext): Promise<SigningStatusResponse> {
    // The guard has just read the party and its request for this call: nothing else is needed.
    const { request: req, party: me } = ctx;
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
    const org = await this.rows.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
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
      req.endedAt = now;
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
    const { req, me, org, parties } = await this.rows.read(ctx);
    const signed = me.status === 'completed' && req.signedFileKey && ['in-progress', 'completed'].includes(req.status);
    const fields = signed ? filledFields(parties.filter((p) => p.status === 'completed')) : [];
    return {
      ...(fields.length ? { fields } : {}),
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
    const result = await this.rows.inTransaction(ctx, async ({ req, me, org }, manager) => {
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
    return this.rows.inTransaction(ctx, async ({ req, parties, me }, manager) => {
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
