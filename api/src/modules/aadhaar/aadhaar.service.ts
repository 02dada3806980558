import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RecipientMessages, SigningMethod } from '@esign/contract';
import * as x509 from '@peculiar/x509';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { MetricsService } from '../metrics/metrics.service';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { PartyEntity } from '../requests/party.entity';
import type { RequestEntity } from '../requests/request.entity';
import { JobsRunner } from '../jobs/jobs.runner';
import { ExternalSigning } from '../signing/external-signing.service';
import { OutsideSubmissions } from '../requests/outside-submissions';
import { partySignatureJob } from '../requests/party-signature-job';
import { EsignTransactionEntity } from './esign-transaction.entity';
import { EspKeys } from './esp-keys.service';
import { buildEsignRequest, parseEsignResponse, signEnveloped } from './protocol';

/** How long an Aadhaar eSign may take from the form post to the ESP's answer. */
const TRANSACTION_MINUTES = 30;

export const AadhaarMessages = {
  answerInvalid: 'The eSign answer could not be verified. Nothing was signed; please try again.',
  noTransaction: 'No Aadhaar eSign is waiting for this signer. Please start again from the signing page.',
  expired: 'The Aadhaar eSign took too long. Please try again.',
  hashMismatch: 'The eSign answer signs another document. Nothing was signed; please try again.',
  documentChanged: 'The document changed while you were signing (another signer signed first). Please sign again.',
  notSigned: 'No Aadhaar eSign of yours has completed yet.',
  discrepancy: (certificate: string, party: string) =>
    `The name in your Aadhaar eSign certificate (${certificate}) does not match the signer's name (${party}). The signature was not applied.`,
} as const;

/** Names compared for the discrepancy check: case, spaces and punctuation do not count. */
export const sameName = (a: string, b: string) => {
  const norm = (s: string) =>
    s
      .normalize('NFKC')
      .toLocaleLowerCase('en-IN')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return norm(a) === norm(b);
};

export interface AadhaarStart {
  esp_url: string;
  fields: Record<string, string>;
}

/** Where the browser goes after the ESP's answer. */
export interface AadhaarOutcome {
  redirect: string;
}

/**
 * Aadhaar eSign (method 0) on the ASP side, through the CCA eSign API v2.1: prepares the party's document (their
 * name and 'Signed using Aadhaar eSign' stamped in their boxes, an empty signature placeholder), sends the hash in a
 * signed `<Esign>` request through the signer's browser, and on the ESP's signed `<EsignResp>` embeds the returned CMS,
 * after checking the ESP's signature, the txn, the hash and the name in the certificate.
 */
