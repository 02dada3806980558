import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { RequestsModule } from '../requests/requests.module';
import { SigningModule } from '../signing/signing.module';
import { AadhaarController, SandboxEspController } from './aadhaar.controller';
import { AadhaarService } from './aadhaar.service';
import { EspKeys } from './esp-keys.service';
import { SandboxEspService } from './sandbox/sandbox-esp.service';

/** Aadhaar eSign through the CCA eSign API (DESIGN.md section 5): our ASP side and the built-in sandbox ESP. */
@Module({
  imports: [SigningModule, RequestsModule, NotificationsModule, JobsModule],
  providers: [AadhaarService, EspKeys, SandboxEspService],
  controllers: [AadhaarController, SandboxEspController],
  exports: [AadhaarService, EspKeys],
})
export class AadhaarModule {}
