import {
  Headers as ApiHeaders,
  Messages,
  RequestMessages,
  StaffRoutes,
  checkInput,
  recipientSchema,
} from '@esign/contract';
import type { Page } from '@playwright/test';
import { RECIPIENTS, apiKey, chooseFile, fillRecipient, signInAsDemo } from './console';
import { DEMO, expect, test } from './fixtures';

/**
 * Issue 20, typed input at the edge: the console checks a recipient with the contract's recipientSchema, the check of
 * /v1/upload itself, so a card the API would refuse is refused before anything is sent, with the API's own message
 * (the API numbers it by recipient: 'Recipient 1: …').
 */

const toast = (page: Page) => page.getByRole('alert').filter({ hasNotText: /^$/ }).last();

/** What /v1/upload answers for one signer with these values (the file is never reached: the fields come first). */
async function uploadRefusal(
  page: Page,
  recipient: Record<string, unknown>,
): Promise<{ status: number; message: string }> {
  const res = await page.request.post('/v1/upload', {
    headers: { [ApiHeaders.apiKey]: await apiKey(page) },
    multipart: {
      data: JSON.stringify([{ observer: false, signature_type: 'e-Signature', ...recipient }]),
      checkOrder: 'false',
      otpRequired: 'true',
      orgId: DEMO.orgId,
    },
  });
  return { status: res.status(), message: ((await res.json()) as { message: string }).message };
}

test.describe('issue 20: the console refuses what the API refuses, with its message', () => {
  test.beforeEach(async ({ page }) => signInAsDemo(page));

  test('a card the API would refuse is refused on the card with the message the API answers', async ({ page }) => {
    let uploads = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/upload') uploads++;
    });
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await expect(page).toHaveURL(new RegExp(`${StaffRoutes.requestInitiate}$`));
    await chooseFile(page, 'normal.pdf');
    const card = page.getByTestId('recipient-1');
    await fillRecipient(page, 0, RECIPIENTS[0]);

    // Typed after the card's fixed +91: a number starting with 5 (no Indian mobile number), a US number, too few
    // digits; an e-mail without its domain.
    const cases: Array<{ field: 'phone' | 'email'; typed: string }> = [
      { field: 'phone', typed: '5123456789' },
      { field: 'phone', typed: '1 212 555 0100' },
      { field: 'phone', typed: '98765' },
      { field: 'email', typed: 'asha@example' },
    ];
    for (const { field, typed } of cases) {
      const phone = field === 'phone' ? typed : RECIPIENTS[0].phone;
      const email = field === 'email' ? typed : RECIPIENTS[0].email;
      // What the API answers for exactly what PROCEED would send (the phone as +91 and what was typed).
      const api = await uploadRefusal(page, { name: RECIPIENTS[0].name, email, phoneNumber: `+91 ${phone}` });
      expect(api.status).toBe(400);
      expect(api.message).toMatch(/^Recipient 1: /);
      const message = api.message.replace(/^Recipient 1: /, '');
      expect(message).toBe(field === 'phone' ? RequestMessages.phoneInvalid : Messages.invalidEmail);

      await card.getByLabel('Email', { exact: true }).fill(email);
      await card.getByLabel('Phone of recipient 1').fill(phone);
      await page.getByRole('button', { name: Messages.proceed }).click();
      await expect(card.getByText(message)).toBeVisible();
      await expect(toast(page)).toHaveText(message);
      // The card's check is the contract's recipientSchema, which refuses the same card with the same words.
      const checked = checkInput(recipientSchema, {
        name: RECIPIENTS[0].name,
        email,
        phoneNumber: `+91 ${phone}`,
        observer: false,
        signature_type: 'e-Signature',
      });
      expect(checked.ok ? null : checked.problem.message).toBe(message);
    }
    await expect(page).toHaveURL(new RegExp(`${StaffRoutes.requestInitiate}$`));
    expect(uploads).toBe(0);
  });
});
