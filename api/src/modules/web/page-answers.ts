import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONSOLE_ROUTES, SIGNER_ROUTES } from '@esign/contract';
import {
  DIRECT_MAX_BYTES,
  pathOf,
  sendDirect,
  type DirectAnswerParts,
  type DirectHandler,
} from '../../common/http/direct-answers';
import { routePattern } from '../../common/http/route-pattern';
import { UNMATCHED_ROUTE } from '../metrics/metrics.service';
import type { WebApp, WebPage, WebPages } from './web-pages';

/**
 * The web apps' pages (index.html at the console's and the signer's routes) answered straight from the HTTP server,
 * before Express: a page goes through none of the API's middleware or Nest's route table (about 200 routes, the pages'
 * last), which cost more than half of its answer (issue 23: the signing page's HTML at 5,000/s). The answer is the one
 * WebController gives: the same bytes, security headers, request log line and metric, `Cache-Control: no-cache`, an
 * ETag and 304 for a browser that has the page. Anything else (another method, a page of an app not built) goes on to
 * Express as before.
 */
export function pageAnswers(parts: DirectAnswerParts, pages: WebPages): DirectHandler {
  const apps: Array<[RegExp, WebApp]> = [
    [routePattern(CONSOLE_ROUTES), 'admin'],
    [routePattern(SIGNER_ROUTES), 'signer-web'],
  ];
  // The metric's route label as the router gives it: a route of several paths is labelled by the one that is exactly
  // this request's path (the console's fixed pages), otherwise unmatched.
  const exactRoutes = new Set<string>([...CONSOLE_ROUTES, ...SIGNER_ROUTES]);
  const send = (req: IncomingMessage, res: ServerResponse, path: string, page: WebPage): void =>
    sendDirect(parts, req, res, {
      path,
      route: () => (exactRoutes.has(path) ? path : UNMATCHED_ROUTE),
      headers: { 'Cache-Control': 'no-cache', 'Content-Type': 'text/html; charset=utf-8' },
      body: page.html,
      etag: page.etag,
    });
  return (req, res, next) => {
    const at = req.method === 'GET' || req.method === 'HEAD' ? pathOf(req) : null;
    const app = at && apps.find(([pattern]) => pattern.test(at.path))?.[1];
    if (!at || !app) return next();
    pages.page(app).then(
      (page) => (page.html.length >= DIRECT_MAX_BYTES ? next() : send(req, res, at.path, page)),
      // Not built: WebController answers it with its error.
      () => next(),
    );
  };
}
