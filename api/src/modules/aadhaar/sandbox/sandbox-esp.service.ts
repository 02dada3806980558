import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { SandboxAadhaarForm, SandboxOtpForm } from '@esign/contract';
import { Clock } from '../../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { NotificationsService } from '../../notifications/notifications.service';
import { PartyEntity } from '../../requests/party.entity';
import { AppSecretService } from '../../secrets/app-secret.service';
import { CertificateRevokedError, Revocation } from '../../signing/evidence/revocation';
import { signDigestCms } from '../../signing/pdf/external';
import { PkiRegistry } from '../../signing/pki/pki-registry.service';
import { issueRsaLeaf } from '../../signing/pki/certificates';
import { EsignTransactionEntity } from '../esign-transaction.entity';
import { EspKeys, SANDBOX_ASP_ID } from '../esp-keys.service';
import { buildEsignResponse, isValidAadhaar, parseEsignRequest, signEnveloped } from '../protocol';
import { autoPostPage, consentPage, errorPage, otpPage } from './pages';
import { SandboxSessionEntity } from './sandbox-session.entity';

/** How long a sandbox session lives, and the resident certificate it issues. */
const SESSION_MINUTES = 15;
const CERTIFICATE_MINUTES = 30;
const OTP_TRIES = 3;

export const SandboxMessages = {
  consent: 'Please give your consent to continue.',
  aadhaar: 'Please enter a valid 12-digit Aadhaar number.',
  name: 'Please enter the name as on Aadhaar.',
  otpFormat: 'The OTP is 6 digits.',
  otpWrong: 'Invalid OTP. Please try again.',
  expired: 'This eSign session has expired. Please start again from the signing page.',
  unknown: 'This eSign session is not known.',
  cancelled: 'Signer cancelled the eSign.',
  otpExhausted: 'OTP validation failed 3 times. The eSign transaction is cancelled.',
} as const;

/** With a real ESP configured the sandbox answers nothing. */
const OFF = { status: 404, html: errorPage('The sandbox ESP is off: this server uses a licensed ESP.') };

/** An HTML answer: the page and its status. */
export interface Page {
  status: number;
  html: string;
}

/**
 * The built-in sandbox ESP (issue 7): the CCA eSign API v2.1 browser flow on this server, for installations without a
 * licensed ESP. It checks the ASP's signed `<Esign>` request, asks for an Aadhaar number (Verhoeff-checked) and the
 * consent, sends an OTP by SMS to the signer's phone through the outbox (3 tries, then the transaction is cancelled),
 * issues a 30-minute certificate in the resident's name from its own test CA, signs the document hash as a CAdES
 * detached CMS and posts its signed `<EsignResp>` back to the ASP's responseUrl.
 */
