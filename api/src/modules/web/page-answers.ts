import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONSOLE_ROUTES, SIGNER_ROUTES } from '@esign/contract';
import { routePattern } from '../../common/http/route-pattern';
import { timeRequest } from '../metrics/http-metrics.middleware';
import { UNMATCHED_ROUTE, type MetricsService } from '../metrics/metrics.service';
import type { WebApp, WebPage, WebPages } from './web-pages';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export interface PageAnswerParts {
  pages: WebPages;
  metrics: MetricsService;
  /** The request log every answer gets (createHttpLogger's middleware). */
  log: Middleware;
  /** The headers every answer carries for this path (app.factory's securityHeaders), HSTS when `secure`. */
  securityHeaders: (res: ServerResponse, path: string, secure: boolean) => void;
  /** Whether the request came over TLS, as Express's req.secure says (X-Forwarded-Proto from trusted proxies only). */
  secure: (req: IncomingMessage) => boolean;
}

/** An answer sent uncompressed: a page longer than this is left to Express, whose compression takes it. */
const MAX_PAGE_BYTES = 12 * 1024;

/**
 * The web apps' pages (index.html at the console's and the signer's routes) answered straight from the HTTP server,
 * before Express: a page goes through none of the API's middleware or Nest's route table (about 200 routes, the pages'
 * last), which cost more than half of its answer (issue 23: the signing page's HTML at 5,000/s). The answer is the one
 * WebController gives: the same bytes, security headers, request log line and metric, `Cache-Control: no-cache`, an
 * ETag and 304 for a browser that has the page. Anything else (another method, a page of an app not built) goes on to
 * Express as before.
 */
export function pageAnswers(parts: PageAnswerParts) {
  const pages: Array<[RegExp, WebApp]> = [
    [routePattern(CONSOLE_ROUTES), 'admin'],
    [routePattern(SIGNER_ROUTES), 'signer-web'],
  ];
  // The metric's route label as the router gives it: a route of several paths is labelled by the one that is exactly
  // this request's path (the console's fixed pages), otherwise unmatched.
  const exactRoutes = new Set<string>([...CONSOLE_ROUTES, ...SIGNER_ROUTES]);
  const send = (req: IncomingMessage, res: ServerResponse, path: string, page: WebPage): void => {
    parts.securityHeaders(res, path, parts.secure(req));
    parts.log(req, res, () => {});
    timeRequest(parts.metrics, req.method ?? 'GET', res, () => (exactRoutes.has(path) ? path : UNMATCHED_ROUTE));
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('ETag', page.etag);
    if (fresh(req, page.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Length', page.html.length);
    res.end(req.method === 'HEAD' ? undefined : page.html);
  };
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const url = req.url ?? '';
    if ((req.method !== 'GET' && req.method !== 'HEAD') || url[0] !== '/') return next();
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const app = pages.find(([pattern]) => pattern.test(path))?.[1];
    if (!app) return next();
    parts.pages.page(app).then(
      (page) => (page.html.length > MAX_PAGE_BYTES ? next() : send(req, res, path, page)),
      // Not built: WebController answers it with its error.
      () => next(),
    );
  };
}

/** Whether the browser's copy is current (If-None-Match names this ETag), as Express's req.fresh decides for a page. */
function fresh(req: IncomingMessage, etag: string): boolean {
  const match = req.headers['if-none-match'];
  if (!match) return false;
  const cacheControl = req.headers['cache-control'];
  if (cacheControl && /(?:^|,)\s*no-cache\s*(?:,|$)/.test(cacheControl)) return false;
  if (match.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return match.split(',').some((tag) => opaque(tag) === opaque(etag));
}
