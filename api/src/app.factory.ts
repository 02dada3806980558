import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { CONSOLE_ROUTES, Headers, SIGNER_ROUTES } from '@esign/contract';
import { json, raw, static as serveStatic, type NextFunction, type Request, type Response } from 'express';
import compression from 'compression';
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AppModule, type AppOverrides } from './app.module';
import { AppErrorFilter } from './common/error.filter';
import { createHttpLogger, createLogger, PinoNestLogger } from './common/logging/logger';
import { httpMetrics } from './modules/metrics/http-metrics.middleware';
import { MetricsService } from './modules/metrics/metrics.service';
import { multipartMiddleware } from './common/multipart.middleware';
import { precompressed } from './common/precompressed';
import { autoPostPage } from './modules/aadhaar/sandbox/pages';
import { pageAnswers } from './modules/web/page-answers';
import { referenceAnswers } from './modules/recipients/reference-answer';
import { listAnswers } from './modules/requests/list-answer';
import { ListPageCache } from './modules/requests/list-page-cache';
import { RequestListsService } from './modules/requests/request-lists.service';
import { TenantGuard } from './common/auth/tenant.guard';
import { RecipientsService } from './modules/recipients/recipients.service';
import { SignerLinkGuard } from './modules/recipients/signer-link.guard';
import { timeRequest } from './modules/metrics/http-metrics.middleware';
import { DIRECT_MAX_BYTES, type DirectAnswerParts, type DirectHandler } from './common/http/direct-answers';
import { WebPages } from './modules/web/web-pages';
import { routePattern } from './common/http/route-pattern';
import type { AppConfig } from './config/app-config';

/** How long an idle keep-alive connection is kept open. */
export const KEEP_ALIVE_MS = 65_000;

/** A file name at the top of a web build (`/favicon.ico`), as opposed to a route (`/api/requests`, `/health`). */
const TOP_LEVEL_FILE = /^\/[\w.-]+\.[A-Za-z0-9]+$/;

export interface CreatedApp {
  app: INestApplication;
  logger: Logger;
}

/** Builds the whole HTTP application; main.ts and the tests both use it. */
const NO_STORE_PREFIXES = ['/v1', '/api', '/consumers'];
const SIGNER_IMAGE_ROUTES = ['/v1/esignature', '/v1/signer_details'];

const policy = (directives: Record<string, string[]>): string =>
  Object.entries(directives)
    .map(([name, values]) => [name, ...values].join(' '))
    .join('; ');

const originOf = (url: string): string | null => {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
};

/**
 * The headers every answer carries (no dependency: one middleware). No page may be framed (X-Frame-Options and
 * frame-ancestors), nothing is sniffed, no Referer leaves (sign links carry their token in the query string), HSTS only
 * over TLS (req.secure honours X-Forwarded-Proto from TRUSTED_PROXIES only). Each app's pages and assets (so its
 * workers too: pdf.js, onnxruntime-web) get the app's Content-Security-Policy; the sandbox ESP's pages allow their one
 * inline script by hash; /api-docs its Swagger UI; documents and logos only frame-ancestors (a browser's PDF viewer
 * opens them); everything else (JSON, redirects) nothing at all.
 */
