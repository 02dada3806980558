import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { hashKey, safeEqual } from '../auth/secrets';
import { AppSecretService } from './app-secret.service';

export type DocumentKind = 'original' | 'signed' | 'template';

/** How long a document link shown in the console stays valid. */
export const DOCUMENT_LINK_SECONDS = 12 * 3600;

/**
 * Recipient link tokens and document links.
 * - A party's token is HMAC(link secret, nonce), 256 bits, base64url; only its SHA-256 and the nonce are stored.
 * - Document links (the console's Original and Signed document columns open in a new tab, without the apikey header)
 *   carry an expiry and an HMAC over orgId, refId, kind and expiry; verification report links the same over their own
 *   message.
 */
@Injectable()
export class LinksService {
  constructor(
    private readonly secrets: AppSecretService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  newNonce(): string {
    return randomBytes(16).toString('hex');
  }

  async partyToken(nonce: string): Promise<string> {
    return (await this.secrets.hmac('link', `party:${nonce}`)).toString('base64url');
  }

  tokenHash(token: string): string {
    return hashKey(token);
  }

  async signUrl(orgId: string, refId: number, order: number, nonce: string | null): Promise<string | null> {
    if (!nonce) return null;
    const token = await this.partyToken(nonce);
    return `${this.config.publicUrl}/esign/${encodeURIComponent(orgId)}/${refId}/${order}?token=${token}`;
  }

  /** `seconds`: how long the link works (12 h for the console; longer for the completion message). */
  async documentUrl(
    orgId: string,
    refId: number | string,
    kind: DocumentKind,
    seconds = DOCUMENT_LINK_SECONDS,
  ): Promise<string> {
    const exp = Math.floor(this.clock.now().getTime() / 1000) + seconds;
    const sig = await this.documentSignature(orgId, refId, kind, exp);
    return `${this.config.publicUrl}/docs/files/${encodeURIComponent(orgId)}/${refId}/${kind}.pdf?exp=${exp}&sig=${sig}`;
  }

  async verifyDocumentLink(
    orgId: string,
    refId: number | string,
    kind: DocumentKind,
    exp: string,
    sig: string,
  ): Promise<void> {
    const expiry = Number(exp);
    const valid =
      Number.isInteger(expiry) &&
      typeof sig === 'string' &&
      safeEqual(sig, await this.documentSignature(orgId, refId, kind, expiry)) &&
      expiry * 1000 > this.clock.now().getTime();
    if (!valid) throw new AppError('FORBIDDEN', 'This document link is invalid or has expired.');
  }

  /**
   * A request's verification report as a page (`/docs/reports/{orgId}/{refId}/verification.html`), for people: the
   * same expiry and HMAC as a document link, over its own message so neither link opens the other.
   */
  async reportUrl(orgId: string, refId: number, seconds = DOCUMENT_LINK_SECONDS): Promise<string> {
    const exp = Math.floor(this.clock.now().getTime() / 1000) + seconds;
    const sig = await this.reportSignature(orgId, refId, exp);
    return `${this.config.publicUrl}/docs/reports/${encodeURIComponent(orgId)}/${refId}/verification.html?exp=${exp}&sig=${sig}`;
  }

  async verifyReportLink(orgId: string, refId: number, exp: string, sig: string): Promise<void> {
    const expiry = Number(exp);
    const valid =
      Number.isInteger(expiry) &&
      typeof sig === 'string' &&
      safeEqual(sig, await this.reportSignature(orgId, refId, expiry)) &&
      expiry * 1000 > this.clock.now().getTime();
    if (!valid) throw new AppError('FORBIDDEN', 'This report link is invalid or has expired.');
  }

  private async reportSignature(orgId: string, refId: number, exp: number): Promise<string> {
    return (await this.secrets.hmac('link', `report:${orgId}:${refId}:verification:${exp}`)).toString('base64url');
  }

  private async documentSignature(
    orgId: string,
    refId: number | string,
    kind: DocumentKind,
    exp: number,
  ): Promise<string> {
    return (await this.secrets.hmac('link', `doc:${orgId}:${refId}:${kind}:${exp}`)).toString('base64url');
  }
}
