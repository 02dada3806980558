import { AppError } from '../../common/app-error';
import { Messages } from '@esign/contract';

/** Parses `Authorization: Basic base64(username:password)`; anything else is an invalid credential. */
export function parseBasic(header: string | undefined): { username: string; password: string } {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) throw new AppError('INVALID_CREDENTIALS', Messages.invalidCredentials);
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new AppError('INVALID_CREDENTIALS', Messages.invalidCredentials);
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
