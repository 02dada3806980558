import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RecurringJobs } from '../jobs/recurring-jobs';
import { SCHEDULED_NAME, scheduledName, writeBackup, type BackupResult } from './backup-archive';

/** The recurring job of scheduled backups (one at a time across every node: its dedupe key is its type). */
export const BACKUP_JOB = 'backup.run';

/**
 * Scheduled backups (BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP): the same archive as `manage backup`, written
 * into BACKUP_DIR as esign-backup-<UTC time>.tar every BACKUP_EVERY_HOURS, the latest BACKUP_KEEP kept. A start does
 * not take one when the latest is recent enough; a failure is retried with the jobs' backoff (and logged).
 */
@Injectable()
export class BackupService implements OnModuleInit {
  private readonly log = new Logger('Backup');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly recurring: RecurringJobs,
  ) {}

  onModuleInit(): void {
    if (this.config.backup) this.recurring.register(BACKUP_JOB, () => this.runScheduled());
  }

  /** Takes a backup when one is due, prunes the old ones, and answers when the next is due. */
  async runScheduled(): Promise<Date> {
    const settings = this.config.backup;
    if (!settings) throw new Error('BACKUP_DIR is not set');
    const every = settings.everyHours * 3_600_000;
    const now = this.clock.now();
    const latest = (await this.archives())[0];
    if (latest && now.getTime() - latest.time.getTime() < every) return new Date(latest.time.getTime() + every);
    await this.backupNow();
    await this.prune();
    return new Date(now.getTime() + every);
  }

  /** One scheduled archive now. */
  async backupNow(): Promise<BackupResult> {
    const settings = this.config.backup!;
    const now = this.clock.now();
    const result = await writeBackup(this.config, join(settings.dir, scheduledName(now)), now);
    this.log.log(
      `backup ${result.file}: ${result.documents} documents, ${result.bytes} bytes${result.manifest.not_covered.length ? `; not covered: ${result.manifest.not_covered.join(' ')}` : ''}`,
    );
    return result;
  }

  /** The scheduled archives in BACKUP_DIR, newest first, by the time in their names. */
  async archives(): Promise<{ file: string; time: Date }[]> {
    const dir = this.config.backup!.dir;
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => SCHEDULED_NAME.test(n));
    const found: { file: string; time: Date }[] = [];
    for (const name of names) {
      const m = /^esign-backup-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar$/.exec(name)!;
      const file = join(dir, name);
      if (!(await stat(file).catch(() => null))?.isFile()) continue;
      found.push({ file, time: new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) });
    }
    return found.sort((a, b) => b.time.getTime() - a.time.getTime());
  }

  /** Deletes the scheduled archives beyond the latest BACKUP_KEEP (never anything else in BACKUP_DIR). */
  async prune(): Promise<string[]> {
    const removed: string[] = [];
    for (const old of (await this.archives()).slice(this.config.backup!.keep)) {
      await unlink(old.file);
      removed.push(old.file);
    }
    return removed;
  }
}
