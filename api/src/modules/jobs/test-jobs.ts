import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { appendFile, readFile } from 'node:fs/promises';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsRunner } from './jobs.runner';

/** `test.hang`: appends a line to `file`, then hangs (until the runner stops) while the file has at most `hangStarts` lines. */
export const TEST_HANG_JOB = 'test.hang';
export interface TestHangPayload {
  file: string;
  hangStarts: number;
}

/**
 * Job types that exist only for tests (the restart test kills a server in the middle of one). Registered only with
 * ESIGN_TEST_JOBS=1, which the configuration refuses under NODE_ENV=production.
 */
@Injectable()
export class TestJobs implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: JobsRunner,
  ) {}

  onModuleInit(): void {
    if (!this.config.jobs.testJobs || this.config.env === 'production') return;
    this.runner.register<TestHangPayload>(TEST_HANG_JOB, async ({ file, hangStarts }, { signal }) => {
      await appendFile(file, `started pid=${process.pid}\n`);
      const starts = (await readFile(file, 'utf8')).split('\n').filter(Boolean).length;
      if (starts > hangStarts) return;
      await new Promise<void>((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    });
  }
}
