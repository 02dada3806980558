import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHmac, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import { AppSecretEntity } from './app-secret.entity';

/**
 * Keys for signing links (recipient tokens, document links). Generated once per installation and kept in the database
 * so every API node shares them; read once per process.
 */
@Injectable()
export class AppSecretService {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  secret(name: string): Promise<Buffer> {
    let value = this.cache.get(name);
    if (!value) {
      value = this.load(name);
      value.catch(() => this.cache.delete(name));
      this.cache.set(name, value);
    }
    return value;
  }

  async hmac(name: string, message: string): Promise<Buffer> {
    return createHmac('sha256', await this.secret(name))
      .update(message, 'utf8')
      .digest();
  }

  private async load(name: string): Promise<Buffer> {
    const repo = this.db.getRepository(AppSecretEntity);
    const existing = await repo.findOneBy({ name });
    if (existing) return Buffer.from(existing.value, 'base64url');
    try {
      await repo.insert({ name, value: randomBytes(32).toString('base64url'), createdAt: this.clock.now() });
    } catch {
      // Another node created it first: read theirs.
    }
    const row = await repo.findOneByOrFail({ name });
    return Buffer.from(row.value, 'base64url');
  }
}
