import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SIGNATURE_LEVELS, SigningMethod, type SigningMethodCode } from '@esign/contract';
import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { AuditEventEntity } from '../audit/audit-event.entity';
import { JobEntity, type JobStatus } from '../jobs/job.entity';

/** The audit event of a signature or seal an operator accepted below the organisation's level. */
export const LEVEL_ACCEPTED_EVENT = 'signature.level_accepted';

type Scope = 'party' | 'document';

/** How many parties' signatures (party) and completed documents (document) reached each PAdES level. */
export type LevelCounts = Record<Scope, Map<string, number>>;

/**
 * Reads the level counts from the rows that hold them. Requests owns those rows, so it provides the reader
 * (`requests/request-metrics.ts`) and metrics does not import requests (ARCHITECTURE.md, the one-way rule).
 */
export type LevelCountsReader = () => Promise<LevelCounts>;

/** Issue 24: the watchdog's unresolved findings by kind and state (`kind:state` → count), read from its table. */
export type WatchdogCountsReader = () => Promise<Map<string, number>>;

/** Every state of JobStatus, so that `esign_jobs` answers 0 for a state with no rows. */
const JOB_STATES = ['queued', 'running', 'done', 'failed'] as const satisfies readonly JobStatus[];
// Fails to compile when JobStatus gains a state that JOB_STATES does not list.
const everyJobState: Exclude<JobStatus, (typeof JOB_STATES)[number]> extends never ? true : never = true;
void everyJobState;

/** The `method` label of esign_signatures_total: the contract's signing method names, lower case. */
const METHOD_LABEL: Record<SigningMethodCode, string> = Object.fromEntries(
  Object.entries(SigningMethod).map(([name, code]) => [code, name.toLowerCase()]),
) as Record<SigningMethodCode, string>;

export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Prometheus metrics of this process, in a registry of its own (not prom-client's global one: tests build several
 * applications in one process). Labels never carry tenant data: no organisation, Ref ID, party or address.
 */
@Injectable()
export class MetricsService {
  private readonly log = new Logger('Metrics');
  readonly registry = new Registry();
  private levelCountsReader: LevelCountsReader | null = null;
  private watchdogReader: WatchdogCountsReader | null = null;

