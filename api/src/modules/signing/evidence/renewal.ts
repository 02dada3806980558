import { X509Certificate } from 'node:crypto';
import type { TimestampToken } from './timestamps';

const DAY_MS = 86_400_000;
/** Renew this long before the last archive timestamp's TSA certificate expires. */
export const RENEW_BEFORE_DAYS = 90;

/** When an archive must be renewed: RENEW_BEFORE_DAYS before its timestamp's TSA certificate expires. */
export function renewalTime(timestamp: TimestampToken | null): Date | null {
  const tsa = timestamp?.certificates[0];
  if (!tsa) return null;
  return new Date(new Date(new X509Certificate(tsa).validTo).getTime() - RENEW_BEFORE_DAYS * DAY_MS);
}
