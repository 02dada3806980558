import { Brand, SignerTexts } from '@esign/contract';
import { expect, test } from './fixtures';
import { invitation, inviteLink, sendRequest, staffKey, type Person } from './support/requests';

/**
 * Issue 18, point 16 (server half): the sandbox ESP's page and the e-mails' buttons are in the product's purple, the
 * console's primary colour, checked by computed style in Chromium.
 */

const run = Date.now().toString(36);
const ravi: Person = { name: 'Ravi Kumar', email: `ravi.theme.${run}@example.in`, phone: '9876598765' };

/** '#5E35B1' as Chromium computes it: 'rgb(94, 53, 177)'. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const PURPLE = rgb(Brand.primary);

test.describe("the product's purple outside the console", () => {
  test.describe.configure({ timeout: 60_000 });
  let key = '';

  test.beforeAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
    key = await staffKey(api);
    await api.dispose();
  });

  test("the sandbox ESP's page: buttons, consent panel and focus in the console's purple", async ({ page }) => {
    expect(PURPLE).toBe('rgb(94, 53, 177)');
    const refId = await sendRequest(page.request, key, [ravi], { otp: false, signatureType: 'Aadhaar' });
    await page.goto(await inviteLink(page.request, ravi.email, refId));
    await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
    await page.getByRole('button', { name: SignerTexts.yes }).click();
    await page.getByLabel(SignerTexts.methodAadhaar).check();
    await page.getByLabel(SignerTexts.confirmDetails).check();
    await page.getByRole('button', { name: SignerTexts.proceed }).click();
    await expect(page).toHaveURL(/\/esp-sandbox\/esign$/);
    await expect(page.getByRole('heading', { name: 'Aadhaar eSign' })).toBeVisible();

    const getOtp = page.getByRole('button', { name: 'Get OTP' });
    await expect(getOtp).toHaveCSS('background-color', PURPLE);
    await expect(getOtp).toHaveCSS('color', 'rgb(255, 255, 255)');
    const cancel = page.getByRole('button', { name: 'Cancel' });
    await expect(cancel).toHaveCSS('color', PURPLE);
    await expect(cancel).toHaveCSS('border-top-color', PURPLE);
    await expect(cancel).toHaveCSS('background-color', 'rgb(255, 255, 255)');
    await expect(page.locator('label.consent')).toHaveCSS('background-color', rgb(Brand.tint));
    await page.getByRole('textbox', { name: 'Aadhaar number' }).focus();
    await expect(page.getByRole('textbox', { name: 'Aadhaar number' })).toHaveCSS('outline-color', PURPLE);
    // Nothing left of the old blue.
    const blues = await page.evaluate(
      () =>
        Array.from(document.querySelectorAll('*')).filter((el) =>
          ['color', 'background-color', 'border-top-color'].some((p) =>
            getComputedStyle(el).getPropertyValue(p).includes('21, 101, 192'),
          ),
        ).length,
    );
    expect(blues).toBe(0);
    await getOtp.hover();
    await expect(getOtp).toHaveCSS('background-color', rgb(Brand.primaryDark));
  });

  test("the e-mail's button, as a mail reader shows the invitation's HTML", async ({ page }) => {
    const refId = await sendRequest(page.request, key, [ravi], { otp: false });
    const mail = await invitation(page.request, ravi.email, refId);
    await page.setContent(mail.html as string);
    const button = page.getByRole('link', { name: 'Review and sign the document' });
    await expect(button).toHaveCSS('background-color', PURPLE);
    await expect(button).toHaveCSS('color', 'rgb(255, 255, 255)');
    await expect(page.getByRole('link', { name: /\/esign\// })).toHaveCSS('color', PURPLE);
  });
});
