import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { RetentionService } from './retention.service';
import { SignerDataController } from './signer-data.controller';
import { SignerDataService } from './signer-data.service';

/**
 * Issue 24: retention (a recurring job deleting the files of requests past their organisation's period) and a
 * signer's data (an administrator's export and erasure).
 */
@Module({
  imports: [JobsModule],
  providers: [RetentionService, SignerDataService],
  controllers: [SignerDataController],
  exports: [RetentionService],
})
export class RetentionModule {}
