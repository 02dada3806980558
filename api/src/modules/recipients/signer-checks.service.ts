import { Injectable } from '@nestjs/common';
import {
  Limits,
  RecipientMessages,
  cleanText,
  type FlagText,
  type LocationResponse,
  type SignerDetails,
} from '@esign/contract';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { FaceService } from '../identity/face/face.service';
import { LocationService } from '../identity/location/location.service';
import { PartyEntity } from '../requests/party.entity';
import { RequestEvents } from '../requests/request-events';
import { checkImage, fromDataUrl } from '../signing/electronic/signature-image';
import { DocumentStorage } from '../storage/document-storage';
import { locationRemark, partyTransition, refuseAction } from '../requests/rules';
import type { SignerContext } from './signer-link.guard';
import { signingOver } from './signer-sessions.service';
import { SignerRows, flag, refused } from './signer-rows';

function userAgentText(body: SignerDetails['userAgent'], header: string | undefined): string | null {
  if (body && typeof body === 'object') {
    const browser = cleanText(body.Browser, 120);
    const os = cleanText(body.OS, 120);
    if (browser || os) return [browser, os].filter(Boolean).join(' on ');
  }
  return cleanText(body, 300) ?? cleanText(header, 300);
}

/**
 * The checks a signer passes before signing, as the organisation asks (spec section 7): the signer details (IP, user
 * agent, location, selfie with its face check), the location check and the organisation's flags for them.
 */
@Injectable()
export class SignerChecks {
  constructor(
    private readonly rows: SignerRows,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly events: RequestEvents,
    private readonly storage: DocumentStorage,
    private readonly location: LocationService,
    private readonly face: FaceService,
  ) {}

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

    const next = await this.rows.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
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
    const org = await this.rows.organisation(ctx.request.orgId);
    return { code: 200, location_required: flag(org.locationCapture) };
  }

  async videoOrgStatus(ctx: SignerContext): Promise<{ code: 200; live_video: FlagText; live_video_threshold: number }> {
    const org = await this.rows.organisation(ctx.request.orgId);
    return { code: 200, live_video: flag(org.liveVideo), live_video_threshold: org.liveVideoThreshold };
  }

  /** POST /v1/get_location: where the signer is and whether the organisation lets them sign from there. */
  async getLocation(
    ctx: SignerContext,
    { lat, long }: { lat: number; long: number },
    ip: string | null,
  ): Promise<LocationResponse> {
    const decided = await this.rows.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
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
}
