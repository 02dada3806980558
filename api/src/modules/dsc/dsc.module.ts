import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { OtpModule } from '../otp/otp.module';
import { RequestsModule } from '../requests/requests.module';
import { SigningModule } from '../signing/signing.module';
import { DscAgents } from './dsc-agents';
import { DscAgentController } from './dsc.controller';
import { DscLoginService } from './dsc-login.service';
import { DscService } from './dsc.service';

/** DSC signing through the desktop signer agent (DESIGN.md section 5). */
@Module({
  imports: [SigningModule, RequestsModule, NotificationsModule, OtpModule],
  providers: [DscAgents, DscLoginService, DscService],
  controllers: [DscAgentController],
  exports: [DscService],
})
export class DscModule {}
