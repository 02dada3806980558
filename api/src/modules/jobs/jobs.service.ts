import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { Clock } from '../../common/clock';
import { JobEntity } from './job.entity';
import type { EnqueueJob } from './job.types';

const MAX_TYPE = 48;
const MAX_DEDUPE_KEY = 128;

/**
 * Puts durable jobs in the jobs table. Always through the caller's EntityManager, so a job exists if and only if the
 * change that needs it commits.
 */
@Injectable()
export class JobsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  async enqueue(manager: EntityManager, job: EnqueueJob): Promise<JobEntity> {
    if (!job.type || job.type.length > MAX_TYPE) throw new Error(`A job type is 1 to ${MAX_TYPE} characters.`);
    if (job.dedupeKey !== undefined && (!job.dedupeKey || job.dedupeKey.length > MAX_DEDUPE_KEY))
      throw new Error(`A dedupe key is 1 to ${MAX_DEDUPE_KEY} characters.`);
    if (job.maxAttempts !== undefined && !(Number.isInteger(job.maxAttempts) && job.maxAttempts >= 1))
      throw new Error('maxAttempts must be a positive integer.');
    if (job.dedupeKey) {
      // Finished and failed jobs give their key up, so whatever holds it is queued or running.
      const holder = await manager.findOne(JobEntity, { where: { dedupeKey: job.dedupeKey } });
      if (holder) return holder;
    }
    const now = this.clock.now();
    const row = manager.create(JobEntity, {
      type: job.type,
      payload: job.payload as Record<string, unknown>,
      status: 'queued',
      runAt: job.runAt ?? now,
      attempts: 0,
      maxAttempts: job.maxAttempts ?? 5,
      lastError: null,
      lockedBy: null,
      lockedAt: null,
      orgId: job.orgId ?? null,
      dedupeKey: job.dedupeKey ?? null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await manager.insert(JobEntity, row as QueryDeepPartialEntity<JobEntity>);
    } catch (err) {
      // A concurrent transaction took the key between our look-up and the insert (the unique index decides).
      if (!job.dedupeKey || !isUniqueViolation(err)) throw err;
      const holder = await manager.findOne(JobEntity, { where: { dedupeKey: job.dedupeKey } });
      if (holder) return holder;
      throw err;
    }
    return row;
  }

  /** Deletes the queued job holding `dedupeKey`; a running one finishes its run. True when one was deleted. */
  async cancel(manager: EntityManager, dedupeKey: string): Promise<boolean> {
    const res = await manager.delete(JobEntity, { dedupeKey, status: 'queued' });
    return (res.affected ?? 0) > 0;
  }

  get(id: number, manager: EntityManager = this.db.manager): Promise<JobEntity | null> {
    return manager.findOne(JobEntity, { where: { id } });
  }

  /** The queued or running job holding this key, if any. */
  findByDedupeKey(dedupeKey: string, manager: EntityManager = this.db.manager): Promise<JobEntity | null> {
    return manager.findOne(JobEntity, { where: { dedupeKey } });
  }

  list(where: { type?: string; orgId?: string } = {}, manager: EntityManager = this.db.manager): Promise<JobEntity[]> {
    return manager.find(JobEntity, { where, order: { id: 'ASC' } });
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  const code = e.driverError?.code ?? e.code ?? '';
  return code === 'ER_DUP_ENTRY' || code.startsWith('SQLITE_CONSTRAINT');
}
