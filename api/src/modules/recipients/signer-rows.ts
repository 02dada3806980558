import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FlagText } from '@esign/contract';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { RequestRepository } from '../requests/request-repository';
import type { RulePolicy } from '../requests/rules';
import { loadSigner, type Loaded, type SignerContext } from './signer-link.guard';

export const flag = (value: boolean): FlagText => (value ? 'true' : 'false');
export const refused = (message: string) => new AppError('SIGNING_REFUSED', message);

/** The organisation's options the signing rules read. */
export function policyOf(org: OrganisationEntity): RulePolicy {
  return {
    dscDownloadUrl: org.dscDownloadUrl,
    locationCapture: org.locationCapture,
    faceCapture: org.faceCapture,
    aadhaarFaceCapture: org.aadhaarFaceCapture,
    esignatureFaceCapture: org.esignatureFaceCapture,
    liveVideo: org.liveVideo,
  };
}

/**
 * The rows a link holder acts on (through the requests' repository): the request, its parties, the link's party and
 * the organisation, read as they are, or locked in a transaction for a change (on engines with row locks).
 */
@Injectable()
export class SignerRows {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly requests: RequestRepository,
  ) {}

  /** In the caller's transaction, locked when `lock`. */
  load(manager: EntityManager, ctx: SignerContext, lock: boolean): Promise<Loaded> {
    return loadSigner(manager, this.requests, ctx, lock);
  }

  /** As they are now, for a page that changes nothing. */
  read(ctx: SignerContext): Promise<Loaded> {
    return this.load(this.db.manager, ctx, false);
  }

  /**
   * The link's own party and its request as the guard read them for this very call, and the organisation: for a read
   * that needs no other party (the signing page's first call and its status poll). Reading every party again, only to
   * pick this one, cost a fifth of GET /v1/reference (issue 23); the guard's read is as fresh as that one would be.
   */
  async own(ctx: SignerContext): Promise<Omit<Loaded, 'parties'>> {
    const { request: req, party: me } = ctx;
    return { req, me, org: await this.requests.organisation(req.orgId) };
  }

  /** A change: the rows locked, the work and its writes in one transaction. */
  inTransaction<T>(ctx: SignerContext, work: (loaded: Loaded, manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => work(await this.load(manager, ctx, true), manager));
  }

  organisation(orgId: string): Promise<OrganisationEntity> {
    return this.requests.organisation(orgId);
  }
}
