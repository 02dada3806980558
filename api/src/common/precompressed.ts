import type { NextFunction, Request, Response } from 'express';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';

/** URL prefix → folder whose files (and their `.gz` copies) it serves, and how long a browser may keep them. */
export interface PrecompressedMount {
  prefix: string;
  dir: string;
  /** Seconds; 0 makes the browser ask again each time (answered 304 while unchanged). */
  maxAgeSeconds: number;
}

/**
 * Sends the gzip copy of a file (`file.gz`, written by admin/precompress.ts for the apps' hashed assets at build time,
 * committed beside the face models in api/models/face) to a browser that accepts gzip, so the server does not
 * compress the same megabytes on every request. Anything else (no copy, no gzip, not GET or HEAD) goes on to the
 * static files, where the compression middleware handles it. Only paths inside a mount's folder.
 */
export function precompressed(mounts: PrecompressedMount[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const mount = mounts.find((m) => req.path.startsWith(m.prefix));
    if (!mount || !/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return next();
    let relative: string;
    try {
      relative = decodeURIComponent(req.path.slice(mount.prefix.length));
    } catch {
      return next();
    }
    const file = path.join(mount.dir, relative);
    if (!file.startsWith(mount.dir + path.sep)) return next();
    const gz = `${file}.gz`;
    const found = statSync(gz, { throwIfNoEntry: false });
    const original = statSync(file, { throwIfNoEntry: false });
    // A copy older than its file is stale (a rebuild in place): leave it to the static files.
    if (!found?.isFile() || !original?.isFile() || found.mtimeMs < original.mtimeMs) return next();
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Cache-Control', `public, max-age=${mount.maxAgeSeconds}`);
    res.setHeader('Last-Modified', original.mtime.toUTCString());
    res.setHeader('ETag', `W/"${original.size.toString(16)}-${Math.floor(original.mtimeMs).toString(16)}"`);
    res.type(path.extname(file));
    if (req.fresh) return res.status(304).end();
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', String(found.size));
    if (req.method === 'HEAD') return res.end();
    createReadStream(gz)
      .on('error', (error) => next(error))
      .pipe(res);
  };
}
