import { SignerTexts } from '@esign/contract';
import type { APIRequestContext, Page } from '@playwright/test';
import { DEMO, expect } from '../fixtures';
import {
  inviteLink as absoluteInviteLink,
  latestOtp as anyLatestOtp,
  outbox,
  sendRequest as send,
  staffKey,
  type Person,
  type SendOptions,
} from './requests';

/**
 * Helpers of the recipient journeys: a staff key, a sent request, the invitation's link and the OTP from the dev
 * outbox, and organisation settings put back after a test.
 */

export type { OutboxMessage, Person, SendOptions } from './requests';
export { outbox, staffKey };

let counter = 0;
/** A signer with an address no other journey uses (the dev outbox is searched by address). */
export const person = (label: string, name = 'Kavya Nair', phone = '9812345670'): Person => {
  counter += 1;
  return { name, email: `${label}-${Date.now()}-${counter}@example.in`, phone };
};

/** A sent parallel request with these signers (us_constitution.pdf unless told); answers its Ref ID. */
export const sendRequest = (api: APIRequestContext, key: string, signers: Person[], options: SendOptions) =>
  send(api, key, signers, { file: 'us_constitution.pdf', ...options });

/** The sign link of the invitation e-mail (path and query), as the recipient clicks it. */
export async function inviteLink(api: APIRequestContext, to: string, refId: number): Promise<string> {
  const url = new URL(await absoluteInviteLink(api, to, refId));
  return url.pathname + url.search;
}

/** The latest OTP e-mailed to `to`. */
export const latestOtp = async (api: APIRequestContext, to: string): Promise<string> => {
  const code = await anyLatestOtp(api, to);
  expect(code).toBeTruthy();
  return code;
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
