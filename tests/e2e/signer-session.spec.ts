import { Messages, SignerTexts } from '@esign/contract';
import type { Page } from '@playwright/test';
import config from '../playwright.config';
import { DEMO, expect, shot, test } from './fixtures';
import { faceCamera } from './support/face';
import {
  inviteLink,
  latestOtp,
  otpDialog,
  person,
  sendRequest,
  staffKey,
  verifyOtp,
  withOrgSettings,
} from './support/recipient';

/**
 * Issue 18 on the signing page: the OTP binds the signing to the browser that verified it (point 1); the OTP dialog's
 * Close and a reload (point 4); the instruction dialogs' Back and the selfie for the chosen method only (point 5);
 * the document's name, its sender and the signer's boxes (point 10); the success page's first text (point 12); the
 * product's purple and font (point 16); the DSC tutorial (point 17); dates with their zone (point 8).
 */

const PURPLE = 'rgb(94, 53, 177)';
const MEDIA_ARGS = [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  `--use-file-for-fake-video-capture=${faceCamera('still')}`,
];
test.use({
  launchOptions: { ...config.use?.launchOptions, args: [...(config.use?.launchOptions?.args ?? []), ...MEDIA_ARGS] },
});

let key = '';

test.beforeAll(async ({ playwright }) => {
  const api = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
  key = await staffKey(api);
  await api.dispose();
});

const acceptButton = (page: Page) => page.getByRole('button', { name: SignerTexts.accept, exact: true });
const rejectButton = (page: Page) => page.getByRole('button', { name: SignerTexts.reject, exact: true });

/** Accept with its confirmation. */
async function accept(page: Page): Promise<void> {
  await acceptButton(page).click();
  await page.getByRole('button', { name: SignerTexts.yes }).click();
  await expect(page.getByTestId('accepted')).toHaveText(SignerTexts.accepted);
}

/** e-Signature, the confirmation, Proceed; then the typed name on the pad, Submit, and the success page. */
async function signTyped(page: Page): Promise<void> {
  await page.getByLabel(SignerTexts.methodESignature).check();
  await page.getByLabel(SignerTexts.confirmDetails).check();
  await page.getByRole('button', { name: SignerTexts.proceed }).click();
  const pad = page.getByRole('dialog', { name: SignerTexts.padTitle });
  await pad.getByRole('tab', { name: SignerTexts.padType }).click();
  await pad.getByRole('button', { name: SignerTexts.submit }).click();
  await expect(page).toHaveURL(/\/success\/demo\//);
  await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 20_000 });
}

