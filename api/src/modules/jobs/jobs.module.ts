import { Module } from '@nestjs/common';
import { BullJobs } from './bull-jobs';
import { JobsRunner } from './jobs.runner';
import { JobsService } from './jobs.service';
import { RecurringJobs } from './recurring-jobs';
import { TestJobs } from './test-jobs';

/**
 * Durable jobs: JobsService.enqueue(manager, …) inside the caller's transaction, JobsRunner.register(type, handler)
 * in the onModuleInit of the module that owns the job type; RecurringJobs for those that come back on a schedule.
 */
@Module({
  providers: [JobsService, JobsRunner, BullJobs, TestJobs, RecurringJobs],
  exports: [JobsService, JobsRunner, BullJobs, RecurringJobs],
})
export class JobsModule {}
