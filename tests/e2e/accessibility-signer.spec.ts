import AxeBuilder from '@axe-core/playwright';
import { CATALOGUES, Messages, SignerTexts } from '@esign/contract';
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { animationsDone, DEMO, expect, fixture, test } from './fixtures';
import { latestOtp, outbox, person, staffKey, type Person } from './support/recipient';

/**
 * Issue 22, accessibility of the signer app: axe-core (WCAG 2.0 and 2.1, A and AA rules) on every signer route of the
 * route table, in each state a recipient meets without a camera (the OTP dialog, the document before and after Accept,
 * the Accept and Reject dialogs, the method choice with the Aadhaar hint and the DSC panel, the signature pad's three
 * tabs, the success, failed, rejected, completed and cancelled pages, /retry-mail-sent, a page in Hindi): no serious
 * or critical violation. Then the whole signing by keyboard alone, and the document's pages named for screen readers.
 */

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** The serious and critical violations axe finds on the page as it is now (each with the elements it names). */
async function violations(page: Page, state: string): Promise<string[]> {
  await animationsDone(page);
  const { violations: found } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${state}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

let key = '';

/** A sent request (us_constitution.pdf, parallel) with one recipient; answers its Ref ID and the e-mailed link. */
async function send(
  page: Page,
  signer: Person,
  options: { otp: boolean; signatureType?: string; language?: string },
): Promise<{ refId: number; link: string }> {
  const up = await page.request.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify([
        {
          name: signer.name,
          email: signer.email,
          phoneNumber: `+91 ${signer.phone}`,
          observer: false,
          signature_type: options.signatureType ?? 'e-Signature',
          ...(options.language ? { language: options.language } : {}),
        },
      ]),
      checkOrder: 'false',
      otpRequired: String(options.otp),
      orgId: DEMO.orgId,
      file: { name: 'normal.pdf', mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', 'normal.pdf')) },
    },
  });
  expect(up.status()).toBe(200);
  const refId = (await up.json()).refId as number;
  const done = await page.request.post('/v1/process', {
    headers: { apikey: key },
    data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1] }] },
  });
  expect(done.status()).toBe(200);
  const mail = (await outbox(page.request, signer.email)).find((m) => m.kind === 'invitation' && m.refId === refId);
  const url = new URL(/https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? '')?.[0] ?? '');
  return { refId, link: url.pathname + url.search };
}

