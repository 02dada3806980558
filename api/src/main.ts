import 'reflect-metadata';
import { join } from 'node:path';
import { StaffRoutes } from '@esign/contract';
import { createApp } from './app.factory';
import { limitHeapGrowth } from './common/runtime/heap-growth';
import { ConfigError, loadConfig } from './config/app-config';
import { SealPkiService } from './modules/signing/pki/seal-pki.service';
import { DEMO, seedDemo } from './seed';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  limitHeapGrowth(config.heapGrowingPercent);
  const { app, logger } = await createApp(config);
  app.enableShutdownHooks();
  const seeded = config.seedDemo ? await seedDemo(app) : false;
  // The development CA is made at first start (kept in the database), so its certificate is there to trust at once.
  let devCa: string | null = null;
  if (!config.seal.p12Path) {
    await app.get(SealPkiService).root();
    devCa = join(config.dataDir, 'pki', 'dev-root-ca.pem');
  }
  await app.listen(config.port, config.host);
  const where = `${config.publicUrl}${StaffRoutes.signIn}`;
  const db = config.database.engine === 'sqlite' ? config.database.file : 'MySQL/MariaDB (DATABASE_URL)';
  logger.info({ port: config.port, host: config.host, database: config.database.engine }, 'listening');
  const lines = [
    '',
    `  e-Sign is running: sign in at ${where}`,
    ...(config.seedDemo
      ? [
          `  Demo organisation '${DEMO.orgId}': username ${DEMO.username}, password ${DEMO.password}${seeded ? ' (just created)' : ''}`,
        ]
      : []),
    `  Database: ${db}`,
    ...(config.storage.kind === 's3' ? [`  Documents: S3 bucket ${config.storage.bucket}`] : []),
    ...(config.redis ? ['  Jobs: BullMQ on Redis (REDIS_URL); start the worker too: npm run worker -w api'] : []),
    ...(config.redis && config.database.engine === 'sqlite'
      ? [
          '  Note: REDIS_URL with SQLite: the worker must share this DATA_DIR on this machine; several nodes need DATABASE_URL',
        ]
      : []),
    ...(devCa ? [`  Signatures chain to the development CA: ${devCa} (trust it in your PDF verifier)`] : []),
    `  API documentation: ${config.publicUrl}/api-docs`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(
      `e-Sign failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exitCode = 1;
  // Open handles (a half-started pool) must not keep a failed start alive.
  setTimeout(() => process.exit(1), 500).unref();
});
