import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createServer, type Server } from 'node:http';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { AppModule } from './app.module';
import { PinoNestLogger, createLogger } from './common/logging/logger';
import { limitHeapGrowth } from './common/runtime/heap-growth';
import { ConfigError, loadConfig } from './config/app-config';
import { BullJobs } from './modules/jobs/bull-jobs';
import { MetricsService } from './modules/metrics/metrics.service';

/**
 * The scale-out worker (`npm run worker -w api`): the same modules and job handlers as the API, without HTTP, taking
 * jobs from BullMQ (REDIS_URL) and running the repeatable sweep. Any number may run; SIGTERM lets running jobs finish.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  limitHeapGrowth(config.heapGrowingPercent);
  if (!config.redis) throw new ConfigError(['REDIS_URL must be set: the worker takes its jobs from BullMQ on Redis']);
  const logger = createLogger(config);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  await app.get(BullJobs).startWorker();
  if (config.workerMetricsPort !== null) {
    const server = metricsServer(
      app.get(MetricsService),
      app.get<DataSource>(getDataSourceToken()),
      config.metricsToken,
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.workerMetricsPort!, config.host, () => resolve());
    });
    process.once('SIGTERM', () => server.close());
    logger.info({ port: config.workerMetricsPort }, 'worker metrics on /metrics');
  }
  logger.info({ database: config.database.engine, storage: config.storage.kind }, 'worker ready');
}

/**
 * The worker's own small HTTP server (METRICS_PORT): GET /metrics (its seals, jobs and process metrics, behind
 * METRICS_TOKEN like the API's) and GET /health (the database answers). Nothing else.
 */
function metricsServer(metrics: MetricsService, db: DataSource, token: string | null): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const answer = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET') return answer(405, 'text/plain', 'Method Not Allowed');
    if (path === '/health')
      return void db.query('SELECT 1').then(
        () => answer(200, 'application/json', JSON.stringify({ status: 'ok' })),
        () => answer(503, 'application/json', JSON.stringify({ status: 'unavailable' })),
      );
    if (path !== '/metrics') return answer(404, 'text/plain', 'Not Found');
    if (!MetricsService.authorised(token, req.headers.authorization)) return answer(401, 'text/plain', 'Unauthorized');
    void metrics.exposition().then(
      ({ contentType, body }) => answer(200, contentType, body),
      () => answer(500, 'text/plain', 'metrics failed'),
    );
  });
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else
    process.stderr.write(
      `e-Sign worker failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 500).unref();
});
