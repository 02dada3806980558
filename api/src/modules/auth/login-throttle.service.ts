import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Messages } from '@esign/contract';
import { LessThan, MoreThanOrEqual, Repository } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { LoginFailureEntity } from './login-failure.entity';

/**
 * Repeated failed sign-ins are refused with 429 before the password is even checked: per username (LOGIN_MAX_FAILURES
 * in LOGIN_FAILURE_WINDOW_SECONDS) and per client address (four times that, across usernames). Counts live in the
 * database so that every API node sees the same ones.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @InjectRepository(LoginFailureEntity) private readonly failures: Repository<LoginFailureEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async assertAllowed(username: string, ip: string): Promise<void> {
    const { maxFailures, maxFailuresPerIp, windowSeconds } = this.config.loginThrottle;
    const since = new Date(this.clock.now().getTime() - windowSeconds * 1000);
    const byUser = await this.failures.find({
      where: { username: username.toLowerCase(), createdAt: MoreThanOrEqual(since) },
      order: { createdAt: 'DESC' },
      take: maxFailures,
    });
    const byIp = await this.failures.count({ where: { ip, createdAt: MoreThanOrEqual(since) } });
    if (byUser.length >= maxFailures || byIp >= maxFailuresPerIp) {
      const oldest = byUser.length >= maxFailures ? byUser[byUser.length - 1].createdAt.getTime() : since.getTime();
      const retryAfter = Math.max(1, Math.ceil((oldest + windowSeconds * 1000 - this.clock.now().getTime()) / 1000));
      throw new AppError('TOO_MANY_ATTEMPTS', Messages.tooManyLoginFailures, { 'Retry-After': String(retryAfter) });
    }
  }

  async recordFailure(username: string, ip: string): Promise<void> {
    const now = this.clock.now();
    await this.failures.insert({ username: username.toLowerCase().slice(0, 64), ip: ip.slice(0, 64), createdAt: now });
    // Rows older than the window no longer count for anything.
    await this.failures.delete({
      createdAt: LessThan(new Date(now.getTime() - this.config.loginThrottle.windowSeconds * 1000)),
    });
  }

  async clear(username: string): Promise<void> {
    await this.failures.delete({ username: username.toLowerCase() });
  }
}
