import type { RequestListItem } from '@esign/contract';
import type { APIRequestContext } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { sendRequest as sendSupportRequest } from '@esign/test-support';
import { DEMO, expect, fixture } from '../fixtures';

/** Requests sent through the API as the demo user, and what the dev outbox shows the recipients. */

export interface Person {
  name: string;
  email: string;
  phone: string;
}

/** A fresh session key of the demo user. */
export async function staffKey(api: APIRequestContext): Promise<string> {
  const auth = Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64');
  const res = await api.get(`/consumers/${DEMO.username}/key-auth`, { headers: { authorization: `Basic ${auth}` } });
  expect(res.status()).toBe(200);
  return (await res.json()).data[0].key as string;
}

export interface SendOptions {
  otp: boolean;
  /** A PDF of the shared fixtures (default normal.pdf). */
  file?: string;
  signatureType?: string;
  /** The pages of every signer's box (default page 1). */
  pages?: number[];
}

/**
 * A sent request (parallel, every signer at the default place on its pages), made through the test-support package as
 * the bench and the CLI's suites make theirs; answers its Ref ID.
 */
export async function sendRequest(
  _api: APIRequestContext,
  key: string,
  signers: Person[],
  options: SendOptions,
): Promise<number> {
  const base = process.env.E2E_BASE_URL;
  if (!base) throw new Error('E2E_BASE_URL is not set (the global setup sets it)');
  const pageNo = options.pages ?? [1];
  const { refId } = await sendSupportRequest(base, key, {
    orgId: DEMO.orgId,
    recipients: signers.map((p) => ({
      name: p.name,
      email: p.email,
      phoneNumber: `+91 ${p.phone}`,
      observer: false,
      signature_type: options.signatureType ?? 'e-Signature',
    })),
    pdf: options.file ?? 'normal.pdf',
    otpRequired: options.otp,
    placement: () => ({ pageNo }),
  });
  return refId;
}

export interface OutboxMessage {
  kind: string;
  channel: string;
  to: string;
  subject: string | null;
  text: string;
  html: string | null;
  refId: number | null;
}

export const outbox = async (api: APIRequestContext, to: string): Promise<OutboxMessage[]> =>
  (await (await api.get(`/dev/outbox?to=${encodeURIComponent(to)}`)).json()) as OutboxMessage[];

/** The invitation e-mail of a request to an address. */
export async function invitation(api: APIRequestContext, to: string, refId: number): Promise<OutboxMessage> {
  const mail = (await outbox(api, to)).find(
    (m) => m.kind === 'invitation' && m.channel === 'email' && m.refId === refId,
  );
  expect(mail).toBeTruthy();
  return mail as OutboxMessage;
}

/** The sign link of the invitation e-mail, as the recipient clicks it (absolute). */
export async function inviteLink(api: APIRequestContext, to: string, refId: number): Promise<string> {
  const link = /https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec((await invitation(api, to, refId)).text)?.[0];
  expect(link).toBeTruthy();
  return link as string;
}

/** The code of the latest OTP e-mailed to an address. */
export async function latestOtp(api: APIRequestContext, to: string): Promise<string> {
  const mail = (await outbox(api, to)).find((m) => m.kind === 'otp' && m.channel === 'email');
  return /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1] ?? '';
}

/** A 1×1 transparent PNG, as the signature pad would post a drawing. */
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A signer's address (the default one unless a test needs its own, e.g. to look the signer up). */
export interface Contact {
  email: string;
  phoneNumber: string;
}

const KAVYA: Contact = { email: 'kavya@example.in', phoneNumber: '9876501234' };

/**
 * Sends us_constitution.pdf to one e-Signature signer (no OTP) with `key` (of `orgId`'s staff) and signs it through the
 * recipient's calls; answers once the signature is submitted (the seal job then completes it).
 */
export async function signedRequest(
  request: APIRequestContext,
  key: string,
  name: string,
  orgId: string = DEMO.orgId,
  contact: Contact = KAVYA,
): Promise<number> {
  const ok = async <T = unknown>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> => {
    expect(res.ok(), `${res.url()} answered ${res.status()}: ${await res.text()}`).toBe(true);
    return (await res.json()) as T;
  };
  const up = await ok<{ refId: number }>(
    await request.post('/v1/upload', {
      headers: { apikey: key },
      multipart: {
        data: JSON.stringify([
          {
            name,
            email: contact.email,
            phoneNumber: contact.phoneNumber,
            observer: false,
            signature_type: 'e-Signature',
          },
        ]),
        checkOrder: 'false',
        otpRequired: 'false',
        orgId,
        file: {
          name: 'us_constitution.pdf',
          mimeType: 'application/pdf',
          buffer: readFileSync(fixture('pdfs', 'us_constitution.pdf')),
        },
      },
    }),
  );
  const refId = up.refId;
  await ok(
    await request.post('/v1/process', {
      headers: { apikey: key },
      data: { orgId, data: [{ refId, order: 1, pageNo: [1] }] },
    }),
  );
  const item = await ok<RequestListItem>(await request.get(`/api/requests/${refId}`, { headers: { apikey: key } }));
  const token = new URL(item.data[0].sign_url as string).searchParams.get('token') as string;
  const t = { 'x-sign-token': token };
  const base = `${orgId}/${refId}/1`;
  const { request: signing } = await ok<{ request: { requestId: string } }>(
    await request.get(`/v1/reference/${base}`, { headers: t }),
  );
  const requestId = signing.requestId;
  await ok(await request.post(`/v1/signer_details/${base}`, { headers: t, data: { status: 'opened' } }));
  await ok(await request.post(`/v1/signer_details/${base}`, { headers: t, data: { status: 'signing' } }));
  await ok(await request.get(`/v1/init/${orgId}/${requestId}?method=2`, { headers: t }));
  await ok(await request.post(`/v1/esignature/${orgId}/${requestId}`, { headers: t, data: { file: PNG } }));
  return refId;
}

/** The status of a request, as the staff list says it. */
export const requestStatus = async (request: APIRequestContext, key: string, refId: number): Promise<string> =>
  ((await (await request.get(`/api/requests/${refId}`, { headers: { apikey: key } })).json()) as RequestListItem)
    .request_status;

/** signedRequest, then waits until the request is completed (sealed). */
export async function completedRequest(
  request: APIRequestContext,
  key: string,
  name: string,
  orgId: string = DEMO.orgId,
  contact: Contact = KAVYA,
): Promise<number> {
  const refId = await signedRequest(request, key, name, orgId, contact);
  await expect.poll(() => requestStatus(request, key, refId), { timeout: 60_000 }).toBe('completed');
  return refId;
}