test.describe('the signer app with axe-core and the keyboard', () => {
  test.describe.configure({ timeout: 120_000 });

  test.beforeAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
    key = await staffKey(api);
    await api.dispose();
  });

  test('every state of the signing page, the pad and the success page, and the completed page', async ({ page }) => {
    const found: string[] = [];
    const signer = person('a11y-sign');
    const { link } = await send(page, signer, { otp: true });
    await page.goto(link);

    // The OTP dialog, both steps.
    const otp = page.getByRole('dialog', { name: 'OTP verification' });
    await expect(otp.getByText(SignerTexts.otpRequestStep)).toBeVisible();
    found.push(...(await violations(page, 'OTP request')));
    await otp.getByRole('button', { name: SignerTexts.getOtp }).click();
    await expect(otp.getByPlaceholder(SignerTexts.otpPlaceholder)).toBeVisible();
    found.push(...(await violations(page, 'OTP verify')));
    await otp.getByPlaceholder(SignerTexts.otpPlaceholder).fill(await latestOtp(page.request, signer.email));
    await otp.getByRole('button', { name: SignerTexts.verify }).click();
    await expect(otp).toBeHidden();

    // The document before Accept: its page has a text alternative, the trouble link opens the document.
    const canvas = page.getByTestId('pdf-canvas');
    await expect(canvas).toHaveAttribute('data-rendered', 'true');
    await expect(page.getByRole('img', { name: /^Page 1 of \d+$/ })).toBeVisible();
    await expect(page.getByRole('link', { name: SignerTexts.troubleViewing })).toHaveAttribute(
      'href',
      /\/docs\/files\//,
    );
    found.push(...(await violations(page, 'document')));

    // The Reject dialog (with a remark), then the Accept dialog.
    await page.getByRole('button', { name: SignerTexts.reject }).click();
    await page.getByLabel(SignerTexts.remarkLabel).fill('Checking the dialog.');
    found.push(...(await violations(page, 'reject dialog')));
    await page.getByRole('button', { name: SignerTexts.cancel }).click();
    await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
    await expect(page.getByRole('dialog')).toContainText(SignerTexts.acceptConfirm);
    found.push(...(await violations(page, 'accept dialog')));
    await page.getByRole('button', { name: SignerTexts.yes }).click();

    // The method choice, then the pad's three tabs.
    await expect(page.getByTestId('accepted')).toBeVisible();
    await page.getByLabel(SignerTexts.methodESignature).check();
    await page.getByLabel(SignerTexts.confirmDetails).check();
    found.push(...(await violations(page, 'method choice')));
    await page.getByRole('button', { name: SignerTexts.proceed }).click();
    const pad = page.getByRole('dialog', { name: SignerTexts.padTitle });
    await expect(pad.locator('canvas')).toBeVisible();
    found.push(...(await violations(page, 'pad: draw')));
    await pad.getByRole('tab', { name: SignerTexts.padUpload }).click();
    found.push(...(await violations(page, 'pad: upload')));
    await pad.getByRole('tab', { name: SignerTexts.padType }).click();
    found.push(...(await violations(page, 'pad: type')));
    await pad.getByRole('button', { name: SignerTexts.submit }).click();

    // The success page, then the link again: the completed page.
    await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
    found.push(...(await violations(page, 'success')));
    await page.goto(link);
    await expect(page.getByTestId('status-completed')).toBeVisible();
    found.push(...(await violations(page, 'completed')));
    expect(found).toEqual([]);
  });

  test('the Aadhaar hint, the DSC panel, the failed, rejected and cancelled pages, /retry-mail-sent, and Hindi', async ({
    page,
  }) => {
    const found: string[] = [];

    // 'All' with the organisation's signer-app link: the three methods, the Aadhaar hint and the DSC panel.
    const org = await page.request.get(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key } });
    const before = ((await org.json()) as { settings: { dsc_download_url: string | null } }).settings.dsc_download_url;
    const setLink = (value: string | null) =>
      page.request.put(`/api/organisations/${DEMO.orgId}`, {
        headers: { apikey: key },
        data: { dsc_download_url: value },
      });
    expect((await setLink('https://example.org/signer-app.msi')).status()).toBe(200);
    try {
      const { link } = await send(page, person('a11y-all'), { otp: false, signatureType: 'All' });
      await page.goto(link);
      await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
      await page.getByRole('button', { name: SignerTexts.yes }).click();
      await page.getByLabel(SignerTexts.methodAadhaar).check();
      await expect(page.getByTestId('aadhaar-hint')).toBeVisible();
      found.push(...(await violations(page, 'Aadhaar hint')));
      await page.getByLabel(SignerTexts.methodDsc).check();
      await expect(page.getByTestId('dsc-panel')).toBeVisible();
      await page.getByRole('button', { name: SignerTexts.showPassword }).click();
      found.push(...(await violations(page, 'DSC panel')));

      // The failed page: the sandbox ESP cancelled.
      await page.getByLabel(SignerTexts.methodAadhaar).check();
      await page.getByLabel(SignerTexts.confirmDetails).check();
      await page.getByRole('button', { name: SignerTexts.proceed }).click();
      await expect(page).toHaveURL(/\/esp-sandbox\/esign$/, { timeout: 30_000 });
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect(page.getByRole('button', { name: SignerTexts.retrySigning })).toBeVisible({ timeout: 15_000 });
      found.push(...(await violations(page, 'failed')));
    } finally {
      await setLink(before);
    }

    // A reject: the rejected page, and the link again (the status page).
    const rejecting = await send(page, person('a11y-reject'), { otp: false });
    await page.goto(rejecting.link);
    await page.getByRole('button', { name: SignerTexts.reject }).click();
    await page.getByLabel(SignerTexts.remarkLabel).fill('Wrong date.');
    await page.getByRole('dialog').getByRole('button', { name: SignerTexts.reject }).click();
    await expect(page.getByText(SignerTexts.rejectedTitle)).toBeVisible();
    found.push(...(await violations(page, 'rejected')));
    await page.goto(rejecting.link);
    await expect(page.getByTestId('status-rejected')).toBeVisible();
    found.push(...(await violations(page, 'status: rejected')));

    // A cancelled request.
    const cancelling = await send(page, person('a11y-cancel'), { otp: true });
    await page.request.get(`/v1/deleteRef/demo/${cancelling.refId}`, { headers: { apikey: key } });
    await page.goto(cancelling.link);
    await expect(page.getByTestId('status-cancelled')).toBeVisible();
    found.push(...(await violations(page, 'status: cancelled')));

    // /retry-mail-sent, and a signing page in Hindi (its lang, its texts).
    await page.goto('/retry-mail-sent');
    await expect(page.getByText(Messages.mailSent)).toBeVisible();
    found.push(...(await violations(page, 'retry-mail-sent')));
    const hindi = await send(page, person('a11y-hi'), { otp: false, language: 'hi' });
    await page.goto(hindi.link);
    await expect(page.getByText(CATALOGUES.hi.page.acceptPrompt)).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'hi');
    found.push(...(await violations(page, 'Hindi page')));
    expect(found).toEqual([]);
  });

  test('signing by keyboard alone: OTP, Accept, the method, the pad, Submit', async ({ page }) => {
    const signer = person('a11y-keys');
    const { link } = await send(page, signer, { otp: true });
    await page.goto(link);
    const press = (key: string) => page.keyboard.press(key);
    /** Tab until `target` has the focus (at most 40 stops): every control is reachable. */
    const tabTo = async (target: ReturnType<Page['getByRole']>) => {
      for (let i = 0; i < 40; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return;
        await press('Tab');
      }
      throw new Error('not reachable by Tab');
    };

    const otp = page.getByRole('dialog', { name: 'OTP verification' });
    await tabTo(otp.getByRole('button', { name: SignerTexts.getOtp }));
    await press('Enter');
    const code = otp.getByPlaceholder(SignerTexts.otpPlaceholder);
    await expect(code).toBeFocused();
    await page.keyboard.type(await latestOtp(page.request, signer.email));
    await press('Enter');
    await expect(otp).toBeHidden();

    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await tabTo(page.getByRole('button', { name: SignerTexts.next }));
    await tabTo(page.getByRole('button', { name: SignerTexts.accept, exact: true }));
    await press('Enter');
    await tabTo(page.getByRole('button', { name: SignerTexts.yes }));
    await press('Enter');
    await expect(page.getByTestId('accepted')).toBeVisible();

    const method = page.getByLabel(SignerTexts.methodESignature);
    await tabTo(method);
    await press('Space');
    await expect(method).toBeChecked();
    const confirm = page.getByLabel(SignerTexts.confirmDetails);
    await tabTo(confirm);
    await press('Space');
    await expect(confirm).toBeChecked();
    await tabTo(page.getByRole('button', { name: SignerTexts.proceed }));
    await press('Enter');

    // The pad: the tabs by arrow keys, then Submit.
    const pad = page.getByRole('dialog', { name: SignerTexts.padTitle });
    await tabTo(pad.getByRole('tab', { name: SignerTexts.padDraw }));
    await press('ArrowRight');
    await expect(pad.getByRole('tab', { name: SignerTexts.padType })).toBeFocused();
    await expect(pad.getByRole('tab', { name: SignerTexts.padType })).toHaveAttribute('aria-selected', 'true');
    await tabTo(pad.getByRole('button', { name: SignerTexts.submit }));
    await press('Enter');
    await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
  });
});
