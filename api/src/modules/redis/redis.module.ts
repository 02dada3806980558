import { Global, Module } from '@nestjs/common';
import { RedisService } from './redis.service';

/** Scale-out's Redis (REDIS_URL); every module may inject RedisService and check `enabled`. */
@Global()
@Module({ providers: [RedisService], exports: [RedisService] })
export class RedisModule {}
