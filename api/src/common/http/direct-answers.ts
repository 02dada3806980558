import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import Negotiator from 'negotiator';

/** A handler that answers a request or hands it on (`next`): the HTTP server's own, before Express. */
export type DirectHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * What every answer given before Express carries, as Express's middleware would have given it (app.factory.ts builds
 * these from the same functions its middleware uses).
 */
export interface DirectAnswerParts {
  /** The request log every answer gets (createHttpLogger's middleware). */
  log: DirectHandler;
  /** The headers every answer carries for this path (app.factory's securityHeaders), HSTS when `secure`. */
  securityHeaders: (res: ServerResponse, path: string, secure: boolean) => void;
  /** Whether the request came over TLS, as Express's req.secure says (X-Forwarded-Proto from trusted proxies only). */
  secure: (req: IncomingMessage) => boolean;
  /** Times the answer into the HTTP metric under the route `route()` names when it is finished. */
  time: (method: string, res: ServerResponse, route: () => string) => void;
}

/**
 * JSON answers and pages shorter than this are sent uncompressed, through Express (app.factory's compression filter)
 * and here alike: they fit in TCP's initial window either way.
 */
export const DIRECT_MAX_BYTES = 12 * 1024;

/** A body's encodings, made when first asked for (a kept list page keeps them with it). */
export type Encoded = Partial<Record<Encoding, Buffer>>;
type Encoding = 'br' | 'gzip' | 'deflate';

// As Express's compression middleware (1.8) negotiates: what it offers, and what it prefers on a tie.
const SUPPORTED_ENCODINGS = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED_ENCODINGS = ['br', 'gzip'];
type EncodingNegotiator = { encoding(available: string[], preferred: string[]): string | undefined };

/**
 * The encoding Express's compression middleware would answer `req` with, for a body it compresses (not HEAD; no
 * Accept-Encoding means none), or null for none.
 */
function encodingFor(req: IncomingMessage): Encoding | null {
  if (req.method === 'HEAD' || !req.headers['accept-encoding']) return null;
  const chosen = (new Negotiator(req) as unknown as EncodingNegotiator).encoding(
    SUPPORTED_ENCODINGS,
    PREFERRED_ENCODINGS,
  );
  return chosen === 'br' || chosen === 'gzip' || chosen === 'deflate' ? chosen : null;
}

/** `body` encoded as the middleware's streams encode it: zlib's default level; Brotli at quality 4. */
function encode(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
}

/** The path of a request in origin form (`/a/b?c`), or null for any other form (left to Express). */
export function pathOf(req: IncomingMessage): { path: string; query: string } | null {
  const url = req.url ?? '';
  if (url[0] !== '/') return null;
  const at = url.indexOf('?');
  return at < 0 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at + 1) };
}

/** Express's default entity tag of a body: weak, its length in hex and 27 characters of its SHA-1 in base64. */
export function weakEtag(body: Buffer | string): string {
  const hash = createHash('sha1').update(body).digest('base64').slice(0, 27);
  return `W/"${Buffer.byteLength(body).toString(16)}-${hash}"`;
}

/**
 * Sends `body` (200, or 304 when the browser's If-None-Match names its ETag, as Express's req.fresh decides) with the
 * security headers, request log line and metric every answer gets, and `headers`.
 */
export function sendDirect(
  parts: DirectAnswerParts,
  req: IncomingMessage,
  res: ServerResponse,
  answer: {
    path: string;
    route: () => string;
    headers: Record<string, string>;
    body: Buffer;
    etag: string;
    /**
     * Compressed as Express's compression middleware would when at least DIRECT_MAX_BYTES long (the same negotiation,
     * encodings and levels, the same Vary), but in one step on the event loop: the middleware's zlib stream added
     * several milliseconds to a 17 KB page (issue 23). The encodings made are kept in this record.
     */
    compress?: Encoded;
  },
): void {
  parts.securityHeaders(res, answer.path, parts.secure(req));
  parts.log(req, res, () => {});
  parts.time(req.method ?? 'GET', res, answer.route);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('ETag', answer.etag);
  const compress = answer.compress && answer.body.length >= DIRECT_MAX_BYTES ? answer.compress : null;
  if (compress) res.setHeader('Vary', 'Accept-Encoding');
  if (fresh(req, answer.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  let body = answer.body;
  const encoding = compress && encodingFor(req);
  if (compress && encoding) {
    body = compress[encoding] ??= encode(body, encoding);
    res.setHeader('Content-Encoding', encoding);
  }
  res.statusCode = 200;
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Whether the browser's copy is current (If-None-Match names this ETag), as Express's req.fresh decides. */
function fresh(req: IncomingMessage, etag: string): boolean {
  const match = req.headers['if-none-match'];
  if (!match) return false;
  const cacheControl = req.headers['cache-control'];
  if (cacheControl && /(?:^|,)\s*no-cache\s*(?:,|$)/.test(cacheControl)) return false;
  if (match.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return match.split(',').some((tag) => opaque(tag) === opaque(etag));
}
