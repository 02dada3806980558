import { Messages, type ErrorCode } from '@esign/contract';
import { AppError } from '../../../common/app-error';

/** Fills the `{name}` marks of a message text. */
export function fillMessage(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (mark, key: string) => (key in values ? String(values[key]) : mark));
}

export const invalidFormat = (): AppError => new AppError('UNSUPPORTED_MEDIA_TYPE', Messages.invalidPdf);
export const fileNameDots = (): AppError => new AppError('UNSUPPORTED_MEDIA_TYPE', Messages.pdfFileNameDots);
export const tooLarge = (): AppError => new AppError('PAYLOAD_TOO_LARGE', Messages.fileTooLarge);
export const damaged = (): AppError => new AppError('INVALID_DOCUMENT', Messages.pdfDamaged);
export const encrypted = (): AppError => new AppError('INVALID_DOCUMENT', Messages.pdfEncrypted);
export const signedAndDamaged = (): AppError => new AppError('INVALID_DOCUMENT', Messages.pdfSignedAndDamaged);
export const signedCannotChange = (): AppError => new AppError('INVALID_DOCUMENT', Messages.pdfSignedCannotChange);

export const validation = (
  text: string,
  values: Record<string, string | number> = {},
  code: ErrorCode = 'VALIDATION_FAILED',
) => new AppError(code, fillMessage(text, values));
