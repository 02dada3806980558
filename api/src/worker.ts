import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { PinoNestLogger, createLogger } from './common/logging/logger';
import { ConfigError, loadConfig } from './config/app-config';
import { BullJobs } from './modules/jobs/bull-jobs';

/**
 * The scale-out worker (`npm run worker -w api`): the same modules and job handlers as the API, without HTTP, taking
 * jobs from BullMQ (REDIS_URL) and running the repeatable sweep. Any number may run; SIGTERM lets running jobs finish.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  if (!config.redis) throw new ConfigError(['REDIS_URL must be set: the worker takes its jobs from BullMQ on Redis']);
  const logger = createLogger(config);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  await app.get(BullJobs).startWorker();
  logger.info({ database: config.database.engine, storage: config.storage.kind }, 'worker ready');
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
