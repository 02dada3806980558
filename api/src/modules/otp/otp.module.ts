import { Module } from '@nestjs/common';
import { OtpService } from './otp.service';

/** The one OTP service (issue 20): signing, the DSC agent's login and /list logins share its table and rules. */
@Module({ providers: [OtpService], exports: [OtpService] })
export class OtpModule {}
