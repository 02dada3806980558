import { Module } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG } from '../../config/app-config';
import { DevelopmentTsa } from './evidence/development-tsa';
import { PkiRevocation } from './evidence/pki-revocation';
import { Revocation } from './evidence/revocation';
import { Timestamps } from './evidence/timestamps';
import { createTimestamps } from './evidence/tsa-timestamps';
import { TsaController } from './evidence/tsa.controller';
import { ExternalSigning } from './external-signing.service';
import { SigningEngine } from './pdf/engine';
import { IncrementalEngine } from './pdf/incremental-engine';
import { PkiController } from './pki/pki.controller';
import { PkiRegistry } from './pki/pki-registry.service';
import { PkiResponder } from './pki/pki-responder.service';
import { SealPkiService } from './pki/seal-pki.service';

/**
 * The signing engine (one path for every method: prepare, sign, finish, archive) and its evidence: timestamps (from
 * TSA_URLS, or the built-in development TSA at /tsa), revocation data (the development PKI's registry, OCSP responder
 * and CRLs at /pki; other CAs' AIA and CRL distribution points); the seals' certificates. It knows no request: the
 * seal job and the archive renewal that drive it are the request's (requests/seal.service.ts,
 * requests/archive-renewal.service.ts), and it takes a typed job (party-job.ts).
 */
@Module({
  controllers: [PkiController, TsaController],
  providers: [
    PkiRegistry,
    PkiResponder,
    { provide: Revocation, useClass: PkiRevocation },
    SealPkiService,
    ExternalSigning,
    DevelopmentTsa,
    { provide: SigningEngine, useClass: IncrementalEngine },
    { provide: Timestamps, useFactory: createTimestamps, inject: [APP_CONFIG, Clock, DevelopmentTsa] },
  ],
  exports: [SealPkiService, ExternalSigning, PkiRegistry, Revocation, SigningEngine, Timestamps],
})
export class SigningModule {}
