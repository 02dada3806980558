import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { Limits } from '@esign/contract';
import { AppError } from './app-error';

/**
 * Multipart bodies are parsed for every route before the guards run, so the tenant guard sees their orgId fields like
 * those of a JSON body. Files stay in memory: the largest allowed upload is a 5 MB PDF; a little headroom lets the
 * service answer "File size should be less than 5MB" itself rather than a cut-off stream.
 */
const parser = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: Limits.maxFileBytes + 1024 * 1024, files: 5, fields: 50, fieldSize: 1024 * 1024 },
}).any();

export function multipartMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (!req.is('multipart/form-data')) return next();
  parser(req, res, (err?: unknown) => {
    // multer's own errors carry a LIMIT_* code (the error filter answers them); busboy's ('Unexpected end of form',
    // 'Malformed part header', a missing boundary) carry nothing: the client sent a broken body, a 400.
    const e = err as { code?: unknown; status?: unknown } | undefined;
    if (err instanceof Error && e?.code === undefined && e?.status === undefined)
      return next(new AppError('VALIDATION_FAILED', `The multipart body is malformed: ${err.message}.`));
    next(err);
  });
}
