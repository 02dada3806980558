import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new signing secret: whsec_ and 32 random bytes, base64url. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * X-Esign-Signature: `sha256=` and the hex HMAC-SHA256, keyed with the whole secret string (prefix included), of
 * `${timestamp}.${body}` where timestamp is X-Esign-Timestamp (unix seconds) and body the exact bytes sent.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** What a receiver does (README.md shows the same in a standalone snippet). */
export function verifyWebhook(
  secret: string,
  headers: { timestamp: string; signature: string },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
