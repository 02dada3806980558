import { Module } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG } from '../../config/app-config';
import { JobsModule } from '../jobs/jobs.module';
import { RequestsModule } from '../requests/requests.module';
import { ArchiveService } from './archive.service';
import { DevelopmentTsa } from './evidence/development-tsa';
import { Timestamps } from './evidence/timestamps';
import { createTimestamps } from './evidence/tsa-timestamps';
import { TsaController } from './evidence/tsa.controller';
import { ExternalSigning } from './external-signing.service';
import { SigningEngine } from './pdf/engine';
import { LibPdfEngine } from './pdf/libpdf-engine';
import { SealPkiService } from './pki/seal-pki.service';
import { SealQueue } from './seal.queue';
import { SealService } from './seal.service';

/**
 * The signing engine (one path for every method: prepare, sign, finish, archive), its evidence (timestamps from
 * TSA_URLS or the built-in development TSA at /tsa; revocation data), the seals' certificates, the seal job and the
 * archive renewal.
 */
@Module({
  imports: [JobsModule, RequestsModule],
  providers: [
    SealPkiService,
    SealService,
    SealQueue,
    ExternalSigning,
    ArchiveService,
    DevelopmentTsa,
    { provide: SigningEngine, useClass: LibPdfEngine },
    { provide: Timestamps, useFactory: createTimestamps, inject: [APP_CONFIG, Clock, DevelopmentTsa] },
  ],
  controllers: [TsaController],
  exports: [SealPkiService, SealService, SealQueue, ExternalSigning, ArchiveService, Timestamps],
})
export class SigningModule {}
