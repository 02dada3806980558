import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { Limits } from '@esign/contract';

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
  parser(req, res, next);
}
