import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { RetentionService } from './retention.service';

/** Issue 24: retention (a recurring job deleting the files of requests past their organisation's period). */
@Module({ imports: [JobsModule], providers: [RetentionService], exports: [RetentionService] })
export class RetentionModule {}