function securityHeaders(config: AppConfig) {
  const unique = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => !!v))];
  const publicOrigin = originOf(config.publicUrl);
  // The document links and the sandbox ESP are addressed with PUBLIC_URL, which may be another host name than the one
  // the app was opened on; a real ESP receives the signing page's form post (and may redirect within its origin).
  const espOrigin = config.esp.mode === 'esp' ? originOf(config.esp.url) : null;
  const app = (extra: { scriptSrc: string[]; formAction: (string | null)[] }) =>
    policy({
      'default-src': ["'self'"],
      // pdf.js's worker compiles its JPEG 2000, JBIG2 and colour-profile decoders (WebAssembly) in both apps.
      'script-src': ["'self'", ...extra.scriptSrc],
      // MUI/emotion and React inject styles.
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:', 'blob:'],
      // pdf.js loads a document's fonts; its fallback (browsers without the FontFace API) is a data: URL.
      'font-src': ["'self'", 'data:'],
      'worker-src': ["'self'", 'blob:'],
      'connect-src': unique(["'self'", publicOrigin]),
      'media-src': ["'self'", 'blob:'],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': unique(["'self'", ...extra.formAction]),
      'frame-ancestors': ["'none'"],
    });
  const consolePolicy = app({ scriptSrc: ["'wasm-unsafe-eval'"], formAction: [] });
  // onnxruntime-web (face checks) is WebAssembly; the Aadhaar step posts a form to the ESP.
  const signerPolicy = app({ scriptSrc: ["'wasm-unsafe-eval'"], formAction: [publicOrigin, espOrigin] });
  const autoPostScript = /<script>([\s\S]*?)<\/script>/.exec(autoPostPage('/', {}))?.[1] ?? '';
  const sandboxPolicy = policy({
    'default-src': ["'none'"],
    'script-src': [`'sha256-${createHash('sha256').update(autoPostScript).digest('base64')}'`],
    'style-src': ["'unsafe-inline'"],
    'base-uri': ["'none'"],
    'form-action': unique(["'self'", publicOrigin]),
    'frame-ancestors': ["'none'"],
  });
  const apiDocsPolicy = policy({
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  });
  const noneFramed = policy({ 'frame-ancestors': ["'none'"] });
  const nothing = policy({
    'default-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  });
  const consolePages = routePattern(CONSOLE_ROUTES);
  const signerPages = routePattern(SIGNER_ROUTES);
  const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  const policyFor = (path: string): string => {
    if (consolePages.test(path) || under(path, '/admin-assets')) return consolePolicy;
    if (signerPages.test(path) || under(path, '/signer-assets')) return signerPolicy;
    if (under(path, '/esp-sandbox')) return sandboxPolicy;
    if (under(path, '/api-docs')) return apiDocsPolicy;
    if (under(path, '/docs')) return noneFramed;
    return nothing;
  };
  const apply = (res: ServerResponse, path: string, secure: boolean): void => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', policyFor(path));
    if (secure) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  };
  return {
    apply,
    middleware: (req: Request, res: Response, next: NextFunction) => {
      apply(res, req.path, req.secure);
      next();
    },
  };
}

/**
 * Whether a request came over TLS, as Express's req.secure says: the socket's own TLS, or the first X-Forwarded-Proto
 * when the peer is a trusted proxy (Express's compiled 'trust proxy fn').
 */
function isSecure(trust: (address: string | undefined, hop: number) => boolean) {
  return (req: IncomingMessage): boolean => {
    const socket = req.socket as IncomingMessage['socket'] & { encrypted?: boolean };
    const own = socket.encrypted ? 'https' : 'http';
    if (!trust(socket.remoteAddress, 0)) return own === 'https';
    const forwarded = req.headers['x-forwarded-proto'];
    const header = (typeof forwarded === 'string' && forwarded) || own;
    return header.split(',')[0].trim() === 'https';
  };
}