@Injectable()
export class AadhaarService {
  private readonly log = new Logger('Aadhaar');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly keys: EspKeys,
    private readonly audit: AuditService,
    private readonly external: ExternalSigning,
    private readonly submissions: OutsideSubmissions,
    private readonly runner: JobsRunner,
    private readonly metrics: MetricsService,
  ) {}

  /** init?method=0, after the signing rules allowed it: the hidden form the signing page posts to the ESP. */
  async start(
    req: RequestEntity,
    party: PartyEntity,
    org: OrganisationEntity,
    ip: string | null,
  ): Promise<AadhaarStart> {
    const now = this.clock.now();
    const prepared = await this.external.prepare(partySignatureJob(req, party, org, SigningMethod.Aadhaar));
    const digestHex = Buffer.from(prepared.digest).toString('hex');
    const txn = randomUUID();
    await this.db.transaction(async (manager) => {
      await manager.insert(EsignTransactionEntity, {
        id: txn,
        orgId: req.orgId,
        refId: req.refId,
        partyId: party.id,
        baseFileKey: prepared.baseFileKey,
        preparedFileKey: prepared.preparedFileKey,
        digestHex,
        status: 'pending',
        errorCode: null,
        errorMessage: null,
        certificateName: null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + TRANSACTION_MINUTES * 60_000),
        finishedAt: null,
      });
      await this.audit.recordParty(manager, party, 'party.aadhaar_started', ip, { txn, documentSha256: digestHex });
    });
    const asp = await this.keys.asp();
    const xml = buildEsignRequest({
      aspId: asp.aspId,
      txn,
      ts: now,
      responseUrl: this.keys.responseUrl(req.orgId, party.id),
      docInfo: `${req.filename} (Ref ID ${req.refId})`.slice(0, 200),
      hashHex: digestHex,
    });
    return { esp_url: this.keys.espUrl(), fields: { msg: signEnveloped(xml, asp.keyPem, asp.certPem) } };
  }

  /** POST /v1/aadhaar/response/{orgId}/{requestId}: the ESP's answer, posted by the signer's browser. */
  /** `msg`: the ESP's answer as posted (the contract's espResponseSchema; '' when none was). */
  async respond(orgId: string, requestId: string, msg: string): Promise<AadhaarOutcome> {
    const party = await this.db.manager.findOneBy(PartyEntity, { id: requestId, orgId });
    if (!party) throw new AppError('NOT_FOUND', RecipientMessages.invalidLink);
    const at = `${encodeURIComponent(orgId)}/${encodeURIComponent(party.id)}`;
    const failed = async (tx: EsignTransactionEntity | null, code: string, message: string) => {
      const now = this.clock.now();
      await this.db.transaction(async (manager) => {
        if (tx)
          await manager.update(
            EsignTransactionEntity,
            { id: tx.id, status: 'pending' },
            { status: 'failed', errorCode: code, errorMessage: message.slice(0, 500), finishedAt: now },
          );
        await manager.update(
          PartyEntity,
          { id: party.id },
          { lastErrorCode: code.slice(0, 32), lastErrorMessage: message.slice(0, 500), updatedAt: now },
        );
        await this.audit.recordParty(manager, party, 'party.aadhaar_failed', null, {
          txn: tx?.id ?? null,
          code,
          message,
        });
      });
      const query = new URLSearchParams({ errorCode: code, errorMessage: message });
      return { redirect: `/failed/${at}?${query.toString()}` };
    };

    const tx = await this.db.manager.findOne(EsignTransactionEntity, {
      where: { partyId: party.id, status: 'pending' },
      order: { createdAt: 'DESC' },
    });
    if (!tx) return failed(null, 'NO_TRANSACTION', AadhaarMessages.noTransaction);
    const answer = parseEsignResponse(msg, await this.keys.espCertificatePem(), { txn: tx.id });
    if (!answer.ok) {
      this.log.warn(`refused an eSign answer for party ${party.id}: ${answer.reason}`);
      return failed(tx, 'ESP_RESPONSE_INVALID', AadhaarMessages.answerInvalid);
    }
    const response = answer.value;
    if (response.status !== '1')
      return failed(
        tx,
        response.errCode || 'ESP_FAILED',
        response.errMsg || 'The eSign Service Provider could not sign.',
      );
    if (tx.expiresAt.getTime() <= this.clock.now().getTime()) return failed(tx, 'EXPIRED', AadhaarMessages.expired);
    const signature = response.signatures.find((s) => s.id === '1') ?? response.signatures[0];
    if (!signature) return failed(tx, 'ESP_RESPONSE_INVALID', AadhaarMessages.answerInvalid);
    let certificatePem: string;
    try {
      if (Buffer.from(this.external.signedDigest(signature.cmsDer)).toString('hex') !== tx.digestHex)
        return failed(tx, 'HASH_MISMATCH', AadhaarMessages.hashMismatch);
      certificatePem = new x509.X509Certificate(this.external.signerCertificate(signature.cmsDer)).toString('pem');
    } catch {
      return failed(tx, 'ESP_RESPONSE_INVALID', AadhaarMessages.answerInvalid);
    }
    const name = new x509.X509Certificate(certificatePem).subjectName.getField('CN')[0] ?? '';

    const now = this.clock.now();
    if (!sameName(name, party.name)) {
      await this.db.transaction(async (manager) => {
        await manager.update(
          EsignTransactionEntity,
          { id: tx.id, status: 'pending' },
          {
            status: 'failed',
            errorCode: 'NAME_MISMATCH',
            errorMessage: AadhaarMessages.discrepancy(name, party.name),
            certificateName: name.slice(0, 200),
            finishedAt: now,
          },
        );
        await this.audit.recordParty(manager, party, 'party.aadhaar_discrepancy', null, {
          txn: tx.id,
          certificateName: name,
        });
      });
      // The success page runs the discrepancy check, which tells the signer.
      return { redirect: `/success/${at}` };
    }

    // The signature is recorded as the party's submission; the seal job timestamps and embeds it (or, when the
    // document changed meanwhile, discards it and the signer signs again).
    const kept = await this.external.keep(signature.cmsDer, Buffer.from(tx.digestHex, 'hex'));
    const submitted = await this.db.transaction(async (manager) => {
      const taken = await manager.update(
        EsignTransactionEntity,
        { id: tx.id, status: 'pending' },
        { status: 'signed', certificateName: name.slice(0, 200), finishedAt: now },
      );
      if (!taken.affected) return false;
      const fresh = await manager.findOneBy(PartyEntity, { id: party.id });
      if (!fresh) return false;
      return this.submissions.submit(manager, {
        req: { orgId: tx.orgId, refId: tx.refId },
        party: fresh,
        method: SigningMethod.Aadhaar,
        prepared: tx,
        kept,
        ip: null,
      });
    });
    if (submitted) {
      this.metrics.signed(SigningMethod.Aadhaar);
      this.runner.nudge();
    }
    return { redirect: `/success/${at}` };
  }

  /** GET /v1/aadhaar_discrepancy_check/{requestId}: 200 when the last Aadhaar eSign's name matched, else 400. */
  async discrepancy(
    party: PartyEntity,
    returnUrl: string | null,
  ): Promise<{ code: 200; message: string; return_url: string | null }> {
    const tx = await this.db.manager.findOne(EsignTransactionEntity, {
      where: { partyId: party.id },
      order: { createdAt: 'DESC' },
    });
    if (tx?.status === 'signed') return { code: 200, message: 'success', return_url: returnUrl };
    if (tx?.status === 'failed' && tx.errorCode === 'NAME_MISMATCH')
      throw new AppError(
        'SIGNING_REFUSED',
        tx.errorMessage ?? AadhaarMessages.notSigned,
        {},
        {
          return_url: returnUrl,
        },
      );
    throw new AppError('SIGNING_REFUSED', AadhaarMessages.notSigned, {}, { return_url: returnUrl });
  }
}
