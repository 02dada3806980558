import { Headers as ApiHeaders } from '@esign/contract';
import type { ErrorBody } from '@esign/contract';

/** The recipient's link token: `/esign/{orgId}/{refId}/{order}?token=T` (DESIGN.md section 3). */
export const signToken = (search: string = window.location.search): string | null =>
  new URLSearchParams(search).get('token');

/** A failed call: HTTP status (0 when the network failed) and the API's error body when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Partial<ErrorBody> | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const parse = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** fetch() for every recipient-side call: sends the page's token in `x-sign-token`, answers JSON. */
export const signerFetch = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
  const headers = new Headers(init.headers);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  const token = signToken();
  if (token) headers.set(ApiHeaders.signToken, token);

  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch (error) {
    throw new ApiError(0, null, error instanceof Error ? error.message : 'Network failure');
  }
  const body = await parse(response);
  if (!response.ok) {
    const errorBody = typeof body === 'object' && body !== null ? (body as Partial<ErrorBody>) : null;
    throw new ApiError(response.status, errorBody, errorBody?.message ?? `HTTP ${response.status}`);
  }
  return body as T;
};
