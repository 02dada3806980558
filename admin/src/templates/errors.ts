import { Messages } from '@esign/contract';
import type { ErrorBody } from '@esign/contract';
import { HttpError as RaHttpError } from 'react-admin';
import { errorText } from '../api';

/**
 * What a failed template call shows: the API's own message for a 4xx, the catalogue's texts otherwise. Covers both
 * the /v1 client's errors (admin/src/api.ts) and react-admin's data provider errors (its own HttpError; a fetch that
 * fails outright is a TypeError there).
 */
export function templateErrorText(error: unknown, fallback: string = Messages.internalError): string {
  if (error instanceof RaHttpError) {
    const body = error.body as Partial<ErrorBody> | null | undefined;
    return error.status < 500 && body?.message ? body.message : fallback;
  }
  if (error instanceof TypeError) return Messages.connectionFailed;
  return errorText(error, fallback);
}
