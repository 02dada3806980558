import type { NextFunction, Request, Response } from 'express';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';

/** The folders of the built apps' assets (hashed names, written by the build). */
const PREFIXES = ['/admin-assets/', '/signer-assets/'];

/**
 * Sends the build's gzip copy of an asset (`file.gz`, written by admin/precompress.ts) to a browser that accepts gzip,
 * so the server does not compress the same megabyte on every request. Anything else (no copy, no gzip, not GET or
 * HEAD) goes on to the static files, where the compression middleware handles it. Only paths inside a web root.
 */
export function precompressed(roots: string[], maxAgeSeconds: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !PREFIXES.some((p) => req.path.startsWith(p))) return next();
    if (!/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return next();
    let relative: string;
    try {
      relative = decodeURIComponent(req.path);
    } catch {
      return next();
    }
    for (const root of roots) {
      const file = path.join(root, relative);
      if (!file.startsWith(root + path.sep)) continue;
      const gz = `${file}.gz`;
      const found = statSync(gz, { throwIfNoEntry: false });
      if (!found?.isFile() || !statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Content-Length', String(found.size));
      res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
      res.setHeader('Last-Modified', found.mtime.toUTCString());
      res.type(path.extname(file));
      if (req.method === 'HEAD') return res.end();
      createReadStream(gz)
        .on('error', (error) => next(error))
        .pipe(res);
      return;
    }
    next();
  };
}
