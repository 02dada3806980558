import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { RequestsModule } from '../requests/requests.module';
import { PkiRevocation } from './evidence/pki-revocation';
import { Revocation } from './evidence/revocation';
import { SigningEngine } from './pdf/engine';
import { LibPdfEngine } from './pdf/libpdf-engine';
import { PkiController } from './pki/pki.controller';
import { PkiRegistry } from './pki/pki-registry.service';
import { PkiResponder } from './pki/pki-responder.service';
import { SealPkiService } from './pki/seal-pki.service';
import { SealQueue } from './seal.queue';
import { SealService } from './seal.service';

/** The signing engine, the seals' certificates, the development PKI's registry and responder, and the seal job. */
@Module({
  imports: [JobsModule, RequestsModule],
  controllers: [PkiController],
  providers: [
    PkiRegistry,
    PkiResponder,
    { provide: Revocation, useClass: PkiRevocation },
    SealPkiService,
    SealService,
    SealQueue,
    { provide: SigningEngine, useClass: LibPdfEngine },
  ],
  exports: [SealPkiService, SealService, SealQueue, PkiRegistry, Revocation],
})
export class SigningModule {}