  private readonly watchdogRetries = new Counter<'kind'>({
    name: 'esign_watchdog_retries_total',
    help: 'Retries the watchdog made by itself of requests that should have moved and did not, by kind of finding.',
    labelNames: ['kind'],
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram<'method' | 'route' | 'status'>({
    name: 'esign_http_request_duration_seconds',
    help: 'HTTP requests by method, matched route pattern (or "unmatched") and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly seals = new Counter<'result'>({
    name: 'esign_seals_total',
    help: 'Requests sealed (certificate of completion and final seal), and seals that failed for good.',
    labelNames: ['result'],
    registers: [this.registry],
  });

  private readonly signatures = new Counter<'method'>({
    name: 'esign_signatures_total',
    help: "Parties' signatures recorded, by signing method (aadhaar, dsc, esignature).",
    labelNames: ['method'],
    registers: [this.registry],
  });

  constructor(@InjectDataSource() private readonly db: DataSource) {
    collectDefaultMetrics({ register: this.registry, prefix: 'esign_' });
    for (const result of ['ok', 'failed']) this.seals.inc({ result }, 0);
    for (const method of Object.values(METHOD_LABEL)) this.signatures.inc({ method }, 0);
    const jobs = this.jobCounts.bind(this);
    new Gauge<'state'>({
      name: 'esign_jobs',
      help: 'Rows of the jobs table by state, read at scrape time.',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = await jobs();
        this.reset();
        if (counts) for (const state of JOB_STATES) this.set({ state }, counts.get(state) ?? 0);
      },
    });
    // Levels and downgrades are read from the database, not counted in this process: a seal an operator runs with
    // `manage reseal` (another process) or another node's seal job is counted as well.
    const levels = this.levelCounts.bind(this);
    const downgrades = this.downgradeCounts.bind(this);
    new Gauge<'scope' | 'level'>({
      name: 'esign_signature_levels',
      help: "PAdES levels reached, read at scrape time: parties' signatures (scope party) and completed documents (scope document).",
      labelNames: ['scope', 'level'],
      registers: [this.registry],
      async collect() {
        const counts = await levels();
        this.reset();
        if (counts)
          for (const scope of ['party', 'document'] as const)
            for (const level of SIGNATURE_LEVELS) this.set({ scope, level }, counts[scope].get(level) ?? 0);
      },
    });
    new Gauge<'scope'>({
      name: 'esign_signature_downgrades',
      help: "Signatures (scope party) and documents (scope document) completed below the organisation's level because an operator accepted it (audited), read at scrape time.",
      labelNames: ['scope'],
      registers: [this.registry],
      async collect() {
        const counts = await downgrades();
        this.reset();
        if (counts) for (const scope of ['party', 'document'] as const) this.set({ scope }, counts[scope]);
      },
    });
  }

  /**
   * Where esign_watchdog_findings reads its counts (the watchdog module sets it at start; metrics does not import it).
   * `kinds` and `states` make a series of 0 for each pair with no finding.
   */
  readWatchdogWith(reader: WatchdogCountsReader, kinds: readonly string[], states: readonly string[]): void {
    if (this.watchdogReader) return;
    this.watchdogReader = reader;
    const read = async () => {
      try {
        return await reader();
      } catch (err) {
        this.log.warn(`esign_watchdog_findings not collected: ${(err as Error).message}`);
        return null;
      }
    };
    for (const kind of kinds) this.watchdogRetries.inc({ kind }, 0);
    new Gauge<'kind' | 'state'>({
      name: 'esign_watchdog_findings',
      help: "The watchdog's unresolved findings (requests that should have moved and did not), by kind and state (open: being retried; reported: needs a person), read at scrape time.",
      labelNames: ['kind', 'state'],
      registers: [this.registry],
      async collect() {
        const counts = await read();
        this.reset();
        if (counts)
          for (const kind of kinds)
            for (const state of states) this.set({ kind, state }, counts.get(`${kind}:${state}`) ?? 0);
      },
    });
  }

  /** The watchdog retried one of its findings by itself. */
  watchdogRetried(kind: string): void {
    this.watchdogRetries.inc({ kind });
  }

  /** Where esign_signature_levels reads its counts (the requests module sets it at start). */
  readLevelsWith(reader: LevelCountsReader): void {
    this.levelCountsReader = reader;
  }

  /** One finished HTTP request; `route` is the Express route pattern, or UNMATCHED_ROUTE. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  sealCompleted(): void {
    this.seals.inc({ result: 'ok' });
  }

  /** A seal that gave up (its job's last attempt failed). */
  sealFailed(): void {
    this.seals.inc({ result: 'failed' });
  }

  /** A party's signature recorded (call after its transaction committed). */
  signed(method: SigningMethodCode): void {
    this.signatures.inc({ method: METHOD_LABEL[method] ?? 'unknown' });
  }

  /**
   * May this Authorization header read the metrics? Always without METRICS_TOKEN; else `Bearer <token>`, compared in
   * constant time without revealing the token's length (both sides hashed first).
   */
  static authorised(token: string | null, authorization: string | undefined): boolean {
    if (token === null) return true;
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
    const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
    return timingSafeEqual(digest(given), digest(token));
  }

  /** The Prometheus text exposition of the registry. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Jobs by status; null (and no esign_jobs series) when the database cannot answer, so the scrape still succeeds. */
  private async jobCounts(): Promise<Map<string, number> | null> {
    try {
      const rows = await this.db
        .getRepository(JobEntity)
        .createQueryBuilder('job')
        .select('job.status', 'status')
        .addSelect('COUNT(*)', 'count')
        .groupBy('job.status')
        .getRawMany<{ status: string; count: number | string }>();
      return new Map(rows.map((r) => [r.status, Number(r.count)]));
    } catch (err) {
      this.log.warn(`esign_jobs not collected: ${(err as Error).message}`);
      return null;
    }
  }

  /**
   * Parties' signatures and completed documents by PAdES level; null when the database cannot answer (or no module
   * set a reader).
   */
  private async levelCounts(): Promise<LevelCounts | null> {
    if (!this.levelCountsReader) return null;
    try {
      return await this.levelCountsReader();
    } catch (err) {
      this.log.warn(`esign_signature_levels not collected: ${(err as Error).message}`);
      return null;
    }
  }

  /** Operator-accepted downgrades (audit events; a seal's has no party); null when the database cannot answer. */
  private async downgradeCounts(): Promise<Record<Scope, number> | null> {
    try {
      const count = (seal: boolean) =>
        this.db
          .getRepository(AuditEventEntity)
          .createQueryBuilder('event')
          .where('event.type = :type', { type: LEVEL_ACCEPTED_EVENT })
          .andWhere(seal ? 'event.partyOrder IS NULL' : 'event.partyOrder IS NOT NULL')
          .getCount();
      return { party: await count(false), document: await count(true) };
    } catch (err) {
      this.log.warn(`esign_signature_downgrades not collected: ${(err as Error).message}`);
      return null;
    }
  }
}
