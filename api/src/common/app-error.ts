import { ErrorStatus, type ErrorCode } from '@esign/contract';

/** The one error type services throw. The global filter maps `code` to an HTTP status through ErrorStatus. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ErrorStatus[this.code];
  }
}
