import { Headers as ApiHeaders } from '@esign/contract';
import type { ErrorBody } from '@esign/contract';

/** A failed call: the HTTP status and the API's `{ code, error, message }` body when there is one. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Partial<ErrorBody> | null,
  ) {
    super(body?.message ?? `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

/** fetch() itself failed: no answer from the server at all. */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('Network failure', { cause });
    this.name = 'NetworkError';
  }
}

/** Standard base64 of a UTF-8 string (btoa alone rejects characters outside Latin-1). */
export const basicAuth = (username: string, password: string): string => {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
};

export const apiKeyHeader = (key: string): Record<string, string> => ({ [ApiHeaders.apiKey]: key });

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
};

/** fetch + JSON, throwing NetworkError or HttpError; resolves to null for an empty body (204). */
export const requestJson = async <T>(
  url: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<T> => {
  let response: Response;
  try {
    response = await fetch(url, { method: init.method, headers: { Accept: 'application/json', ...init.headers } });
  } catch (error) {
    throw new NetworkError(error);
  }
  const body = await readBody(response);
  if (!response.ok) throw new HttpError(response.status, (body as Partial<ErrorBody> | null) ?? null);
  return body as T;
};
