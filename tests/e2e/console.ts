import { Limits, Messages, StaffRoutes } from '@esign/contract';
import type { UploadResponse } from '@esign/contract';
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO, expect, fixture } from './fixtures';

/** Signs in through the sign-in page as the seeded demo user and waits for the dashboard. */
export async function signInAsDemo(page: Page): Promise<void> {
  await page.goto(StaffRoutes.signIn);
  await page.getByLabel(Messages.usernameLabel, { exact: true }).fill(DEMO.username);
  await page.getByLabel(Messages.passwordLabel, { exact: true }).fill(DEMO.password);
  await page.getByRole('button', { name: Messages.loginButton }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** The session key the console keeps (for calling the API from the test as the same user). */
export const apiKey = async (page: Page): Promise<string> =>
  (await page.evaluate(() => localStorage.getItem('api_key'))) as string;

export interface Recipient {
  name: string;
  email: string;
  phone: string;
  type: 'Needs to sign' | 'Receives a copy';
  signature?: string;
}

export const RECIPIENTS: Recipient[] = [
  { name: 'Asha Rao', email: 'asha@example.in', phone: '98765 43210', type: 'Needs to sign', signature: 'e-Signature' },
  { name: 'Vikram Shah', email: 'vikram@example.in', phone: '9123456789', type: 'Needs to sign', signature: 'Dual' },
  { name: 'Meera Iyer', email: 'meera@example.in', phone: '9988776655', type: 'Receives a copy' },
];

/** Picks an option of a MUI select by its label. */
export async function choose(page: Page, scope: ReturnType<Page['locator']> | Page, label: string, option: string) {
  await scope.getByLabel(label, { exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Fills recipient card `index` (0-based) of the Initiate page. */
export async function fillRecipient(page: Page, index: number, r: Recipient): Promise<void> {
  const card = page.getByTestId(`recipient-${index + 1}`);
  await card.getByLabel('Name', { exact: true }).fill(r.name);
  await card.getByLabel('Email', { exact: true }).fill(r.email);
  await card.getByLabel(`Phone of recipient ${index + 1}`).fill(r.phone);
  await choose(page, card, 'Recipient type', r.type);
  if (r.signature) await choose(page, card, 'Signature type', r.signature);
}

/** Chooses a fixture PDF in the file dialog and waits until the server has checked it. */
export async function chooseFile(page: Page, name: string): Promise<void> {
  await choose(page, page, Messages.selectFileUploadType, Messages.chooseFile);
  await page.getByTestId('file-input').setInputFiles(fixture('pdfs', name));
  await page.getByRole('button', { name: Messages.selectButton }).click();
  await expect(page.getByTestId('document')).toHaveText(name);
}

/** A draft made through the API, as the console's PROCEED would (for journeys that start from an existing request). */
export async function uploadDraft(
  page: Page,
  name = 'normal.pdf',
  recipients: Recipient[] = RECIPIENTS,
): Promise<UploadResponse> {
  const res = await page.request.post('/v1/upload', {
    headers: { apikey: await apiKey(page) },
    multipart: {
      data: JSON.stringify(
        recipients.map((r) => ({
          name: r.name,
          email: r.email,
          phoneNumber: `+91 ${r.phone}`,
          observer: r.type === 'Receives a copy',
          signature_type: r.signature ?? null,
        })),
      ),
      checkOrder: 'false',
      otpRequired: 'true',
      orgId: DEMO.orgId,
      file: { name, mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', name)) },
    },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as UploadResponse;
}

/**
 * Saves a draft's placement through the API (every signer at the default place, as SAVE does for boxes never dragged):
 * from then on the draft is listed.
 */
export async function saveDraft(page: Page, draft: UploadResponse): Promise<void> {
  const res = await page.request.post('/v1/save', {
    headers: { apikey: await apiKey(page) },
    data: {
      orgId: DEMO.orgId,
      data: draft.requests.filter((r) => !r.observer).map((r) => ({ refId: draft.refId, order: r.order, pageNo: [1] })),
    },
  });
  expect(res.status()).toBe(200);
}

/** Submits a draft through the API (all signers at the default place). */
export async function processDraft(page: Page, refId: number): Promise<void> {
  const res = await page.request.post('/v1/process', {
    headers: { apikey: await apiKey(page) },
    data: { orgId: DEMO.orgId, data: [{ refId, order: 1 }] },
  });
  expect(res.status()).toBe(200);
}

export const repoRoot = path.resolve(__dirname, '..', '..');

/** What the Initiate page leaves in local storage before it navigates to /upload. */
export async function storeUpload(page: Page, upload: UploadResponse): Promise<void> {
  const signers = upload.requests.filter((r) => !r.observer);
  await page.evaluate(
    (values) => Object.entries(values).forEach(([name, value]) => localStorage.setItem(name, value)),
    {
      upload_response: JSON.stringify(upload),
      'file-url': upload['file-url'],
      'total-pages': String(upload['total-pages']),
      total_signatory: String(signers.length),
      total_signatory_array: JSON.stringify(signers),
      draggableHeight: String(Limits.pageHeightPoints),
      refId: String(upload.refId),
    },
  );
}
