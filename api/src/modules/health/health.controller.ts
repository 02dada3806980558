import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { HealthResponse } from '@esign/contract';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { version as VERSION } from '../../../package.json';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly db: DataSource) {}

  @Public()
  @ApiOperation({ summary: 'Liveness and database reachability.' })
  @Get()
  async health(): Promise<HealthResponse> {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw new AppError('UNAVAILABLE', 'The database is not reachable.');
    }
    return { status: 'ok', database: this.db.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql', version: VERSION };
  }
}
