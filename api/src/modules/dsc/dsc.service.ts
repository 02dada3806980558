import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SigningMethod } from '@esign/contract';
import * as x509 from '@peculiar/x509';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { MetricsService } from '../metrics/metrics.service';
import { PartyEntity } from '../requests/party.entity';
import type { RequestEntity } from '../requests/request.entity';
import {
  assembleCms,
  embedExternal,
  prepareExternal,
  signedAttributesFor,
  type CmsSignatureAlgorithm,
} from '../signing/pdf/external';
import { certificateInfo } from '../signing/pki/certificates';
import { SealService } from '../signing/seal.service';
import { SealQueue } from '../signing/seal.queue';
import { DocumentStorage } from '../storage/document-storage';
import { AgentJobError, DscAgents } from './dsc-agents';
import { normaliseIdentifier } from './dsc-login.service';

export const DscSignMessages = {
  password: 'Enter the USB token password.',
  noAgent: (who: string) =>
    `The signer app is not connected. Open it, log in with ${who} and keep it open, then try again.`,
  documentChanged: 'The document changed while you were signing (another signer signed first). Please sign again.',
} as const;

/**
 * DSC (method 1): the signer's own USB token signs, through the desktop signer agent they keep open. The document is
 * prepared here (their name and 'Signed using DSC' in their boxes, an empty signature placeholder); the agent gives
 * the token's certificate, signs the PAdES signed attributes made with it, and the CMS is assembled and embedded here.
 * The token password goes to the agent in memory and is never stored or logged.
 */
@Injectable()
export class DscService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly agents: DscAgents,
    private readonly storage: DocumentStorage,
    private readonly audit: AuditService,
    private readonly seal: SealService,
    private readonly sealQueue: SealQueue,
    private readonly metrics: MetricsService,
  ) {}

  /** After the signing rules allowed DSC for this party: signs, and answers once the signature is in the document. */
  async sign(
    req: RequestEntity,
    party: PartyEntity,
    pin: unknown,
    ip: string | null,
  ): Promise<{ code: 200; message: string }> {
    if (typeof pin !== 'string' || !pin || pin.length > 64)
      throw new AppError('SIGNING_REFUSED', DscSignMessages.password);
    const ids = [normaliseIdentifier(party.email), normaliseIdentifier(party.phoneNumber)].filter(
      (v): v is string => v !== null,
    );
    const agent = await this.agents.find(ids);
    if (!agent) throw new AppError('SIGNING_REFUSED', DscSignMessages.noAgent(party.email || party.phoneNumber));
    const now = this.clock.now();
    const base = req.signedFileKey ?? req.fileKey;
    const prepared = await prepareExternal(
      await this.storage.get(base),
      { boxes: party.boxes ?? [], text: { value: party.name, italic: false }, caption: 'Signed using DSC' },
      {
        fieldName: `esign_party_${party.order}`,
        reason: `Signed by ${party.name} with a DSC (Ref ID ${req.refId})`,
        location: party.geo?.country ?? null,
        contactInfo: party.email,
        signingTime: now,
      },
    );
    const job = randomUUID();
    let cms: Uint8Array;
    let certificatePem: string;
    try {
      const cert = await this.agents.ask(agent, { type: 'certificate', id: job, pin }, 'certificate');
      const certificateDer = Buffer.from(String(cert.certificate ?? ''), 'base64');
      const chainDers = (Array.isArray(cert.chain) ? cert.chain : []).map((c) => Buffer.from(String(c), 'base64'));
      const algorithm = cert.algorithm === 'ECDSA-SHA256' ? 'ECDSA-SHA256' : ('RSA-SHA256' as CmsSignatureAlgorithm);
      certificatePem = new x509.X509Certificate(certificateDer).toString('pem');
      const signedAttributesDer = signedAttributesFor(prepared.byteRangeDigest, certificateDer);
      const answer = await this.agents.ask(
        agent,
        { type: 'sign', id: job, data: Buffer.from(signedAttributesDer).toString('base64') },
        'signature',
      );
      cms = assembleCms({
        digest: prepared.byteRangeDigest,
        signedAttributesDer,
        signature: Buffer.from(String(answer.signature ?? ''), 'base64'),
        certificateDer,
        chainDers,
        signatureAlgorithm: algorithm,
      });
    } catch (err) {
      const message =
        err instanceof AgentJobError
          ? err.message
          : `The USB token's answer was not usable (${(err as Error).message}).`;
      await this.db.transaction((manager) =>
        this.audit.recordParty(manager, party, 'party.dsc_failed', ip, {
          code: err instanceof AgentJobError ? err.code : 'INVALID_ANSWER',
        }),
      );
      throw new AppError('SIGNING_REFUSED', message);
    }
    const stored = await this.storage.put(Buffer.from(embedExternal(prepared.prepared, cms)));
    const info = certificateInfo(certificatePem);
    const committed = await this.db.transaction(async (manager) => {
      const done = await this.seal.commitSigned(
        manager,
        req,
        party.id,
        base,
        stored.key,
        { subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber },
        now,
        (me) => me.signMethod === SigningMethod.DSC,
      );
      if (done) await this.sealQueue.enqueue(manager, req, party);
      return done;
    });
    if (!committed) throw new AppError('SIGNING_REFUSED', DscSignMessages.documentChanged);
    this.metrics.signed(SigningMethod.DSC);
    return { code: 200, message: 'success' };
  }
}
