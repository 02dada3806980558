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
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { ExternalSigning } from '../signing/external-signing.service';
import { OutsideSubmissions } from '../requests/outside-submissions';
import { partySignatureJob } from '../requests/party-signature-job';
import { AgentJobError, DscAgents } from './dsc-agents';
import { normaliseIdentifier } from './dsc-login.service';

export const DscSignMessages = {
  noAgent: (who: string) =>
    `The signer app is not connected. Open it, log in with ${who} and keep it open, then try again.`,
  alreadySubmitted: 'Your signature has already been submitted.',
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
    private readonly audit: AuditService,
    private readonly external: ExternalSigning,
    private readonly submissions: OutsideSubmissions,
    private readonly metrics: MetricsService,
  ) {}

  /** After the signing rules allowed DSC for this party: signs, and answers once the signature is in the document. */
  async sign(
    req: RequestEntity,
    party: PartyEntity,
    org: Pick<OrganisationEntity, 'timeZone'>,
    /** The token password, checked by the contract's usbTokenSchema before the controller. */
    pin: string,
    ip: string | null,
  ): Promise<{ code: 200; message: string }> {
    const ids = [normaliseIdentifier(party.email), normaliseIdentifier(party.phoneNumber)].filter(
      (v): v is string => v !== null,
    );
    const agent = await this.agents.find(ids);
    if (!agent) throw new AppError('SIGNING_REFUSED', DscSignMessages.noAgent(party.email || party.phoneNumber));
    const prepared = await this.external.prepare(partySignatureJob(req, party, org, SigningMethod.DSC));
    const job = randomUUID();
    let cms: Uint8Array;
    try {
      const cert = await this.agents.ask(agent, { type: 'certificate', id: job, pin }, 'certificate');
      const certificateDer = Buffer.from(String(cert.certificate ?? ''), 'base64');
      const chainDers = (Array.isArray(cert.chain) ? cert.chain : []).map((c) => Buffer.from(String(c), 'base64'));
      const algorithm = cert.algorithm === 'ECDSA-SHA256' ? 'ECDSA-SHA256' : 'RSA-SHA256';
      new x509.X509Certificate(certificateDer); // a certificate, or the token's answer is not usable
      const signedAttributesDer = this.external.signedAttributes(prepared.digest, certificateDer);
      const answer = await this.agents.ask(
        agent,
        { type: 'sign', id: job, data: Buffer.from(signedAttributesDer).toString('base64') },
        'signature',
      );
      cms = this.external.assemble({
        digest: prepared.digest,
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
    // Recorded as the party's submission; the seal job timestamps and embeds it (the page polls until it has).
    const kept = await this.external.keep(cms, prepared.digest);
    const submitted = await this.db.transaction(async (manager) => {
      const fresh = await manager.findOneBy(PartyEntity, { id: party.id });
      return fresh
        ? this.submissions.submit(manager, { req, party: fresh, method: SigningMethod.DSC, prepared, kept, ip })
        : false;
    });
    if (!submitted) throw new AppError('SIGNING_REFUSED', DscSignMessages.alreadySubmitted);
    this.metrics.signed(SigningMethod.DSC);
    return { code: 200, message: 'success' };
  }
}