test.describe('the signing page (issue 18)', () => {
  test.describe.configure({ timeout: 90_000 });

  test('point 1: the OTP verified in one browser does not open the signing in another; a reload keeps it', async ({
    page,
    browser,
  }) => {
    const asha = person('session-a', 'Asha Rao', '9876543210');
    const other = person('session-b', 'Vikram Shah', '9123456789');
    const refId = await sendRequest(page.request, key, [asha, other], { otp: true });
    const link = await inviteLink(page.request, asha.email, refId);

    await page.goto(link);
    await verifyOtp(page, asha.email);
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    // A reload in the same tab: no OTP again.
    await page.reload();
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await expect(otpDialog(page)).toHaveCount(0);

    // The same link on another device (a new browser context): the OTP steps again, and no document.
    const device = await browser.newContext();
    const second = await device.newPage();
    await second.goto(link);
    await expect(otpDialog(second)).toBeVisible();
    await expect(otpDialog(second).getByText(SignerTexts.otpRequestStep)).toBeVisible();
    await expect(second.getByTestId('pdf-canvas')).toHaveCount(0);
    // Its calls carry no session: the server refuses to sign for it, whatever the page does.
    const refused = await second.evaluate(async () => {
      const token = new URLSearchParams(location.search).get('token') as string;
      const ref = await (
        await fetch(location.pathname.replace('/esign/', '/v1/reference/'), {
          headers: { 'x-sign-token': token },
        })
      ).json();
      const res = await fetch(`/v1/init/demo/${ref.request.requestId}?method=2`, {
        headers: { 'x-sign-token': token },
      });
      return { status: res.status, body: await res.json() };
    });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('OTP_REQUIRED');
    await shot(second, 'session-second-device');

    // The first browser signs.
    await accept(page);
    await signTyped(page);
    await device.close();
  });

  test('point 4: Close leaves Accept and Reject usable (they ask for the OTP first); after a reload the code already sent can be entered and the wait goes on', async ({
    page,
  }) => {
    const signer = person('otp-close');
    const refId = await sendRequest(page.request, key, [signer], { otp: true });
    await page.goto(await inviteLink(page.request, signer.email, refId));
    const dialog = otpDialog(page);
    await expect(dialog.getByText(SignerTexts.otpRequestStep)).toBeVisible();
    await dialog.getByRole('button', { name: SignerTexts.close }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('verify-to-view')).toContainText(SignerTexts.verifyToView);
    await expect(acceptButton(page)).toBeEnabled();
    await expect(rejectButton(page)).toBeEnabled();
    await shot(page, 'otp-closed');

    // Accept: the OTP first, then the confirmation.
    await acceptButton(page).click();
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: SignerTexts.getOtp }).click();
    await expect(page.locator('.toasts').getByText(Messages.otpSent)).toBeVisible();
    // A reload during the resend wait: the code already sent stays usable, the wait continues from the server's time.
    await page.waitForTimeout(3_000);
    await page.reload();
    await expect(dialog.getByText(SignerTexts.otpRequestStep)).toBeVisible();
    await dialog.getByRole('button', { name: SignerTexts.otpHaveCode }).click();
    const resend = dialog.getByRole('button', { name: SignerTexts.resendOtp });
    await expect(resend).toBeDisabled();
    const left = Number(/\((\d+)s\)/.exec((await resend.textContent()) ?? '')?.[1]);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(27);
    await dialog.getByPlaceholder(SignerTexts.otpPlaceholder).fill(await latestOtp(page.request, signer.email));
    await dialog.getByRole('button', { name: SignerTexts.verify }).click();
    await expect(dialog.getByText(Messages.otpVerified)).toBeVisible();
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await accept(page);
  });

  test('point 4: Reject after closing the OTP dialog verifies first, then rejects with the remark', async ({
    page,
  }) => {
    const signer = person('otp-reject');
    const refId = await sendRequest(page.request, key, [signer], { otp: true });
    await page.goto(await inviteLink(page.request, signer.email, refId));
    await otpDialog(page).getByRole('button', { name: SignerTexts.close }).click();
    await rejectButton(page).click();
    await page.getByLabel(SignerTexts.remarkLabel).fill('The amount is wrong.');
    await page.getByRole('dialog').getByRole('button', { name: SignerTexts.reject }).click();
    await verifyOtp(page, signer.email);
    await expect(page.getByTestId('rejected')).toContainText(SignerTexts.rejectedTitle);
    const item = await (await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } })).json();
    expect(item.request_status).toBe('rejected');
  });

  test('point 5: Back on the first check returns to the page; the selfie is asked only for the method that needs it', async ({
    page,
    context,
  }) => {
    await context.grantPermissions(['geolocation', 'camera']);
    await context.setGeolocation({ latitude: 19.076, longitude: 72.8777 });
    await withOrgSettings(
      page.request,
      key,
      { location_capture: true, allow_signing_from_india: true, esignature_face_capture: true, face_capture: false },
      async () => {
        const signer = person('checks');
        const refId = await sendRequest(page.request, key, [signer], { otp: false, signatureType: 'Dual' });
        await page.goto(await inviteLink(page.request, signer.email, refId));
        const dialog = page.getByRole('dialog');
        // Before the method is known only the location is asked (the selfie is for e-Signature only).
        await expect(dialog.getByText(SignerTexts.checkingLocation)).toBeVisible();
        await expect(dialog.getByText(SignerTexts.checkingCamera)).toHaveCount(0);
        await dialog.getByRole('button', { name: SignerTexts.instructionsBack }).click();
        await expect(dialog).toHaveCount(0);
        await expect(page.getByTestId('checks-left')).toContainText(SignerTexts.checksToContinue);
        await expect(acceptButton(page)).toBeEnabled();
        await page.getByTestId('checks-left').getByRole('button', { name: SignerTexts.continueChecks }).click();
        await expect(dialog.getByText(SignerTexts.checkingLocation)).toBeVisible();
        await dialog.getByRole('button', { name: SignerTexts.proceedToEsign }).click();
        await expect(dialog).toHaveCount(0);

        await accept(page);
        // e-Signature needs the face: the camera check and the capture come now.
        await page.getByLabel(SignerTexts.methodESignature).check();
        await page.getByLabel(SignerTexts.confirmDetails).check();
        await page.getByRole('button', { name: SignerTexts.proceed }).click();
        await expect(dialog.getByText(SignerTexts.checkingCamera)).toBeVisible();
        await expect(dialog.getByText(SignerTexts.checkingLocation)).toHaveCount(0);
        await dialog.getByRole('button', { name: SignerTexts.instructionsBack }).click();
        await expect(dialog).toHaveCount(0);
        // Aadhaar does not: straight to the ESP.
        await page.getByLabel(SignerTexts.methodAadhaar).check();
        await page.getByLabel(SignerTexts.confirmDetails).check();
        await page.getByRole('button', { name: SignerTexts.proceed }).click();
        await expect(page).toHaveURL(/\/esp-sandbox\/esign$/);
      },
    );
  });

  test('point 10: the document and its sender above the viewer; the signer boxes outlined; Go to my signature box', async ({
    page,
  }) => {
    const signer = person('context');
    const refId = await sendRequest(page.request, key, [signer], {
      otp: false,
      file: 'tracemonkey.pdf',
      pages: [3, 5],
    });
    await page.goto(await inviteLink(page.request, signer.email, refId));
    await expect(page.getByTestId('document-name')).toHaveText('tracemonkey.pdf');
    await expect(page.getByTestId('organisation-name')).toHaveText('Demo Organisation');
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await expect(page.getByTestId('page-of-total')).toHaveText('Page 1/14');
    await expect(page.getByTestId('my-box')).toHaveCount(0);

    await page.getByRole('button', { name: SignerTexts.goToMyBox }).click();
    await expect(page.getByTestId('page-of-total')).toHaveText('Page 3/14');
    const box = page.getByTestId('my-box');
    await expect(box).toHaveCount(1);
    await expect(box).toHaveClass(/my-box-focus/);
    expect(await box.evaluate((el) => getComputedStyle(el).borderTopColor)).toBe(PURPLE);
    // The default box ('0,790,150,840' on the 840-unit page): the bottom-left corner, 150/840 of the page's height wide.
    const canvas = (await page.getByTestId('pdf-canvas').boundingBox())!;
    const drawn = (await box.boundingBox())!;
    expect(Math.abs(drawn.x - canvas.x)).toBeLessThan(3);
    expect(Math.abs(drawn.y + drawn.height - (canvas.y + canvas.height))).toBeLessThan(3);
    expect(Math.abs(drawn.height / canvas.height - 50 / 840)).toBeLessThan(0.01);
    await shot(page, 'signer-my-box');
    // Page 5 has one too; page 4 has none.
    await page.getByRole('button', { name: SignerTexts.next }).click();
    await expect(page.getByTestId('page-of-total')).toHaveText('Page 4/14');
    await expect(page.getByTestId('my-box')).toHaveCount(0);
    await page.getByRole('button', { name: SignerTexts.next }).click();
    await expect(page.getByTestId('my-box')).toHaveCount(1);
    await expect(page.getByTestId('my-box')).not.toHaveClass(/my-box-focus/);
  });

  test("point 12: back from the ESP, the success page says 'Processing...' first, never 'PLEASE WAIT...'", async ({
    page,
  }) => {
    const signer = person('aadhaar-success', 'Asha Rao', '9876543210');
    const refId = await sendRequest(page.request, key, [signer], { otp: false, signatureType: 'Aadhaar' });
    await page.goto(await inviteLink(page.request, signer.email, refId));
    await accept(page);
    await page.getByLabel(SignerTexts.methodAadhaar).check();
    await page.getByLabel(SignerTexts.confirmDetails).check();
    await page.getByRole('button', { name: SignerTexts.proceed }).click();
    await expect(page).toHaveURL(/\/esp-sandbox\/esign$/);
    await page.getByLabel(/I hereby authorise/).check();
    await page.getByRole('textbox', { name: 'Aadhaar number' }).fill('999999990019');
    await page.getByRole('button', { name: 'Get OTP' }).click();
    const sms = await (await page.request.get(`/dev/outbox?to=${encodeURIComponent(`+91${signer.phone}`)}`)).json();
    const code = /\b(\d{6})\b/.exec(sms.find((m: { kind: string }) => m.kind === 'esp-otp')?.text ?? '')?.[1];
    await page.getByRole('textbox', { name: 'OTP' }).fill(code as string);
    // Every text the success page shows is recorded from its first paint; its code arrives late on purpose.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seenTexts: string[] }).seenTexts = seen;
      new MutationObserver(() => {
        const text = document.body?.innerText ?? '';
        if (text && seen[seen.length - 1] !== text) seen.push(text);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.route(/\/signer-assets\/Success-[\w-]+\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Verify and sign' }).click();
    await expect(page).toHaveURL(/\/success\/demo\/[0-9a-f-]{36}$/);
    await expect(page.getByText(SignerTexts.processing)).toBeVisible();
    await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
    const seen = await page.evaluate(() => (window as unknown as { seenTexts: string[] }).seenTexts);
    expect(seen.some((text) => text.includes(SignerTexts.processing))).toBe(true);
    expect(seen.filter((text) => text.includes(Messages.pleaseWait))).toEqual([]);
  });

  test("point 16: the signer app's links are the product's purple and its font is the console's", async ({ page }) => {
    const signer = person('theme');
    const refId = await sendRequest(page.request, key, [signer], { otp: false });
    await page.goto(await inviteLink(page.request, signer.email, refId));
    const trouble = page.getByRole('link', { name: SignerTexts.troubleViewing });
    await expect(trouble).toBeVisible();
    expect(await trouble.evaluate((el) => getComputedStyle(el).color)).toBe(PURPLE);
    const signerFont = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    const signerButtonFont = await acceptButton(page).evaluate((el) => getComputedStyle(el).fontFamily);
    await page.goto('/sign-in');
    // The console's theme is applied when its sign-in page has rendered, not when the document has loaded.
    await expect(page.locator('input[name="username"]')).toBeVisible();
    const consoleFont = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    // The same faces for Latin text; the fallbacks for Indian scripts (issue 22) differ: the console carries Noto Sans
    // Devanagari for its Hindi, the signer app each script's Noto face for its eight languages.
    const norm = (font: string) =>
      font
        .replace(/["']/g, '')
        .split(/\s*,\s*/)
        .filter((face) => !/^Noto Sans /.test(face))
        .join(',');
    expect(norm(signerFont)).toBe(norm(consoleFont));
    expect(norm(signerButtonFont)).toBe(norm(consoleFont));
  });

  test('point 17: the DSC panel links the tutorial video when the organisation has set one', async ({ page }) => {
    const signer = person('dsc-tutorial');
    await withOrgSettings(
      page.request,
      key,
      {
        dsc_download_url: 'https://downloads.example.org/esign-signer',
        dsc_tutorial_url: 'https://videos.example.org/esign-signer-tutorial',
      },
      async () => {
        const refId = await sendRequest(page.request, key, [signer], { otp: false, signatureType: 'DSC' });
        await page.goto(await inviteLink(page.request, signer.email, refId));
        await accept(page);
        const panel = page.getByTestId('dsc-panel');
        await expect(panel).toBeVisible();
        const tutorial = panel.getByRole('link', { name: SignerTexts.dscTutorial });
        await expect(tutorial).toHaveAttribute('href', 'https://videos.example.org/esign-signer-tutorial');
        await expect(tutorial).toHaveAttribute('target', '_blank');
        expect(await tutorial.evaluate((el) => getComputedStyle(el).color)).toBe(PURPLE);
      },
    );
    // Without the setting, no link.
    const next = person('dsc-no-tutorial');
    await withOrgSettings(
      page.request,
      key,
      { dsc_download_url: 'https://downloads.example.org/esign-signer', dsc_tutorial_url: null },
      async () => {
        const refId = await sendRequest(page.request, key, [next], { otp: false, signatureType: 'DSC' });
        await page.goto(await inviteLink(page.request, next.email, refId));
        await accept(page);
        await expect(page.getByTestId('dsc-panel')).toBeVisible();
        await expect(page.getByRole('link', { name: SignerTexts.dscTutorial })).toHaveCount(0);
      },
    );
  });

  test("point 8: the completed page writes the date in the organisation's zone, with its label", async ({ page }) => {
    const signer = person('dates');
    const refId = await sendRequest(page.request, key, [signer], { otp: false });
    const link = await inviteLink(page.request, signer.email, refId);
    await page.goto(link);
    await accept(page);
    await signTyped(page);
    await page.goto(link);
    await expect(page.getByTestId('status-completed')).toHaveText(
      /^This document has been already signed successfully on \d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} (am|pm) IST\.$/,
    );
    await withOrgSettings(page.request, key, { time_zone: 'Europe/London' }, async () => {
      await page.reload();
      await expect(page.getByTestId('status-completed')).toHaveText(/, \d{1,2}:\d{2} (am|pm) (GMT|BST)\.$/);
    });
    expect(DEMO.orgId).toBe('demo');
  });
});
