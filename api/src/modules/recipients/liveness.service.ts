import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Limits, RecipientMessages, type LivenessResponse } from '@esign/contract';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { FaceMessages, FaceService, type VideoScore } from '../identity/face/face.service';
import { VideoDecodeError } from '../identity/face/video';
import { PartyEntity } from '../requests/party.entity';
import { RequestRepository } from '../requests/request-repository';
import { refuseAction } from '../requests/rules';
import { loadSigner, type SignerContext } from './signer-link.guard';

const refused = (message: string) => new AppError('SIGNING_REFUSED', message);

/**
 * The recording from its data: URL (its prefix and size checked by the contract's livenessSchema): a WebM/Matroska or
 * MP4/QuickTime file by its first bytes, or null.
 */
export function videoFromDataUrl(text: string): Buffer | null {
  const body = text.slice(text.indexOf(',') + 1);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return null;
  const bytes = Buffer.from(body, 'base64');
  const matroska = bytes.length > 4 && bytes.readUInt32BE(0) === 0x1a45dfa3;
  const mp4 = bytes.length > 12 && bytes.toString('latin1', 4, 8) === 'ftyp';
  return matroska || mp4 ? bytes : null;
}

/**
 * POST /v1/liveness: the signer's 4.5-second face video is decoded and its blinks scored on the server (FaceService);
 * the score must exceed the organisation's live_video_threshold. The result is kept on the party (signing is refused
 * until one passed), in the audit trail and, with the threshold of the time, in the certificate of completion.
 */
@Injectable()
export class LivenessService {
  private readonly log = new Logger(LivenessService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly requests: RequestRepository,
    private readonly face: FaceService,
  ) {}

  async check(ctx: SignerContext, videoFile: string, ip: string | null): Promise<LivenessResponse> {
    const bytes = videoFromDataUrl(videoFile);
    if (!bytes) throw new AppError('UNSUPPORTED_MEDIA_TYPE', RecipientMessages.videoInvalid);
    if (bytes.length > Limits.videoMaxBytes) throw new AppError('PAYLOAD_TOO_LARGE', RecipientMessages.videoInvalid);

    // May this party send one now? Counted before the work, atomically, so parallel posts cannot pass the limit.
    const threshold = await this.db.transaction(async (manager) => {
      const { req, parties, me, org } = await loadSigner(manager, this.requests, ctx, true);
      const refusal = refuseAction(req, me, parties);
      if (refusal) throw refused(refusal);
      if (!org.liveVideo) throw refused(RecipientMessages.livenessNotAsked);
      const taken = await manager
        .createQueryBuilder()
        .update(PartyEntity)
        .set({ livenessAttempts: () => 'liveness_attempts + 1' })
        .where('id = :id AND liveness_attempts < :max', { id: me.id, max: Limits.livenessMaxAttempts })
        .execute();
      if (!taken.affected) throw new AppError('TOO_MANY_ATTEMPTS', RecipientMessages.livenessTooMany);
      return org.liveVideoThreshold;
    });

    let result: VideoScore;
    try {
      result = await this.face.scoreVideo(bytes);
    } catch (error) {
      if (error instanceof VideoDecodeError && !error.missing)
        throw new AppError('VALIDATION_FAILED', RecipientMessages.videoUnreadable);
      // The server cannot check videos now (no ffmpeg, no models): not the signer's attempt.
      await this.db
        .createQueryBuilder()
        .update(PartyEntity)
        .set({ livenessAttempts: () => 'liveness_attempts - 1' })
        .where('id = :id AND liveness_attempts > 0', { id: ctx.party.id })
        .execute();
      if (error instanceof VideoDecodeError) {
        this.log.error(`Liveness videos cannot be decoded: ${error.message}`);
        throw new AppError('UNAVAILABLE', FaceMessages.unavailable);
      }
      throw error;
    }

    const passed = result.score > threshold;
    const at = this.clock.now();
    await this.db.transaction(async (manager) => {
      const { req, parties, me } = await loadSigner(manager, this.requests, ctx, true);
      const refusal = refuseAction(req, me, parties);
      if (refusal) throw refused(refusal);
      me.liveness = {
        score: result.score,
        threshold,
        passed,
        blinks: result.blinks,
        frames: result.frames,
        framesWithFace: result.framesWithFace,
        at: at.toISOString(),
      };
      me.updatedAt = at;
      await manager.save(PartyEntity, me);
      await this.audit.recordParty(manager, me, passed ? 'party.liveness_passed' : 'party.liveness_failed', ip, {
        score: result.score,
        threshold,
        blinks: result.blinks,
        frames: result.frames,
        framesWithFace: result.framesWithFace,
        ms: result.ms,
      });
    });
    return {
      code: passed ? 200 : 400,
      message: passed ? 'success' : RecipientMessages.livenessFailed,
      passed,
      data: {
        liveliness_score: { value: result.score },
        threshold,
        blinks: result.blinks,
        frames: result.frames,
        frames_with_face: result.framesWithFace,
      },
    };
  }
}
