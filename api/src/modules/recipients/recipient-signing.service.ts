import { Injectable } from '@nestjs/common';
import {
  Messages,
  RecipientMessages,
  SigningMethod,
  type InitResponse,
  type SignatureFields,
  type SignatureKind,
  type SigningMethodCode,
} from '@esign/contract';
import { IsNull } from 'typeorm';
import { AppError } from '../../common/app-error';
import { AadhaarService } from '../aadhaar/aadhaar.service';
import { DscService } from '../dsc/dsc.service';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { JobsRunner } from '../jobs/jobs.runner';
import { PartyEntity } from '../requests/party.entity';
import { MetricsService } from '../metrics/metrics.service';
import { checkSignatureImage, fromDataUrl } from '../signing/electronic/signature-image';
import { SealQueue } from '../requests/seal.queue';
import { DocumentStorage } from '../storage/document-storage';
import { refuseSigning } from '../requests/rules';
import { asSeenBy, type SignerContext } from './signer-link.guard';
import { SignerSessions } from './signer-sessions.service';
import { SignerRows, policyOf, refused } from './signer-rows';

/** What the signature pad sends (spec: drawn, typed name in normal or italic, or an uploaded image). */
export interface SignatureInput extends SignatureFields {
  /** The multipart file part, when the image came as one (else `dataUrl`, or nothing). */
  file: { bytes: Buffer; filename: string | null } | null;
}

/**
 * A signer's signature, by the method they chose (spec section 7): Aadhaar eSign (the ESP's form and the discrepancy
 * check), DSC (the desktop agent's token) or an electronic signature (drawn, typed or uploaded), each submitted once and
 * queued for the seal job.
 */
@Injectable()
export class RecipientSigning {
  constructor(
    private readonly rows: SignerRows,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly storage: DocumentStorage,
    private readonly seal: SealQueue,
    private readonly runner: JobsRunner,
    private readonly aadhaar: AadhaarService,
    private readonly dsc: DscService,
    private readonly metrics: MetricsService,
    private readonly sessions: SignerSessions,
  ) {}

  /**
   * GET /v1/init/{orgId}/{requestId}?method=N: checks that the party may sign with the method now and records the
   * choice. The Aadhaar (0) and DSC (1) gateways come with their own step; until then they answer 503.
   */
  async init(ctx: SignerContext, method: SigningMethodCode, ip: string | null): Promise<InitResponse> {
    const loaded = await this.rows.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
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
    const loaded = await this.rows.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
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
    const { me, org } = await this.rows.read(ctx);
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

    await this.rows.inTransaction(ctx, async ({ req, parties, me, org }, manager) => {
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
}