@Injectable()
export class SandboxEspService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly keys: EspKeys,
    private readonly notifications: NotificationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secrets: AppSecretService,
    private readonly revocation: Revocation,
    private readonly registry: PkiRegistry,
  ) {}

  private action(id: string): string {
    return `${this.config.publicUrl}/esp-sandbox/session/${id}`;
  }

  /** Keyed with the application's secret, as the signing OTPs are: the stored hash alone cannot be brute-forced. */
  private async otpHash(id: string, otp: string): Promise<string> {
    return (await this.secrets.hmac('esp-sandbox-otp', `${id}:${otp}`)).toString('hex');
  }

  /** POST /esp-sandbox/esign: the ASP's request, posted by the signer's browser. */
  async start(msg: string | undefined): Promise<Page> {
    if (!this.keys.sandboxMode) return OFF;
    if (msg === undefined || !msg.trim()) return { status: 400, html: errorPage('No eSign request was sent.') };
    const material = await this.keys.sandbox();
    const parsed = parseEsignRequest(msg, {
      now: this.clock.now(),
      aspCertificate: (aspId) => (aspId === SANDBOX_ASP_ID ? material.asp.certPem : null),
    });
    if (!parsed.ok) return { status: 400, html: errorPage(`Error ${parsed.errCode}: ${parsed.errMsg}`) };
    const request = parsed.value;
    const now = this.clock.now();
    // The sandbox stands in for UIDAI's records with the product's own: the party behind the ASP's txn.
    const tx = await this.db.manager.findOneBy(EsignTransactionEntity, { id: request.txn });
    const party = tx ? await this.db.manager.findOneBy(PartyEntity, { id: tx.partyId }) : null;
    const id = randomBytes(32).toString('base64url');
    await this.db.manager.insert(SandboxSessionEntity, {
      id,
      aspId: request.aspId,
      aspTxn: request.txn,
      hashHex: request.hashes[0].hashHex,
      docInfo: (request.hashes[0].docInfo || 'a document').slice(0, 300),
      responseUrl: request.responseUrl,
      status: 'consent',
      aadhaarLast4: null,
      residentName: party?.name ?? null,
      phone: party?.phoneNumber ?? null,
      otpHash: null,
      otpAttempts: 0,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_MINUTES * 60_000),
    });
    return {
      status: 200,
      html: consentPage({
        action: this.action(id),
        aspId: request.aspId,
        docInfo: request.hashes[0].docInfo,
        name: party?.name ?? '',
      }),
    };
  }

  private async session(id: string): Promise<SandboxSessionEntity | Page> {
    if (!this.keys.sandboxMode) return OFF;
    const session = /^[A-Za-z0-9_-]{43}$/.test(id)
      ? await this.db.manager.findOneBy(SandboxSessionEntity, { id })
      : null;
    if (!session) return { status: 404, html: errorPage(SandboxMessages.unknown) };
    if (session.expiresAt.getTime() <= this.clock.now().getTime() || session.status === 'cancelled')
      return { status: 410, html: errorPage(SandboxMessages.expired) };
    if (session.status === 'done') return { status: 409, html: errorPage(SandboxMessages.expired) };
    return session;
  }

  /** POST …/aadhaar: the consent, the Aadhaar number and the resident's name; sends the OTP. */
  async aadhaar(id: string, body: SandboxAadhaarForm): Promise<Page> {
    const session = await this.session(id);
    if (!(session instanceof SandboxSessionEntity)) return session;
    const aadhaar = String(body.aadhaar ?? '').replace(/[\s-]/g, '');
    const name = String(body.name ?? '').trim();
    const again = (error: string) => ({
      status: 400,
      html: consentPage({
        action: this.action(id),
        aspId: session.aspId,
        docInfo: session.docInfo,
        name: name || (session.residentName ?? ''),
        aadhaar,
        error,
      }),
    });
    if (body.consent !== 'yes') return again(SandboxMessages.consent);
    if (!isValidAadhaar(aadhaar)) return again(SandboxMessages.aadhaar);
    if (!name || name.length > 200) return again(SandboxMessages.name);
    if (!session.phone) return { status: 400, html: errorPage('No mobile number is linked to this eSign.') };
    const otp = String(randomInt(0, 1_000_000)).padStart(6, '0');
    // Hashed before the transaction: the secret may be read (or made) through another connection.
    const otpHash = await this.otpHash(id, otp);
    await this.db.transaction(async (manager) => {
      await manager.update(
        SandboxSessionEntity,
        { id },
        {
          status: 'otp',
          aadhaarLast4: aadhaar.slice(-4),
          residentName: name,
          otpHash,
          otpAttempts: 0,
        },
      );
      const text = `${otp} is your Aadhaar eSign OTP (sandbox ESP) for Aadhaar XXXX XXXX ${aadhaar.slice(-4)}. Valid for ${SESSION_MINUTES} minutes. Do not share it.`;
      const tx = await manager.findOneBy(EsignTransactionEntity, { id: session.aspTxn });
      await this.notifications.queueBuilt(
        manager,
        { orgId: tx?.orgId ?? 'sandbox', refId: tx?.refId ?? null, kind: 'esp-otp', phone: session.phone },
        { subject: 'Aadhaar eSign OTP', text, html: text, sms: text },
      );
    });
    return {
      status: 200,
      html: otpPage({ action: this.action(id), maskedPhone: mask(session.phone), triesLeft: OTP_TRIES }),
    };
  }

  /** POST …/otp: the OTP; the third wrong one cancels the transaction. A right one signs and posts the answer. */
  async otp(id: string, body: SandboxOtpForm): Promise<Page> {
    const session = await this.session(id);
    if (!(session instanceof SandboxSessionEntity)) return session;
    if (session.status !== 'otp' || !session.otpHash) return { status: 409, html: errorPage(SandboxMessages.expired) };
    const otp = String(body.otp ?? '').trim();
    const left = OTP_TRIES - session.otpAttempts;
    if (!/^\d{6}$/.test(otp))
      return {
        status: 400,
        html: otpPage({
          action: this.action(id),
          maskedPhone: mask(session.phone),
          triesLeft: left,
          error: SandboxMessages.otpFormat,
        }),
      };
    // Each try is counted by a conditional update before comparing, so parallel guesses cannot exceed the limit.
    const taken = await this.db.manager
      .createQueryBuilder()
      .update(SandboxSessionEntity)
      .set({ otpAttempts: () => 'otp_attempts + 1' })
      .where("id = :id AND status = 'otp' AND otp_attempts < :max", { id, max: OTP_TRIES })
      .execute();
    if (!taken.affected) return this.cancel(id, '944', SandboxMessages.otpExhausted);
    const expected = Buffer.from(session.otpHash, 'hex');
    const given = Buffer.from(await this.otpHash(id, otp), 'hex');
    if (!timingSafeEqual(expected, given)) {
      if (session.otpAttempts + 1 >= OTP_TRIES) return this.cancel(id, '944', SandboxMessages.otpExhausted);
      return {
        status: 400,
        html: otpPage({
          action: this.action(id),
          maskedPhone: mask(session.phone),
          triesLeft: OTP_TRIES - session.otpAttempts - 1,
          error: SandboxMessages.otpWrong,
        }),
      };
    }
    const done = await this.db.manager.update(SandboxSessionEntity, { id, status: 'otp' }, { status: 'done' });
    if (!done.affected) return { status: 409, html: errorPage(SandboxMessages.expired) };
    return this.sign(session);
  }

  /** POST …/cancel, or the OTP tries spent: a signed failure answer (status 0) goes back to the ASP. */
  async cancel(id: string, errCode = '944', errMsg: string = SandboxMessages.cancelled): Promise<Page> {
    if (!this.keys.sandboxMode) return OFF;
    const session = /^[A-Za-z0-9_-]{43}$/.test(id)
      ? await this.db.manager.findOneBy(SandboxSessionEntity, { id })
      : null;
    if (!session) return { status: 404, html: errorPage(SandboxMessages.unknown) };
    if (session.status === 'done') return { status: 409, html: errorPage(SandboxMessages.expired) };
    await this.db.manager.update(SandboxSessionEntity, { id }, { status: 'cancelled' });
    return this.answer(session, { status: '0', errCode, errMsg });
  }

  private async sign(session: SandboxSessionEntity): Promise<Page> {
    const material = await this.keys.sandbox();
    const refused = await this.refuseRevoked(material);
    if (refused) return refused;
    const now = this.clock.now();
    const resident = await issueRsaLeaf(
      material.ca,
      {
        commonName: session.residentName ?? 'Aadhaar Holder',
        organisationalUnit: `Aadhaar XXXX${session.aadhaarLast4 ?? ''}`,
        country: 'IN',
      },
      now,
      { minutes: CERTIFICATE_MINUTES },
      this.registry.links(material.caId),
    );
    await this.registry.record(material.caId, resident.certPem, 'resident', null);
    const cms = await signDigestCms(Buffer.from(session.hashHex, 'hex'), resident.keyPem, resident.certPem, [
      material.ca.certPem,
    ]);
    return this.answer(session, {
      status: '1',
      userCertificatePem: resident.certPem,
      signatures: [{ id: '1', cmsDer: cms }],
    });
  }

  /**
   * Before the sandbox signs anything (a resident's document, its signed answer): its CA and its XML signer must not be
   * revoked (`manage revoke-certificate`). A revoked one stops the eSign with the reason, as an ESP that can no longer
   * sign would.
   */
  private async refuseRevoked(material: Awaited<ReturnType<EspKeys['sandbox']>>): Promise<Page | null> {
    try {
      await this.revocation.assertNotRevoked([pemToDer(material.esp.certPem), pemToDer(material.ca.certPem)]);
      return null;
    } catch (err) {
      if (!(err instanceof CertificateRevokedError)) throw err;
      return { status: 503, html: errorPage(`The sandbox ESP cannot sign: ${err.message}`) };
    }
  }

  private async answer(
    session: SandboxSessionEntity,
    result:
      | { status: '1'; userCertificatePem: string; signatures: { id: string; cmsDer: Uint8Array }[] }
      | { status: '0'; errCode: string; errMsg: string },
  ): Promise<Page> {
    const material = await this.keys.sandbox();
    const refused = await this.refuseRevoked(material);
    if (refused) return refused;
    const xml = buildEsignResponse({
      status: result.status,
      ts: this.clock.now(),
      txn: session.aspTxn,
      resCode: randomBytes(12).toString('hex'),
      ...(result.status === '1'
        ? { userCertificateDer: pemToDer(result.userCertificatePem), signatures: result.signatures }
        : { errCode: result.errCode, errMsg: result.errMsg }),
    });
    const signed = signEnveloped(xml, material.esp.keyPem, material.esp.certPem);
    return { status: 200, html: autoPostPage(session.responseUrl, { msg: signed }) };
  }
}

const mask = (phone: string | null) => (phone ? `XXXXXX${phone.replace(/\D/g, '').slice(-4)}` : 'not known');

function pemToDer(pem: string): Uint8Array {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}
