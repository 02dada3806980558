import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { WEBHOOK_URL_MAX_LENGTH } from '@esign/contract';
import { AppError } from '../../common/app-error';

export const MAX_WEBHOOK_URL = WEBHOOK_URL_MAX_LENGTH;

/** Loopback, private, link-local, shared, reserved and multicast ranges: not a place to post events to. */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

export function isInternalAddress(address: string): boolean {
  // IPv4-mapped IPv6 (::ffff:10.0.0.1, or ::ffff:a00:1 as URL parsing writes it) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return INTERNAL.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  const family = isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family === 6) return INTERNAL.check(address, 'ipv6');
  return false;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/**
 * Checks a webhook URL: absolute http(s), at most 2048 characters; in production also not a loopback, private or
 * link-local address (deliveries check the resolved addresses again).
 */
export function checkWebhookUrl(raw: string, production: boolean): string {
  const value = raw.trim();
  if (value.length > MAX_WEBHOOK_URL)
    throw new AppError('VALIDATION_FAILED', `The webhook url must be at most ${MAX_WEBHOOK_URL} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'The webhook url must be an absolute http:// or https:// URL.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname)
    throw new AppError('VALIDATION_FAILED', 'The webhook url must be an absolute http:// or https:// URL.');
  if (url.hash) throw new AppError('VALIDATION_FAILED', 'The webhook url must not have a #fragment.');
  const host = hostOf(url);
  if (production && (host === 'localhost' || host.endsWith('.localhost') || isInternalAddress(host))) {
    throw new AppError(
      'VALIDATION_FAILED',
      'The webhook url must point to a public address, not a loopback, private or link-local one.',
    );
  }
  return value;
}

/** At delivery time in production: the name must not resolve to an internal address. */
export async function assertPublicHost(url: string): Promise<void> {
  const host = hostOf(new URL(url));
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  if (!addresses.length || addresses.some(isInternalAddress))
    throw new Error(`${host} resolves to an internal address; deliveries go to public addresses only`);
}
