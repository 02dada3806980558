import { ErrorStatus, type ErrorCode } from '@esign/contract';

/** The one error type services throw. The global filter maps `code` to an HTTP status through ErrorStatus. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Extra fields of the error body the specification asks for (e.g. return_url with the discrepancy answer). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ErrorStatus[this.code];
  }
}
