import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { BackupService } from './backup.service';

/** Issue 24: scheduled backups (the archive itself is backup-archive.ts, which `manage backup` uses too). */
@Module({ imports: [JobsModule], providers: [BackupService], exports: [BackupService] })
export class BackupModule {}
