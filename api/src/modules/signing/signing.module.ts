import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { RequestsModule } from '../requests/requests.module';
import { ArchiveService } from './archive.service';
import { ExternalSigning } from './external-signing.service';
import { SigningEngine } from './pdf/engine';
import { LibPdfEngine } from './pdf/libpdf-engine';
import { SealPkiService } from './pki/seal-pki.service';
import { SealQueue } from './seal.queue';
import { SealService } from './seal.service';

/**
 * The signing engine (one path for every method: prepare, sign, finish, archive), its evidence (timestamps,
 * revocation data), the seals' certificates, the seal job and the archive renewal.
 */
@Module({
  imports: [JobsModule, RequestsModule],
  providers: [
    SealPkiService,
    SealService,
    SealQueue,
    ExternalSigning,
    ArchiveService,
    { provide: SigningEngine, useClass: LibPdfEngine },
  ],
  exports: [SealPkiService, SealService, SealQueue, ExternalSigning, ArchiveService],
})
export class SigningModule {}
