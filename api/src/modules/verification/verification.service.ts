import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { X509Certificate } from 'node:crypto';
import { RetentionMessages, type RequestStatus } from '@esign/contract';
import { certificatesFromPem, commonName, verifyDocument, type DocumentReport } from '@esign/verifier';
import { DataSource, In } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { RequestEntity } from '../requests/request.entity';
import { SealKeyEntity } from '../signing/pki/seal-key.entity';
import { DocumentStorage } from '../storage/document-storage';

/** `GET /api/requests/{refId}/verification`: the verifier's report on the request's current signed document. */
export interface VerificationReport extends DocumentReport {
  /** Every signature and document timestamp passed every check, and the audit chain is intact. */
  ok: boolean;
  refId: number;
  /** The signed document's file name and SHA-256 (its storage key). */
  filename: string;
  documentSha256: string;
  requestStatus: RequestStatus;
  checkedAt: string;
  /** The certificates trusted as anchors (common names): the installation's and the organisation's. */
  trustAnchors: string[];
  /** The request's audit trail in the database: its events, whether the hash chain is intact, the last hash. */
  audit: { events: number; intact: boolean; lastHash: string | null };
}

/** How many reports the process keeps (a few KB each). */
const REPORTS_KEPT = 64;

/** The development root CA and the sandbox ESP's test CA, as SealPkiService and EspKeys store them. */
const INSTALLATION_ANCHORS = ['root', 'sandbox:esp-ca'];

/**
 * The verification report of a request's signed document, by the same package as `esign-cli verify` (@esign/verifier).
 * It trusts the installation's development root and the sandbox ESP's CA when they exist (read, never generated
 * here), and the certificates the organisation imported (manage import-seal, SEAL_P12).
 */
@Injectable()
export class VerificationService {
  /**
   * Reports already made, by document (content-addressed, never changed), trust anchors and date: verifying a
   * six-signer B-LTA document of 350 pages takes about half a second of CPU, which a second look need not pay again.
   */
  private readonly cache = new Map<string, DocumentReport>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: DocumentStorage,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** The trust anchors for an organisation's documents. */
  async anchors(orgId: string): Promise<X509Certificate[]> {
    const rows = await this.db.getRepository(SealKeyEntity).find({
      where: [{ id: In(INSTALLATION_ANCHORS) }, { orgId, source: 'pkcs12' }],
    });
    const certs: X509Certificate[] = [];
    for (const row of rows) {
      const pems = row.source === 'pkcs12' ? `${row.certPem}\n${row.chainPem}` : row.certPem;
      for (const cert of certificatesFromPem(pems))
        if (!certs.some((c) => c.fingerprint256 === cert.fingerprint256)) certs.push(cert);
    }
    return certs;
  }

  async report(orgId: string, refId: number, at: Date | null = null): Promise<VerificationReport> {
    const req = await this.db.getRepository(RequestEntity).findOneBy({ orgId, refId });
    if (!req || req.deletedAt || req.isDraft) throw new AppError('NOT_FOUND', 'Request not found.');
    if (!req.signedFileKey) throw new AppError('NOT_FOUND', 'This request has no signed document yet.');
    if (req.filesDeletedAt) throw new AppError('NOT_FOUND', RetentionMessages.filesDeleted);
    const [anchors, events] = await Promise.all([this.anchors(orgId), this.audit.list(this.db.manager, orgId, refId)]);
    const key = [req.signedFileKey, ...anchors.map((a) => a.fingerprint256), at?.toISOString() ?? ''].join('|');
    let report = this.cache.get(key);
    if (!report) {
      report = verifyDocument(await this.storage.get(req.signedFileKey), anchors, true, { at });
      if (this.cache.size >= REPORTS_KEPT) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, report);
    }
    const intact = this.audit.verifyChain(events) === null;
    return {
      ok: report.problems.length === 0 && intact,
      refId,
      filename: req.filename.replace(/\.pdf$/i, '-signed.pdf'),
      documentSha256: req.signedFileKey,
      requestStatus: req.status,
      checkedAt: this.clock.now().toISOString(),
      trustAnchors: anchors.map(commonName),
      audit: { events: events.length, intact, lastHash: events.at(-1)?.hash ?? null },
      ...report,
    };
  }

  async organisation(orgId: string): Promise<OrganisationEntity> {
    const org = await this.db.getRepository(OrganisationEntity).findOneBy({ id: orgId });
    if (!org) throw new AppError('NOT_FOUND', 'Request not found.');
    return org;
  }
}

/** ?at=: a date (2036-01-31, midnight UTC) or an ISO 8601 time; absent: no long-term check. */
export function atParam(value: unknown): Date | null {
  if (value === undefined || value === '') return null;
  const text = String(value);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00.000Z`) : new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime()))
    throw new AppError(
      'VALIDATION_FAILED',
      `at must be a date like 2036-01-31 or 2036-01-31T10:00:00Z (got "${text}").`,
    );
  return date;
}
