import { basename } from 'node:path';
import { readFileSync } from 'node:fs';
import { fixturePdf } from './fixtures';

/**
 * Requests made through the running API's /v1 calls with fetch, as the bench, the CLI's and the e2e suites make them
 * (the API's own suites use supertest on the app in process: api/test/support/requests.ts).
 */

/** One recipient as POST /v1/upload takes it. */
export interface RequestRecipient {
  name: string;
  email: string;
  phoneNumber: string;
  observer?: boolean;
  signature_type?: string;
}

/** A placement as POST /v1/process takes it (the Ref ID and order are filled in). */
export interface RequestPlacement {
  pageNo?: number[];
  apply_all?: boolean;
  rectangle?: string;
  /** That signer's fields beyond the signature box (issue 21), as /v1/process takes them. */
  fields?: Array<Record<string, unknown>>;
}

export interface SendRequestOptions {
  orgId: string;
  recipients: RequestRecipient[];
  /** A PDF of the shared fixtures (default normal.pdf), or its bytes with a file name. */
  pdf?: string | { bytes: Uint8Array; filename: string };
  otpRequired?: boolean;
  checkOrder?: boolean;
  /** Each signer's placement (by its 0-based position among the recipients); none: the default place. */
  placement?: (index: number) => RequestPlacement;
}

/** A sent request: its Ref ID, and each party's order, sign link and the link's token. */
export interface SentRequest {
  refId: number;
  parties: Array<{ order: number; signUrl: string; token: string }>;
}

/** A /v1 call answered with JSON; anything but 2xx throws, naming the call, the status and the body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer the caller reads as it knows it
export async function callApi<T = any>(
  base: string,
  method: string,
  pathname: string,
  init: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<T> {
  const json = init.body !== undefined && !(init.body instanceof FormData);
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: json ? JSON.stringify(init.body) : (init.body as FormData | undefined),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Upload, then process (every signer invited at once unless checkOrder), then the parties' sign links. */
export async function sendRequest(base: string, apiKey: string, o: SendRequestOptions): Promise<SentRequest> {
  const headers = { apikey: apiKey };
  const pdf =
    typeof o.pdf === 'object'
      ? o.pdf
      : { bytes: readFileSync(fixturePdf(o.pdf)), filename: basename(fixturePdf(o.pdf)) };
  const form = new FormData();
  form.set('data', JSON.stringify(o.recipients));
  form.set('checkOrder', String(o.checkOrder ?? false));
  form.set('otpRequired', String(o.otpRequired ?? false));
  form.set('orgId', o.orgId);
  form.set('file', new Blob([new Uint8Array(pdf.bytes)], { type: 'application/pdf' }), pdf.filename);
  const { refId } = await callApi<{ refId: number }>(base, 'POST', '/v1/upload', { headers, body: form });
  const data = o.recipients.map((_r, i) => ({ refId, order: i + 1, ...(o.placement?.(i) ?? {}) }));
  await callApi(base, 'POST', '/v1/process', { headers, body: { orgId: o.orgId, data } });
  const list = await callApi<{ data: Array<{ refId: number; data: Array<{ order: number; sign_url: string }> }> }>(
    base,
    'GET',
    `/v1/request_all/${o.orgId}`,
    { headers },
  );
  const row = list.data.find((r) => r.refId === refId);
  if (!row) throw new Error(`request ${refId} is not in /v1/request_all/${o.orgId}`);
  return {
    refId,
    parties: row.data.map((p) => ({
      order: p.order,
      signUrl: p.sign_url,
      token: p.sign_url ? (new URL(p.sign_url).searchParams.get('token') ?? '') : '',
    })),
  };
}
