import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsRunner } from './jobs.runner';
import { JobsService } from './jobs.service';

/**
 * Jobs that come back on their own schedule (the drafts' cleanup, the archives' renewal): registered wherever jobs
 * run (API nodes and the scale-out worker); kept queued by the server (not `manage`, nor tests with the runner off),
 * one at a time by a dedupe key that is the job's type. Each run answers when the next is due.
 */
@Injectable()
export class RecurringJobs implements OnApplicationBootstrap {
  private readonly types: string[] = [];

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly runner: JobsRunner,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** In the owner's onModuleInit: `run` does one batch and answers when the next run is due. */
  register(type: string, run: () => Promise<Date>): void {
    this.types.push(type);
    this.runner.register(type, async (_payload, ctx) => ctx.reschedule(await run()));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.jobs.runner || !this.adapterHost?.httpAdapter) return;
    for (const type of this.types) await this.schedule(type);
  }

  /** Queues the job (due now) unless it is queued or running already. */
  async schedule(type: string): Promise<void> {
    await this.db.transaction((manager) =>
      this.jobs.enqueue(manager, { type, payload: {}, dedupeKey: type, maxAttempts: 5 }),
    );
  }
}
