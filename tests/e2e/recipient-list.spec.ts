import {
  Messages,
  PRODUCT_LOGO_PATH,
  RecipientListMessages,
  RecipientListStatus,
  RecipientListTexts,
  SignerTexts,
  formatDateTime,
} from '@esign/contract';
import { DEMO, expect, shot, test } from './fixtures';
import { inviteLink, latestOtp, outbox, sendRequest, staffKey, type Person } from './support/requests';

/**
 * /list, the recipient's own list (issue 18, point 13): the address the requests were sent to, the OTP from the
 * outbox, the rows (newest first, their status, a sign link while the recipient may act) and the link to the signing
 * page; in the client layout with the logo.
 */

const run = Date.now().toString(36);
const asha: Person = { name: 'Asha Rao', email: `Asha.List.${run}@Example.in`, phone: '9876512345' };
const address = asha.email.toLowerCase();

test.describe("the recipient's own list", () => {
  test.describe.configure({ timeout: 60_000 });
  let toSign = 0;
  let rejected = 0;
  let link = '';

  test.beforeAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
    const key = await staffKey(api);
    // Older: one to sign; newer: one Asha rejected.
    toSign = await sendRequest(api, key, [asha], { otp: false, file: 'normal.pdf' });
    rejected = await sendRequest(api, key, [asha], { otp: false, file: 'us_constitution.pdf' });
    link = await inviteLink(api, asha.email, toSign);
    const rejectLink = new URL(await inviteLink(api, asha.email, rejected));
    const res = await api.post(`/v1/esign/reject/${DEMO.orgId}/${rejected}/1`, {
      headers: { 'x-sign-token': rejectLink.searchParams.get('token') as string },
      data: { remark: 'Not this one' },
    });
    expect(res.status()).toBe(200);
    await api.dispose();
  });

  test('enters the address, the OTP from the outbox, sees the rows and follows a sign link to the signing page', async ({
    page,
  }) => {
    await page.goto('/list');
    await expect(page.getByRole('heading', { name: RecipientListTexts.heading })).toBeVisible();
    // The client layout with the logo (the product's: the list belongs to no one organisation).
    const logo = page.getByTestId('product-logo');
    await expect(logo).toHaveAttribute('src', PRODUCT_LOGO_PATH);
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await expect(page.getByText(RecipientListTexts.intro)).toBeVisible();
    // Nothing of the staff console: no sidebar, no sign-out.
    await expect(page.getByRole('button', { name: Messages.signOut })).toHaveCount(0);

    const getOtp = page.getByRole('button', { name: RecipientListTexts.getOtp });
    await expect(getOtp).toBeDisabled();
    await page.getByLabel(RecipientListTexts.identifierLabel).fill('asha@');
    await getOtp.click();
    await expect(page.getByTestId('list-error')).toHaveText(RecipientListMessages.identifierInvalid);
    // Typed with capitals: the same address.
    await page.getByLabel(RecipientListTexts.identifierLabel).fill(asha.email);
    await getOtp.click();
    await expect(page.getByTestId('otp-note')).toHaveText(RecipientListMessages.otpSent);
    await expect(page.getByRole('button', { name: /^Resend OTP in \d+ s$/ })).toBeDisabled();

    const code = await latestOtp(page.request, address);
    expect(code).toMatch(/^\d{6}$/);
    const otpField = page.getByPlaceholder(RecipientListTexts.otpPlaceholder);
    const verify = page.getByRole('button', { name: RecipientListTexts.verify });
    // A wrong code first.
    await otpField.fill(code === '000000' ? '111111' : '000000');
    await verify.click();
    await expect(page.getByTestId('list-error')).toHaveText(Messages.otpInvalid);
    await otpField.fill(code);
    await expect(verify).toBeEnabled();
    await verify.click();

    await expect(page.getByTestId('list-identifier')).toHaveText(`Requests sent to ${address}`);
    const rows = page.getByTestId('recipient-requests').locator('tbody tr');
    await expect(rows).toHaveCount(2);
    // Newest first: the rejected one, then the one to sign.
    await expect(rows.nth(0)).toHaveAttribute('data-testid', `recipient-request-${rejected}`);
    await expect(rows.nth(1)).toHaveAttribute('data-testid', `recipient-request-${toSign}`);
    const cells = async (i: number) => rows.nth(i).locator('td').allInnerTexts();
    const [doc0, org0, sent0, status0, action0] = await cells(0);
    expect(doc0).toContain('us_constitution.pdf');
    expect(doc0).toContain(`Ref. ID ${rejected}`);
    expect(org0).toBe('Demo Organisation');
    expect(sent0).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} [ap]m IST$/);
    expect(status0).toBe(RecipientListStatus.rejectedByYou);
    expect(action0).toBe('-');
    await expect(rows.nth(0).getByRole('link')).toHaveCount(0);
    const [doc1, , sent1, status1] = await cells(1);
    expect(doc1).toContain('normal.pdf');
    expect(status1).toBe(RecipientListStatus.toSign);
    // The time as formatDateTime writes it, in the organisation's time zone.
    const requests = (await (await page.request.get(`/dev/outbox?to=${encodeURIComponent(asha.email)}`)).json()) as {
      kind: string;
      refId: number;
      createdAt: string;
    }[];
    const invited = requests.find((m) => m.kind === 'invitation' && m.refId === toSign)!;
    const sentAt = Date.parse(invited.createdAt);
    expect([formatDateTime(sentAt - 60_000), formatDateTime(sentAt), formatDateTime(sentAt + 60_000)]).toContain(sent1);
    await shot(page, 'recipient-list');

    // The sign link is the invitation's own link, and it opens the signing page.
    const signLink = rows.nth(1).getByRole('link', { name: RecipientListTexts.signLink });
    await expect(signLink).toHaveAttribute('href', link);
    await signLink.click();
    await expect(page).toHaveURL(new RegExp(`/esign/${DEMO.orgId}/${toSign}/1\\?token=`));
    await expect(page.getByText(SignerTexts.acceptPrompt)).toBeVisible();
    await expect(page.getByTestId('signer-name')).toHaveText(asha.name);

    // Back to the list within the session: no new OTP is asked; Done ends it.
    const otps = (await outbox(page.request, address)).filter((m) => m.kind === 'otp').length;
    await page.goto('/list');
    await expect(rows).toHaveCount(2);
    expect((await outbox(page.request, address)).filter((m) => m.kind === 'otp').length).toBe(otps);
    await page.getByRole('button', { name: RecipientListTexts.done }).click();
    await expect(page.getByLabel(RecipientListTexts.identifierLabel)).toBeVisible();
    // The list token is gone from the tab, and the list kept nothing in local storage (the staff session's place).
    expect(await page.evaluate(() => sessionStorage.getItem('recipient_list_token'))).toBeNull();
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => /recipient|list/i.test(k)))).toEqual([]);
  });

  test('an address without requests gets the same answer and no OTP', async ({ page }) => {
    const nobody = `nobody.${run}@example.in`;
    await page.goto('/list');
    await page.getByLabel(RecipientListTexts.identifierLabel).fill(nobody);
    await page.getByRole('button', { name: RecipientListTexts.getOtp }).click();
    await expect(page.getByTestId('otp-note')).toHaveText(RecipientListMessages.otpSent);
    expect(await outbox(page.request, nobody)).toEqual([]);
    await page.getByPlaceholder(RecipientListTexts.otpPlaceholder).fill('123456');
    await page.getByRole('button', { name: RecipientListTexts.verify }).click();
    await expect(page.getByTestId('list-error')).toHaveText(Messages.otpInvalid);
    // Another address may be tried at once.
    await page.getByRole('button', { name: RecipientListTexts.changeIdentifier }).click();
    await expect(page.getByRole('button', { name: RecipientListTexts.getOtp })).toBeVisible();
  });
});
