import { Injectable } from '@nestjs/common';
import { AdminMessages, SEAL_EXPIRY_WARNING_DAYS, type SealCertificateInfo } from '@esign/contract';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { OrganisationsService } from '../organisations/organisations.service';
import { certificateInfo } from '../signing/pki/certificates';
import { SealImportError, SealPkiService, type SealCertificate } from '../signing/pki/seal-pki.service';

const DAY_MS = 86_400_000;

/** How each refusal of a PKCS#12 reads in the console. */
const IMPORT_MESSAGES: Record<SealImportError['problem'], string> = {
  format: AdminMessages.sealNotPkcs12,
  password: AdminMessages.sealNotPkcs12,
  'no-key': AdminMessages.sealNoKey,
  'many-keys': AdminMessages.sealManyKeys,
  expired: AdminMessages.sealExpired,
};

/**
 * The organisation's seal certificate as its administrator sees it (issue 22): what it is and when it expires, and
 * the import of a PKCS#12 through the very service `manage import-seal` uses (a refused file changes nothing).
 */
@Injectable()
export class SealAdministration {
  constructor(
    private readonly organisations: OrganisationsService,
    private readonly pki: SealPkiService,
    private readonly clock: Clock,
  ) {}

  async info(orgId: string): Promise<SealCertificateInfo> {
    const org = await this.organisations.getEntity(orgId);
    return this.describe(await this.pki.sealCertificate(org));
  }

  async import(orgId: string, file: Buffer | undefined, password: string): Promise<SealCertificateInfo> {
    if (!file?.length) throw new AppError('VALIDATION_FAILED', AdminMessages.sealFileMissing);
    const org = await this.organisations.getEntity(orgId);
    try {
      await this.pki.importPkcs12(org, file, password);
    } catch (err) {
      if (err instanceof SealImportError) throw new AppError('VALIDATION_FAILED', IMPORT_MESSAGES[err.problem]);
      throw err;
    }
    return this.describe(await this.pki.sealCertificate(org));
  }

  private describe({ certPem, source }: SealCertificate): SealCertificateInfo {
    const cert = certificateInfo(certPem);
    const left = cert.notAfter.getTime() - this.clock.now().getTime();
    const expired = left <= 0;
    return {
      subject: cert.subject,
      issuer: cert.issuer,
      serial: cert.serialNumber,
      not_before: cert.notBefore.toISOString(),
      not_after: cert.notAfter.toISOString(),
      days_left: Math.floor(left / DAY_MS),
      expiring_soon: !expired && left <= SEAL_EXPIRY_WARNING_DAYS * DAY_MS,
      expired,
      source,
    };
  }
}