export async function createApp(config: AppConfig, overrides: AppOverrides = {}): Promise<CreatedApp> {
  const logger = createLogger(config, overrides.logDestination);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, overrides),
    new ExpressAdapter(),
    {
      logger: new PinoNestLogger(logger),
      bodyParser: false,
    },
  );
  // An idle keep-alive connection stays open 65 s (Node's default is 5 s). A client or proxy that reuses it just as the
  // server closes it gets ECONNRESET on a request the server never saw; proxies (nginx's upstream keepalive_timeout is
  // 60 s) and HTTP clients keep theirs for less than this, so they close first.
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.disable('x-powered-by');
  const security = securityHeaders(config);
  const httpLog = createHttpLogger(logger);
  app.use(security.middleware);
  app.use(httpLog);
  app.use(httpMetrics(app.get(MetricsService)));
  // Text answers (the apps' scripts, JSON) are compressed for phones on slow networks; PDFs and images already are.
  // A JSON answer that fits in TCP's first flight (an initial window of 10 segments, about 14 KB) arrives no sooner
  // compressed, so the small ones go as they are and cost no compression on either side.
  const compress = compression({
    filter: (req, res) => {
      const type = String(res.getHeader('Content-Type') ?? '');
      if (/^(application\/pdf|image\/)/.test(type)) return false;
      // The apps' pages (index.html, about 1.3 KB) likewise.
      if (
        (type.startsWith('application/json') || type.startsWith('text/html')) &&
        Number(res.getHeader('Content-Length') ?? Infinity) < DIRECT_MAX_BYTES
      )
        return false;
      return compression.filter(req, res);
    },
  });
  app.use(compress);
  // Answers carrying session keys, documents or personal data must never sit in a shared or browser cache.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (NO_STORE_PREFIXES.some((p) => req.path === p || req.path.startsWith(`${p}/`)))
      res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Signature images and face captures arrive as data: URLs in JSON (1 MB images, a third more in base64); every other
  // JSON body stays under 1 MB. The first parser that reads a body marks it parsed, so the general one skips these.
  app.use(SIGNER_IMAGE_ROUTES, json({ limit: '2mb' }));
  // The liveness video: at most Limits.videoMaxBytes (8 MB) decoded, a third more as base64.
  app.use('/v1/liveness', json({ limit: '11mb' }));
  // RFC 3161 queries to the built-in development TSA: a hash and a few options, well under 1 KB.
  app.use('/tsa', raw({ type: 'application/timestamp-query', limit: '16kb' }));
  app.useBodyParser('json', { limit: '1mb' });
  app.useBodyParser('urlencoded', { limit: '1mb', extended: false });
  app.use(multipartMiddleware);
  app.useGlobalFilters(new AppErrorFilter(logger));
  // Inputs are checked by each route's own schema (@InputBody, @InputQuery, @InputParam of common/validation), before
  // its controller runs: there is no global validation pipe.

  // The built web apps' assets (their gzip copies first); their pages are answered by WebController.
  // The face models for the signer's browser are the very files the API scores with (api/models/face), fetched only
  // when the organisation asks for face or liveness checks; their names stay the same across builds, so the browser
  // asks again each time and gets 304 while they are unchanged.
  app.use(
    precompressed([
      { prefix: '/admin-assets/', dir: join(config.webRoots.admin, 'admin-assets'), maxAgeSeconds: 3600 },
      { prefix: '/signer-assets/', dir: join(config.webRoots.signer, 'signer-assets'), maxAgeSeconds: 3600 },
      { prefix: '/models/face/', dir: config.faceModelsDir, maxAgeSeconds: 0 },
    ]),
  );
  if (existsSync(config.faceModelsDir))
    app.useStaticAssets(config.faceModelsDir, { prefix: '/models/face/', index: false, maxAge: 0 });
  // The rest of each build: its assets for a browser that takes no gzip, and its top-level files (index.html, anything
  // Vite copies from public/). Only such paths reach the file server, so an API call costs no look-ups on disk.
  for (const [root, assets] of [
    [config.webRoots.admin, '/admin-assets/'],
    [config.webRoots.signer, '/signer-assets/'],
  ] as const) {
    const serve = serveStatic(root, { index: false, fallthrough: true, maxAge: '1h' });
    app.use((req: Request, res: Response, next: NextFunction) =>
      req.path.startsWith(assets) || TOP_LEVEL_FILE.test(req.path) ? serve(req, res, next) : next(),
    );
  }

  const openapi = new DocumentBuilder()
    .setTitle('e-Sign API')
    .setDescription('The /v1 contract, the /consumers sign-in and the /api resources of the staff console.')
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: Headers.apiKey }, 'apikey')
    .addBasicAuth()
    .build();
  SwaggerModule.setup('api-docs', app, () => SwaggerModule.createDocument(app, openapi));

  // The apps' pages and the signing page's first call are answered before Express (page-answers.ts,
  // reference-answer.ts) with what Express's middleware would have added; every other request goes to Express.
  const express = app.getHttpAdapter().getInstance() as { get(setting: string): unknown };
  const metrics = app.get(MetricsService);
  const direct: DirectAnswerParts = {
    log: httpLog,
    securityHeaders: security.apply,
    secure: isSecure(express.get('trust proxy fn') as (address: string | undefined, hop: number) => boolean),
    time: (method, res, route) => timeRequest(metrics, method, res, route),
  };
  const answers: DirectHandler[] = [
    pageAnswers(direct, app.get(WebPages)),
    referenceAnswers(direct, app.get(SignerLinkGuard), app.get(RecipientsService)),
    listAnswers(direct, app.get(TenantGuard), app.get(RequestListsService), app.get(ListPageCache)),
  ];
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (handlers.length !== 1) throw new Error(`expected Express as the one request handler, found ${handlers.length}`);
  const [toExpress] = handlers;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const step = (i: number): void =>
      i < answers.length ? answers[i](req, res, () => step(i + 1)) : toExpress(req, res);
    step(0);
  });

  return { app, logger };
}
