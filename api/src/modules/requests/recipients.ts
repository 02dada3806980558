import type { ValidRecipient } from '@esign/contract';
import { AppError } from '../../common/app-error';

export type { ValidRecipient } from '@esign/contract';

/** A request's options from /v1/upload (checked by the contract's uploadSchema). */
export interface RequestOptions {
  checkOrder: boolean;
  otpRequired: boolean;
  reminder: boolean;
  reminderDuration: number | null;
}

/**
 * The recipients of /v1/upload, checked by the contract's uploadSchema before the controller (spec section 5), and
 * here what depends on the organisation: each signer's signature type must be one it has enabled. Nothing is written
 * until this passes.
 */
export function enabledRecipients(recipients: ValidRecipient[], allowedTypes: readonly string[]): ValidRecipient[] {
  recipients.forEach((r, i) => {
    if (r.signatureType && !allowedTypes.includes(r.signatureType))
      throw new AppError(
        'VALIDATION_FAILED',
        `Recipient ${i + 1}: The signature type ${r.signatureType} is not enabled for your organisation.`,
      );
  });
  return recipients;
}
