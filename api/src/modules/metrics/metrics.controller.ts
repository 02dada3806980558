import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { MetricsService } from './metrics.service';

/**
 * GET /metrics for Prometheus. Not behind an organisation key: open when METRICS_TOKEN is unset (scrape it on a
 * private network), else `Authorization: Bearer <METRICS_TOKEN>`.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  @Public()
  @Get()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    if (!MetricsService.authorised(this.config.metricsToken, authorization))
      throw new AppError('INVALID_CREDENTIALS', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    const { contentType, body } = await this.metrics.exposition();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  }
}
