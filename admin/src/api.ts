import { Headers as ApiHeaders, Messages } from '@esign/contract';
import type { ErrorBody } from '@esign/contract';
import { HttpError as RaHttpError } from 'react-admin';
import { HttpError, NetworkError } from './http';
import { readSession } from './session';

/**
 * The /v1 calls of the console (spec section 7) with the session's apikey. JSON bodies are sent as JSON, FormData as
 * multipart. Failures are HttpError (with the API's `{ code, error, message }`) or NetworkError.
 */
export async function v1<T>(
  path: string,
  init: { method?: 'GET' | 'POST' | 'PUT' | 'DELETE'; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...init.headers };
  const key = readSession().api_key;
  if (key) headers[ApiHeaders.apiKey] = key;
  let body: BodyInit | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  } catch (error) {
    throw new NetworkError(error);
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) throw new HttpError(response.status, (parsed as Partial<ErrorBody> | null) ?? null);
  return parsed as T;
}

/**
 * A call whose answer is a file (a signer's export, issue 24): POST of a JSON body with the session's apikey; the
 * file and the name its Content-Disposition gives. A refusal throws HttpError with the API's JSON error.
 */
export async function postForFile(path: string, body: unknown): Promise<{ blob: Blob; filename: string }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const key = readSession().api_key;
  if (key) headers[ApiHeaders.apiKey] = key;
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (error) {
    throw new NetworkError(error);
  }
  if (!response.ok) {
    const error = (await response.json().catch(() => null)) as Partial<ErrorBody> | null;
    throw new HttpError(response.status, error);
  }
  const filename = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ?? 'export.zip';
  return { blob: await response.blob(), filename };
}

/** Hands a file to the browser as a download (an object URL, released once clicked). */
export function saveFile({ blob, filename }: { blob: Blob; filename: string }): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The organisation of the session, for the /v1 paths that name it. */
export const orgId = (): string => readSession().orgId ?? '';

/** What a failed call shows: the API's own message for a 4xx, the catalogue's texts otherwise (spec section 8). */
export function errorText(error: unknown, fallback: string = Messages.uploadFailed): string {
  if (error instanceof NetworkError) return Messages.connectionFailed;
  if (error instanceof HttpError && error.status < 500 && error.body?.message) return error.body.message;
  return fallback;
}

/**
 * What any failed call shows: the API's own message for a 4xx, the catalogue's texts otherwise. Covers both the /v1
 * client's errors (above) and react-admin's data provider errors (its own HttpError; a fetch that fails outright is a
 * TypeError there).
 */
export function failureText(error: unknown, fallback: string = Messages.internalError): string {
  if (error instanceof RaHttpError) {
    const body = error.body as Partial<ErrorBody> | null | undefined;
    return error.status < 500 && body?.message ? body.message : fallback;
  }
  if (error instanceof TypeError) return Messages.connectionFailed;
  return errorText(error, fallback);
}
