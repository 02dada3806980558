import type { Request } from 'express';

/** A file of a multipart body, as the services take it. */
export interface UploadedFile {
  bytes: Buffer;
  filename: string;
  mimeType: string;
}

/** The file of `field` in the multipart body (parsed by `multipartMiddleware` before the route); undefined without one. */
export function uploadedFile(req: Request, field = 'file'): UploadedFile | undefined {
  const files = (req.files as Express.Multer.File[] | undefined) ?? [];
  const f = files.find((x) => x.fieldname === field);
  return f && { bytes: f.buffer, filename: f.originalname, mimeType: f.mimetype };
}
