import { Headers as ApiHeaders } from '@esign/contract';
import type { AuditTrailView, VerificationReportView } from '@esign/contract';
import { fetchUtils, type DataProvider } from 'react-admin';
import simpleRestProvider from 'ra-data-simple-rest';

/** Every /api call carries the session key; a 401 reaches authProvider.checkError, which signs the user out. */
export const httpClient = (url: string, options: fetchUtils.Options = {}) => {
  const headers = new Headers(options.headers ?? { Accept: 'application/json' });
  const key = localStorage.getItem('api_key');
  if (key) headers.set(ApiHeaders.apiKey, key);
  return fetchUtils.fetchJson(url, { ...options, headers });
};

const json = async <T>(url: string, options: fetchUtils.Options = {}): Promise<T> =>
  (await httpClient(url, options)).json as T;

const post = <T>(url: string, body: unknown = {}): Promise<T> =>
  json<T>(url, { method: 'POST', body: JSON.stringify(body) });

const requestPath = (refId: number | string) => `/api/requests/${encodeURIComponent(String(refId))}`;

/** The calls beside the resources' CRUD (react-admin's custom data provider methods), on the same client. */
export interface ConsoleCalls {
  /** A request's audit trail and the state of its hash chain. */
  audit(refId: number | string): Promise<AuditTrailView>;
  /** The verification report of a request's signed document (404 until something is signed). */
  verification(refId: number | string): Promise<VerificationReportView>;
  /** Cancels a request in progress, with an optional reason. */
  cancelRequest(refId: number | string, reason?: string): Promise<unknown>;
  /** Queues the seal again for a request whose seal failed. */
  resealRequest(refId: number | string): Promise<unknown>;
}

export type ConsoleDataProvider = DataProvider & ConsoleCalls;

/** The resources on ra-data-simple-rest against /api (sort, range, filter, Content-Range), and the calls above. */
export const dataProvider: ConsoleDataProvider = {
  ...simpleRestProvider('/api', httpClient),
  audit: (refId) => json(`${requestPath(refId)}/audit`),
  verification: (refId) => json(`${requestPath(refId)}/verification`),
  cancelRequest: (refId, reason) => post(`${requestPath(refId)}/cancel`, reason ? { reason } : {}),
  resealRequest: (refId) => post(`${requestPath(refId)}/reseal`),
};
