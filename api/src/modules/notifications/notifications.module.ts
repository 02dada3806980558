import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsModule } from '../jobs/jobs.module';
import { AdminNotices } from './admin-notices';
import { DevOutboxController } from './dev-outbox.controller';
import { OutboxMailTransport, SmtpMailTransport, type MailTransport } from './mail.transport';
import { MAIL_TRANSPORT, NotificationsService, SMS_TRANSPORT } from './notifications.service';
import { HttpSmsTransport, OutboxSmsTransport, type SmsTransport } from './sms.transport';

/** E-mail and SMS. The transports are picked here, by configuration (SMTP_URL, SMS_URL), and nowhere else. */
@Module({
  imports: [JobsModule],
  controllers: [DevOutboxController],
  providers: [
    NotificationsService,
    AdminNotices,
    {
      provide: MAIL_TRANSPORT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): MailTransport =>
        config.mail.smtpUrl ? new SmtpMailTransport(config.mail.smtpUrl) : new OutboxMailTransport(),
    },
    {
      provide: SMS_TRANSPORT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SmsTransport =>
        config.sms.url ? new HttpSmsTransport(config.sms.url) : new OutboxSmsTransport(),
    },
  ],
  exports: [NotificationsService, AdminNotices],
})
export class NotificationsModule {}
