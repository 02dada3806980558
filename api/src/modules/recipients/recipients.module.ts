import { Module } from '@nestjs/common';
import { AadhaarModule } from '../aadhaar/aadhaar.module';
import { DscModule } from '../dsc/dsc.module';
import { IdentityModule } from '../identity/identity.module';
import { JobsModule } from '../jobs/jobs.module';
import { OtpModule } from '../otp/otp.module';
import { RequestsModule } from '../requests/requests.module';
import { SigningModule } from '../signing/signing.module';
import { LivenessService } from './liveness.service';
import { RecipientsController } from './recipients.controller';
import { RecipientSigning } from './recipient-signing.service';
import { RecipientsService } from './recipients.service';
import { SignerChecks } from './signer-checks.service';
import { SignerFields } from './signer-fields.service';
import { SignerLinkGuard } from './signer-link.guard';
import { SignerOtpService } from './signer-otp.service';
import { SignerRows } from './signer-rows';
import { SignerSessions } from './signer-sessions.service';

/** The recipient side of the /v1 contract: calls authorised by the party's link token. */
@Module({
  imports: [RequestsModule, SigningModule, IdentityModule, JobsModule, AadhaarModule, DscModule, OtpModule],
  providers: [
    SignerRows,
    RecipientsService,
    SignerChecks,
    SignerFields,
    RecipientSigning,
    SignerOtpService,
    LivenessService,
    SignerSessions,
    SignerLinkGuard,
  ],
  controllers: [RecipientsController],
})
export class RecipientsModule {}
