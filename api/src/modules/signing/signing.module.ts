import { Module } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG } from '../../config/app-config';
import { JobsModule } from '../jobs/jobs.module';
import { RequestsModule } from '../requests/requests.module';
import { DevelopmentTsa } from './evidence/development-tsa';
import { Timestamps } from './evidence/timestamps';
import { createTimestamps } from './evidence/tsa-timestamps';
import { TsaController } from './evidence/tsa.controller';
import { SigningEngine } from './pdf/engine';
import { LibPdfEngine } from './pdf/libpdf-engine';
import { SealPkiService } from './pki/seal-pki.service';
import { SealQueue } from './seal.queue';
import { SealService } from './seal.service';

/** The signing engine, the seals' certificates, the timestamps (TSA_URLS or the built-in development TSA at /tsa), the seal job. */
@Module({
  imports: [JobsModule, RequestsModule],
  providers: [
    SealPkiService,
    SealService,
    SealQueue,
    DevelopmentTsa,
    { provide: SigningEngine, useClass: LibPdfEngine },
    { provide: Timestamps, useFactory: createTimestamps, inject: [APP_CONFIG, Clock, DevelopmentTsa] },
  ],
  controllers: [TsaController],
  exports: [SealPkiService, SealService, SealQueue, Timestamps],
})
export class SigningModule {}
