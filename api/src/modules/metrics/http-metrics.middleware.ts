import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { UNMATCHED_ROUTE, type MetricsService } from './metrics.service';

/**
 * Times every request into esign_http_request_duration_seconds. The route label is the pattern of the Express route
 * that answered (`/v1/requests/:refId`, with its router's base path), read when the answer is finished; anything no
 * route answered (static files, 404s, redirects of unknown pages) is `unmatched`, so the label set stays bounded.
 */
export function httpMetrics(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    timeRequest(metrics, req.method, res, () => routeOf(req));
    next();
  };
}

/** Times one answer from now until it is finished, under the route `route()` names then. */
export function timeRequest(
  metrics: MetricsService,
  method: string,
  res: Pick<ServerResponse, 'on' | 'statusCode'>,
  route: () => string,
): void {
  const start = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    metrics.observeHttp(method, route(), res.statusCode, seconds);
  });
}

function routeOf(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  const base = req.baseUrl ?? '';
  if (typeof path === 'string') return `${base}${path}` || '/';
  // A route of several paths (the web apps' pages): the one that is exactly this request's path, if any.
  if (Array.isArray(path)) {
    const exact: unknown = path.find((p) => p === req.path);
    if (typeof exact === 'string') return `${base}${exact}` || '/';
  }
  return UNMATCHED_ROUTE;
}
