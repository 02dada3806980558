import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { OtpModule } from '../otp/otp.module';
import { RecipientListController } from './recipient-list.controller';
import { RecipientListService } from './recipient-list.service';

/** /list: the recipient's own list of requests, behind an OTP sent to their address (issue 18, point 13). */
@Module({
  imports: [NotificationsModule, OtpModule],
  providers: [RecipientListService],
  controllers: [RecipientListController],
})
export class RecipientListModule {}
