import { Headers as ApiHeaders } from '@esign/contract';
import type {
  AuditTrailView,
  CreatedWebhook,
  Organisation,
  PasswordLinkSent,
  RequestActionResult,
  SealCertificateInfo,
  VerificationReportView,
  WebhookDelivery,
} from '@esign/contract';
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
const orgPath = (orgId: string) => `/api/organisations/${encodeURIComponent(orgId)}`;

const multipart = (fields: Record<string, string | File>): FormData => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
};

/** The calls beside the resources' CRUD (react-admin's custom data provider methods), on the same client. */
export interface ConsoleCalls {
  /** A request's audit trail and the state of its hash chain. */
  audit(refId: number | string): Promise<AuditTrailView>;
  /** The verification report of a request's signed document (404 until something is signed). */
  verification(refId: number | string): Promise<VerificationReportView>;
  /** Cancels a request in progress, with an optional reason. */
  cancelRequest(refId: number | string, reason?: string): Promise<RequestActionResult>;
  /** Queues the seal again for a request whose seal failed. */
  resealRequest(refId: number | string): Promise<RequestActionResult>;
  /** E-mails a user a link to set a new password (an invitation again if they never set one). */
  sendPasswordLink(userId: string): Promise<PasswordLinkSent>;
  /** A new signing secret for a webhook, shown once in the answer. */
  rotateWebhookSecret(webhookId: string): Promise<CreatedWebhook>;
  /** Sends a delivery again (a new delivery of the same body). */
  redeliver(deliveryId: number | string): Promise<WebhookDelivery>;
  /** The organisation's seal certificate. */
  sealInfo(orgId: string): Promise<SealCertificateInfo>;
  /** Imports a PKCS#12 as the organisation's seal. */
  importSeal(orgId: string, file: File, password: string): Promise<SealCertificateInfo>;
  /** Uploads the organisation's logo (PNG, JPEG or SVG). */
  uploadLogo(orgId: string, file: File): Promise<Organisation>;
}

export type ConsoleDataProvider = DataProvider & ConsoleCalls;

/** The resources on ra-data-simple-rest against /api (sort, range, filter, Content-Range), and the calls above. */
export const dataProvider: ConsoleDataProvider = {
  ...simpleRestProvider('/api', httpClient),
  audit: (refId) => json(`${requestPath(refId)}/audit`),
  verification: (refId) => json(`${requestPath(refId)}/verification`),
  cancelRequest: (refId, reason) => post(`${requestPath(refId)}/cancel`, reason ? { reason } : {}),
  resealRequest: (refId) => post(`${requestPath(refId)}/reseal`),
  sendPasswordLink: (userId) => post(`/api/users/${encodeURIComponent(userId)}/password-link`),
  rotateWebhookSecret: (webhookId) => post(`/api/webhooks/${encodeURIComponent(webhookId)}/secret`),
  redeliver: (deliveryId) => post(`/api/deliveries/${encodeURIComponent(String(deliveryId))}/redeliver`),
  sealInfo: (orgId) => json(`${orgPath(orgId)}/seal`),
  importSeal: (orgId, file, password) =>
    json(`${orgPath(orgId)}/seal`, { method: 'PUT', body: multipart({ file, password }) }),
  uploadLogo: (orgId, file) => json(`${orgPath(orgId)}/logo`, { method: 'PUT', body: multipart({ file }) }),
};
