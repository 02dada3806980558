import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Messages } from '@esign/contract';
import { randomBytes } from 'node:crypto';
import { LessThan, MoreThanOrEqual, Repository } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RedisService, REDIS_PREFIX } from '../redis/redis.service';
import { LoginFailureEntity } from './login-failure.entity';

/**
 * Repeated failed sign-ins are refused with 429 before the password is even checked: per username (LOGIN_MAX_FAILURES
 * in LOGIN_FAILURE_WINDOW_SECONDS) and per client address (four times that, across usernames). Counts live where
 * every API node sees the same ones: in Redis when REDIS_URL is set (a sorted set of failure times per username and
 * per address, expiring with the window), else in the database.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @InjectRepository(LoginFailureEntity) private readonly failures: Repository<LoginFailureEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly redis: RedisService,
  ) {}

  async assertAllowed(username: string, ip: string): Promise<void> {
    const { maxFailures, maxFailuresPerIp, windowSeconds } = this.config.loginThrottle;
    if (this.redis.enabled) return this.assertAllowedRedis(username, ip);
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
    if (this.redis.enabled) return this.recordFailureRedis(username, ip);
    const now = this.clock.now();
    await this.failures.insert({ username: username.toLowerCase().slice(0, 64), ip: ip.slice(0, 64), createdAt: now });
    // Rows older than the window no longer count for anything.
    await this.failures.delete({
      createdAt: LessThan(new Date(now.getTime() - this.config.loginThrottle.windowSeconds * 1000)),
    });
  }

  async clear(username: string): Promise<void> {
    if (this.redis.enabled) {
      await this.redis.client.del(userKey(username));
      return;
    }
    await this.failures.delete({ username: username.toLowerCase() });
  }

  private async assertAllowedRedis(username: string, ip: string): Promise<void> {
    const { maxFailures, maxFailuresPerIp, windowSeconds } = this.config.loginThrottle;
    const now = this.clock.now().getTime();
    const since = now - windowSeconds * 1000;
    const [, , byUser, byIp, nth] = (await this.redis.client
      .multi()
      .zremrangebyscore(userKey(username), 0, since)
      .zremrangebyscore(ipKey(ip), 0, since)
      .zcard(userKey(username))
      .zcard(ipKey(ip))
      // The maxFailures-th newest failure: the window reopens when it leaves.
      .zrevrange(userKey(username), maxFailures - 1, maxFailures - 1, 'WITHSCORES')
      .exec())!.map(([err, value]) => {
      if (err) throw err;
      return value;
    }) as [number, number, number, number, string[]];
    if (byUser >= maxFailures || byIp >= maxFailuresPerIp) {
      const oldest = byUser >= maxFailures && nth.length === 2 ? Number(nth[1]) : since;
      const retryAfter = Math.max(1, Math.ceil((oldest + windowSeconds * 1000 - now) / 1000));
      throw new AppError('TOO_MANY_ATTEMPTS', Messages.tooManyLoginFailures, { 'Retry-After': String(retryAfter) });
    }
  }

  private async recordFailureRedis(username: string, ip: string): Promise<void> {
    const now = this.clock.now().getTime();
    const member = `${now}:${randomBytes(6).toString('hex')}`;
    const ttl = this.config.loginThrottle.windowSeconds;
    await this.redis.client
      .multi()
      .zadd(userKey(username), now, member)
      .expire(userKey(username), ttl)
      .zadd(ipKey(ip), now, member)
      .expire(ipKey(ip), ttl)
      .exec();
  }
}

const userKey = (username: string) => `${REDIS_PREFIX}login:user:${username.toLowerCase().slice(0, 64)}`;
const ipKey = (ip: string) => `${REDIS_PREFIX}login:ip:${ip.slice(0, 64)}`;
