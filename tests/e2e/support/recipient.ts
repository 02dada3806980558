import { SignerTexts } from '@esign/contract';
import type { APIRequestContext, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { DEMO, expect, fixture } from '../fixtures';

/**
 * Helpers of the recipient journeys: a staff key, a sent request, the invitation's link and the OTP from the dev
 * outbox, and organisation settings put back after a test.
 */

export interface Person {
  name: string;
  email: string;
  phone: string;
}

let counter = 0;
/** A signer with an address no other journey uses (the dev outbox is searched by address). */
export const person = (label: string, name = 'Kavya Nair', phone = '9812345670'): Person => {
  counter += 1;
  return { name, email: `${label}-${Date.now()}-${counter}@example.in`, phone };
};

/** A session key of the demo user, from the consumers call (as the console signs in). */
export async function staffKey(api: APIRequestContext): Promise<string> {
  const auth = Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64');
  const res = await api.get(`/consumers/${DEMO.username}/key-auth`, { headers: { authorization: `Basic ${auth}` } });
  return (await res.json()).data[0].key as string;
}

export interface SendOptions {
  otp: boolean;
  file?: string;
  signatureType?: string;
  /** The pages of every signer's box (default page 1). */
  pages?: number[];
}

/** A sent parallel request with these signers; answers its Ref ID. */
export async function sendRequest(
  api: APIRequestContext,
  key: string,
  signers: Person[],
  options: SendOptions,
): Promise<number> {
  const file = options.file ?? 'us_constitution.pdf';
  const up = await api.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify(
        signers.map((p) => ({
          name: p.name,
          email: p.email,
          phoneNumber: `+91 ${p.phone}`,
          observer: false,
          signature_type: options.signatureType ?? 'e-Signature',
        })),
      ),
      checkOrder: 'false',
      otpRequired: String(options.otp),
      orgId: DEMO.orgId,
      file: { name: file, mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', file)) },
    },
  });
  expect(up.status()).toBe(200);
  const refId = (await up.json()).refId as number;
  const pageNo = options.pages ?? [1];
  const done = await api.post('/v1/process', {
    headers: { apikey: key },
    data: { orgId: DEMO.orgId, data: signers.map((_p, i) => ({ refId, order: i + 1, pageNo })) },
  });
  expect(done.status()).toBe(200);
  return refId;
}

export interface OutboxMessage {
  kind: string;
  channel: string;
  text: string;
  refId: number | null;
}

export const outbox = async (api: APIRequestContext, to: string): Promise<OutboxMessage[]> =>
  (await (await api.get(`/dev/outbox?to=${encodeURIComponent(to)}`)).json()) as OutboxMessage[];

/** The sign link of the invitation e-mail (path and query), as the recipient clicks it. */
export async function inviteLink(api: APIRequestContext, to: string, refId: number): Promise<string> {
  const mail = (await outbox(api, to)).find(
    (m) => m.kind === 'invitation' && m.channel === 'email' && m.refId === refId,
  );
  const link = /https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? '')?.[0];
  expect(link).toBeTruthy();
  const url = new URL(link as string);
  return url.pathname + url.search;
}

/** The latest OTP e-mailed to `to`. */
export const latestOtp = async (api: APIRequestContext, to: string): Promise<string> => {
  const code = /\b(\d{6})\b/.exec(
    (await outbox(api, to)).find((m) => m.kind === 'otp' && m.channel === 'email')?.text ?? '',
  )?.[1];
  expect(code).toBeTruthy();
  return code as string;
};

/** Runs `body` with these organisation settings, putting the previous values back afterwards. */
export async function withOrgSettings(
  api: APIRequestContext,
  key: string,
  changes: Record<string, unknown>,
  body: () => Promise<void>,
): Promise<void> {
  const org = (await (await api.get(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key } })).json()) as {
    settings: Record<string, unknown>;
  };
  const before = Object.fromEntries(Object.keys(changes).map((name) => [name, org.settings[name] ?? null]));
  const put = async (data: Record<string, unknown>) =>
    expect((await api.put(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key }, data })).status()).toBe(200);
  await put(changes);
  try {
    await body();
  } finally {
    await put(before);
  }
}

export const otpDialog = (page: Page) => page.getByRole('dialog', { name: 'OTP verification' });

/** In the open OTP dialog: GET OTP, the code from the outbox, VERIFY, and 'Verified!'. */
export async function verifyOtp(page: Page, to: string): Promise<void> {
  const dialog = otpDialog(page);
  await dialog.getByRole('button', { name: SignerTexts.getOtp }).click();
  await expect(dialog.getByPlaceholder(SignerTexts.otpPlaceholder)).toBeVisible();
  await dialog.getByPlaceholder(SignerTexts.otpPlaceholder).fill(await latestOtp(page.request, to));
  await dialog.getByRole('button', { name: SignerTexts.verify }).click();
  await expect(dialog.getByText('Verified!')).toBeVisible();
  await expect(dialog).toBeHidden();
}
