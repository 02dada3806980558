import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { JobsService } from '../jobs/jobs.service';

/** The seal job: applies submitted signatures to the document, then completes and seals it. */
export const SEAL_JOB = 'request.seal';
export const SEAL_MAX_ATTEMPTS = 5;
export interface SealJobPayload {
  orgId: string;
  refId: number;
}

/** The request whose seal job is queued, and the party whose submitted signature queued it (null: another reason). */
type SealedRequest = Pick<SealJobPayload, 'orgId' | 'refId'>;
type SubmittingParty = { id: string };

/**
 * Queues the seal job in the caller's transaction, one per submitted signature (its own dedupe key, so a signature
 * submitted while another party's job runs still gets a run). Each run works through every pending signature of the
 * request, so the extra runs find nothing left to do.
 */
@Injectable()
export class SealQueue {
  constructor(private readonly jobs: JobsService) {}

  enqueue(manager: EntityManager, req: SealedRequest, party: SubmittingParty | null, reason = 'signature') {
    return this.jobs.enqueue(manager, {
      type: SEAL_JOB,
      payload: { orgId: req.orgId, refId: req.refId } satisfies SealJobPayload,
      orgId: req.orgId,
      dedupeKey: `seal:${req.refId}:${party ? party.id : reason}`,
      maxAttempts: SEAL_MAX_ATTEMPTS,
    });
  }
}
