import { ValidationPipe, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Headers } from '@esign/contract';
import { json, type NextFunction, type Request, type Response } from 'express';
import compression from 'compression';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AppModule, type AppOverrides } from './app.module';
import { AppError } from './common/app-error';
import { AppErrorFilter } from './common/error.filter';
import { createHttpLogger, createLogger, PinoNestLogger } from './common/logging/logger';
import { httpMetrics } from './modules/metrics/http-metrics.middleware';
import { MetricsService } from './modules/metrics/metrics.service';
import { multipartMiddleware } from './common/multipart.middleware';
import { precompressed } from './common/precompressed';
import type { AppConfig } from './config/app-config';

export interface CreatedApp {
  app: INestApplication;
  logger: Logger;
}

/** Builds the whole HTTP application; main.ts and the tests both use it. */
const NO_STORE_PREFIXES = ['/v1', '/api', '/consumers'];
const SIGNER_IMAGE_ROUTES = ['/v1/esignature', '/v1/signer_details'];

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
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.disable('x-powered-by');
  app.use(createHttpLogger(logger));
  app.use(httpMetrics(app.get(MetricsService)));
  // Text answers (the apps' scripts, JSON) are compressed for phones on slow networks; PDFs and images already are.
  app.use(
    compression({
      filter: (req, res) =>
        !/^(application\/pdf|image\/)/.test(String(res.getHeader('Content-Type') ?? '')) &&
        compression.filter(req, res),
    }),
  );
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
  app.useBodyParser('json', { limit: '1mb' });
  app.useBodyParser('urlencoded', { limit: '1mb', extended: false });
  app.use(multipartMiddleware);
  app.useGlobalFilters(new AppErrorFilter(logger));
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: (errors) =>
        new AppError(
          'VALIDATION_FAILED',
          errors
            .flatMap((e) => Object.values(e.constraints ?? { [e.property]: `${e.property} is not valid` }))
            .join('; '),
        ),
    }),
  );

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
  for (const root of [config.webRoots.admin, config.webRoots.signer]) {
    if (existsSync(root)) app.useStaticAssets(root, { index: false, fallthrough: true, maxAge: '1h' });
  }

  const openapi = new DocumentBuilder()
    .setTitle('e-Sign API')
    .setDescription('The /v1 contract, the /consumers sign-in and the /api resources of the staff console.')
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: Headers.apiKey }, 'apikey')
    .addBasicAuth()
    .build();
  SwaggerModule.setup('api-docs', app, () => SwaggerModule.createDocument(app, openapi));

  return { app, logger };
}
