import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as argon2 from 'argon2';

/** argon2id with the library's defaults (64 MiB, 3 passes): OWASP's recommended floor is lower. */
export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });
export const verifyPassword = (hash: string, password: string) => argon2.verify(hash, password).catch(() => false);

/** API keys carry 256 random bits, so a fast hash is enough to store them and lets us look them up by hash. */
export function newApiKey(kind: 'session' | 'org'): { key: string; hash: string; prefix: string } {
  const key = `${kind === 'session' ? 'ess' : 'eso'}_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashKey(key), prefix: key.slice(0, 10) };
}

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
