import type { ErrorBody } from '@esign/contract';
import { dropSignerSession, signerHeaders, signToken } from './link';

// The link's token, session and paths live in link.ts (boot.ts reads them before the app has loaded).
export {
  documentPath,
  dropSignerSession,
  keepSignerSession,
  referencePath,
  signerHeaders,
  signerSession,
  signToken,
} from './link';

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

/**
 * fetch() for every recipient-side call: sends the link token in `x-sign-token`, a plain object as JSON and FormData
 * as multipart, answers JSON; throws ApiError (status 0 for a network failure).
 */
export const signerFetch = async <T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> => {
  const started = init.method === undefined && init.body === undefined && init.headers === undefined && early.get(path);
  if (started) {
    early.delete(path);
    return started as Promise<T>;
  }
  return call<T>(path, init);
};

/** GETs started before the page that needs them has rendered (prefetch), each taken once by signerFetch. */
const early = new Map<string, Promise<unknown>>();

/**
 * Starts a GET at once, while the app is still rendering; the page's signerFetch of the same path takes its answer
 * (or its error) instead of asking again.
 */
export const prefetch = (path: string): void => {
  if (early.has(path) || !signToken()) return;
  const pending = call(path, {});
  pending.catch(() => undefined); // handled by whoever takes it
  early.set(path, pending);
};

const call = async <T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> },
): Promise<T> => {
  const headers = new Headers(init.headers);
  headers.set('Accept', 'application/json');
  for (const [name, value] of Object.entries(signerHeaders())) headers.set(name, value);
  let body: BodyInit | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  } catch (error) {
    throw new ApiError(0, null, error instanceof Error ? error.message : 'Network failure');
  }
  const parsed = await parse(response);
  if (!response.ok) {
    const errorBody = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<ErrorBody>) : null;
    // The session ended (unused too long, or never verified here): forget it, the page asks for the OTP again.
    if (response.status === 401 && errorBody?.error === 'OTP_REQUIRED') dropSignerSession();
    throw new ApiError(response.status, errorBody, errorBody?.message ?? `HTTP ${response.status}`);
  }
  return parsed as T;
};

/** The call needs this browser to verify the OTP (again): no live signer session. */
export const needsOtp = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 401 && error.body?.error === 'OTP_REQUIRED';

/** The server's own message for a 4xx (what the hold-on page and the popups show), else `fallback`. */
export const serverMessage = (error: unknown, fallback: string): string =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.body?.message
    ? error.body.message
    : fallback;

/** Fills `{name}` marks of a text. */
export const fill = (text: string, values: Record<string, string | number>): string =>
  text.replace(/\{(\w+)\}/g, (mark, key: string) => (key in values ? String(values[key]) : mark));

/** Spec section 5: a return_url lacking an https scheme gets https:// before the redirect. */
export const withScheme = (url: string): string =>
  /^https?:\/\//i.test(url) ? url : `https://${url.replace(/^\/+/, '')}`;
