import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MetricsService, type LevelCounts } from '../metrics/metrics.service';
import { PartyEntity } from './party.entity';
import { RequestEntity } from './request.entity';

/**
 * Gives metrics the counts of `esign_signature_levels`, read from the parties' and requests' rows at scrape time: the
 * rows are the request's, so requests reads them and metrics knows nothing of requests.
 */
@Injectable()
export class RequestMetrics implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.readLevelsWith(() => this.levelCounts());
  }

  /** Parties' signatures and completed documents by PAdES level. */
  async levelCounts(): Promise<LevelCounts> {
    const byLevel = async (entity: typeof PartyEntity | typeof RequestEntity, column: string) => {
      const rows = await this.db
        .getRepository(entity)
        .createQueryBuilder('row')
        .select(`row.${column}`, 'level')
        .addSelect('COUNT(*)', 'count')
        .where(`row.${column} IS NOT NULL`)
        .groupBy(`row.${column}`)
        .getRawMany<{ level: string; count: number | string }>();
      return new Map(rows.map((r) => [r.level, Number(r.count)]));
    };
    return {
      party: await byLevel(PartyEntity, 'signatureLevel'),
      document: await byLevel(RequestEntity, 'evidenceLevel'),
    };
  }
}
