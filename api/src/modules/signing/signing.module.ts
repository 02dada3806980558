import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { RequestsModule } from '../requests/requests.module';
import { SigningEngine } from './pdf/engine';
import { LibPdfEngine } from './pdf/libpdf-engine';
import { SealPkiService } from './pki/seal-pki.service';
import { SealQueue } from './seal.queue';
import { SealService } from './seal.service';

/** The signing engine, the seals' certificates and the seal job. */
@Module({
  imports: [JobsModule, RequestsModule],
  providers: [SealPkiService, SealService, SealQueue, { provide: SigningEngine, useClass: LibPdfEngine }],
  exports: [SealPkiService, SealService, SealQueue],
})
export class SigningModule {}
