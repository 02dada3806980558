import { ArgumentsHost, Catch, HttpException, NotFoundException, type ExceptionFilter } from '@nestjs/common';
import {
  API_PREFIXES,
  ErrorStatus,
  FieldMessages,
  Messages,
  StaffRoutes,
  type ErrorBody,
  type ErrorCode,
} from '@esign/contract';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from './app-error';
import { faultOf } from './faults';

const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'INVALID_CREDENTIALS',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_ATTEMPTS',
  503: 'UNAVAILABLE',
};

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code: ErrorStatus[code], error: code, message, status: { statusMessage: message } };
}

const isApiPath = (path: string) => API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
/** A missing file (script, style sheet, image) is a plain 404, never a redirect to the not-found page. */
const isFilePath = (path: string) => /\.[A-Za-z0-9]{1,8}$/.test(path.slice(path.lastIndexOf('/') + 1));

/**
 * The one error filter: every error becomes `{ code, error, message }` with the status of ErrorStatus. Unknown errors
 * become a 500 with no internals and are logged with the request id. A page (not an API path) that matches no route is
 * redirected to /not-found, as the specification's route table says; a missing file answers 404.
 */
@Catch()
export class AppErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    if (res.headersSent) return;

    if (
      exception instanceof NotFoundException &&
      (req.method === 'GET' || req.method === 'HEAD') &&
      !isApiPath(req.path) &&
      !isFilePath(req.path)
    ) {
      res.redirect(302, StaffRoutes.notFound);
      return;
    }

    const { code, message, headers } = this.describe(exception, req);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const details = exception instanceof AppError ? exception.details : {};
    res.status(ErrorStatus[code]).json({ ...details, ...errorBody(code, message) });
  }

  private describe(
    exception: unknown,
    req: Request,
  ): { code: ErrorCode; message: string; headers: Record<string, string> } {
    if (exception instanceof AppError)
      return { code: exception.code, message: exception.message, headers: exception.headers };
    // A full or read-only disk, a database gone: 503 with what happened, and it recovers by itself (issue 24).
    const fault = faultOf(exception);
    if (fault) {
      this.logger.warn({ err: exception, reqId: (req as { id?: unknown }).id }, 'infrastructure fault');
      return { code: fault.code, message: fault.message, headers: fault.headers };
    }

    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      let message: string = exception.message;
      if (typeof response === 'object' && response && 'message' in response) {
        const m = (response as { message: unknown }).message;
        message = Array.isArray(m) ? m.join('; ') : String(m);
      }
      if (status === 404) message = Messages.notFound;
      const code = CODE_FOR_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST');
      if (code === 'INTERNAL') return this.internal(exception, req);
      return { code, message, headers: {} };
    }

    // Errors raised by Express middleware (body parsers, multer) carry a status or a code.
    const err = exception as { status?: number; type?: string; code?: string; message?: string } | undefined;
    if (err?.type === 'entity.parse.failed')
      return { code: 'INVALID_JSON', message: 'The request body is not valid JSON.', headers: {} };
    if (err?.type === 'entity.too.large' || err?.code === 'LIMIT_FILE_SIZE') {
      // A signer's attachment (issue 21) says its own limit; everything else is the specification's document limit.
      const attachment = /^\/v1\/fields\//.test(req.path ?? '');
      return {
        code: 'PAYLOAD_TOO_LARGE',
        message: attachment ? FieldMessages.attachmentTooLarge : Messages.fileTooLarge,
        headers: {},
      };
    }
    if (typeof err?.code === 'string' && err.code.startsWith('LIMIT_')) {
      return { code: 'BAD_REQUEST', message: `The upload is not valid: ${err.message ?? err.code}.`, headers: {} };
    }
    if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
      return {
        code: CODE_FOR_STATUS[err.status] ?? 'BAD_REQUEST',
        message: err.message ?? Messages.invalidRequest,
        headers: {},
      };
    }
    return this.internal(exception, req);
  }

  private internal(exception: unknown, req: Request) {
    this.logger.error({ err: exception, reqId: (req as { id?: unknown }).id }, 'unhandled error');
    return { code: 'INTERNAL' as const, message: Messages.internalError, headers: {} };
  }
}
