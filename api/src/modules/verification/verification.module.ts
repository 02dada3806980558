import { Module } from '@nestjs/common';
import { VerificationController, VerificationPageController } from './verification.controller';
import { VerificationService } from './verification.service';

/** The verification report (@esign/verifier over a request's signed document): JSON for staff, a page by signed link. */
@Module({
  controllers: [VerificationController, VerificationPageController],
  providers: [VerificationService],
  exports: [VerificationService],
})
export class VerificationModule {}
