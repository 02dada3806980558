import { FIELD_PATTERNS, FieldMessages, SignerTexts, en, fill } from '@esign/contract';
import type { APIRequestContext } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import { inviteLink, person, staffKey } from './support/recipient';

/** The signer app's own labels of the fields step: the English catalogue's (issue 22). */
const FieldTexts = en.fields;

/**
 * Issue 21 in the signer app: a request whose signer has fields (text with the PAN pattern, number, dropdown, radio
 * group, checkbox, attachment, initials and the date signed) is filled on a 360 px phone with the keyboard alone,
 * saved as the signer goes, found again after a reload, then signed with a typed e-signature.
 */

const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** normal.pdf's pages are 612 × 792 points; boxes are points from the displayed page's top-left. */
const FIELDS = [
  {
    id: 'pan',
    kind: 'text',
    label: 'PAN',
    page: 1,
    box: [72, 100, 272, 122],
    pattern: 'PAN',
    placeholder: 'e.g. ABCDE1234F',
  },
  { id: 'city', kind: 'dropdown', label: 'City', page: 1, box: [320, 100, 470, 122], options: ['Mumbai', 'Pune'] },
  { id: 'amount', kind: 'number', label: 'Amount', page: 1, box: [72, 140, 200, 162] },
  { id: 'plan', kind: 'radio', label: 'Plan', page: 1, box: [320, 140, 470, 180], options: ['Basic', 'Premium'] },
  { id: 'agree', kind: 'checkbox', label: 'I agree to the terms', page: 1, box: [72, 190, 90, 208], required: true },
  { id: 'proof', kind: 'attachment', label: 'Address proof', page: 1, box: [72, 230, 272, 252] },
  { id: 'signed-on', kind: 'date', label: 'Date signed', page: 2, box: [72, 700, 220, 720] },
  { id: 'init', kind: 'initials', label: 'Initials', page: 2, box: [480, 700, 560, 730] },
] as const;

/** A parallel request to one signer (no OTP) on normal.pdf, with FIELDS placed for them; answers its Ref ID. */
async function sendWithFields(api: APIRequestContext, key: string, signer: ReturnType<typeof person>) {
  const up = await api.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify([
        {
          name: signer.name,
          email: signer.email,
          phoneNumber: `+91 ${signer.phone}`,
          observer: false,
          signature_type: 'e-Signature',
        },
      ]),
      checkOrder: 'false',
      otpRequired: 'false',
      orgId: DEMO.orgId,
      file: { name: 'normal.pdf', mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', 'normal.pdf')) },
    },
  });
  expect(up.status()).toBe(200);
  const refId = (await up.json()).refId as number;
  const done = await api.post('/v1/process', {
    headers: { apikey: key },
    data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1], fields: FIELDS }] },
  });
  expect(done.status(), await done.text()).toBe(200);
  return refId;
}

/** The counter's text for n of m required fields left. */
const leftText = (n: number, m: number) => fill(FieldTexts.requiredLeft, { n, m });

test.describe('the signer fills their fields', () => {
  test.describe.configure({ timeout: 120_000 });
  test.use(PHONE);

  test('on a 360 px phone with the keyboard alone, resumed after a reload, then signed', async ({ page }) => {
    const key = await staffKey(page.request);
    const signer = person('fields', 'Kavya Nair');
    const refId = await sendWithFields(page.request, key, signer);
    await page.goto(await inviteLink(page.request, signer.email, refId));
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    // Before Accept the page is as for any request: no fields step.
    await expect(page.getByTestId('fields-panel')).toHaveCount(0);
    await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
    await page.getByRole('button', { name: SignerTexts.yes }).click();
    await expect(page.getByTestId('accepted')).toHaveText(SignerTexts.accepted);

    const panel = page.getByTestId('fields-panel');
    await expect(panel).toBeVisible();
    // Seven required fields (the date is filled by signing); the initials come filled from the signer's name.
    let left = 6;
    const expectLeft = async (n: number) => {
      await expect(page.getByTestId('fields-left')).toHaveText(leftText(n, 7));
      if (n > 0)
        await expect(page.getByTestId('method-blocked')).toHaveText(fill(FieldMessages.requiredMissing, { count: n }));
    };
    await expectLeft(left);
    await expect(page.getByLabel(SignerTexts.methodESignature)).toBeDisabled();
    await expect(page.getByRole('button', { name: SignerTexts.proceed })).toBeDisabled();
    // Fields' boxes lie over the page; the current one is highlighted.
    await expect(page.locator('[data-field="pan"]')).toHaveClass(/field-box-current/);
    await shot(page, 'fields-signer-start');

    // PAN: the focus is in it already. A wrong one is refused on the spot with the PAN message; Enter stays.
    const pan = page.getByRole('textbox', { name: 'PAN', exact: true });
    await expect(pan).toBeFocused();
    await expect(pan).toHaveAttribute('placeholder', 'e.g. ABCDE1234F');
    await page.keyboard.type('ABCDE12345');
    await page.keyboard.press('Enter');
    await expect(panel.getByText(FIELD_PATTERNS.PAN.message)).toBeVisible();
    await expect(pan).toHaveAttribute('aria-invalid', 'true');
    await expect(pan).toBeFocused();
    await expectLeft(left);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('ABCDE1234F');
    await expect(panel.getByText(FIELD_PATTERNS.PAN.message)).toHaveCount(0);
    await page.keyboard.press('Enter');
    await expectLeft(--left);

    // City: a select; the arrow key chooses (saved at once), Enter goes on.
    const city = page.getByRole('combobox', { name: 'City' });
    await expect(city).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(city).toHaveValue('Mumbai');
    await expectLeft(--left);
    await page.keyboard.press('Enter');

    // Amount: a number (numeric keyboard on a phone).
    const amount = page.getByRole('textbox', { name: 'Amount', exact: true });
    await expect(amount).toBeFocused();
    await expect(amount).toHaveAttribute('inputmode', 'numeric');
    await page.keyboard.type('25000');
    await page.keyboard.press('Enter');
    await expectLeft(--left);

    // Plan: a radio group; Space chooses the focused option.
    await expect(page.getByRole('radio', { name: 'Basic' })).toBeFocused();
    await page.keyboard.press('Space');
    await expect(page.getByRole('radio', { name: 'Basic' })).toBeChecked();
    await expectLeft(--left);
    await page.keyboard.press('Enter');

    // The checkbox: Space ticks it.
    const agree = page.getByRole('checkbox', { name: 'I agree to the terms' });
    await expect(agree).toBeFocused();
    await page.keyboard.press('Space');
    await expect(agree).toBeChecked();
    await expectLeft(--left);
    await page.keyboard.press('Enter');

    // The attachment: Space opens the file chooser; the name is shown with Remove, which takes the focus.
    const fileInput = panel.locator('input[type="file"]');
    await expect(fileInput).toBeFocused();
    await expect(fileInput).toHaveAttribute('accept', '.pdf,.png,.jpg,.jpeg');
    // A file that is no picture, whatever its name says, is refused on the spot.
    // Playwright intercepts file choosers only while something listens for them, and turns that on and off by a call
    // to the browser it does not wait for: between the two choosers below no waitForEvent listens, and a Space
    // pressed before the second one's call has arrived opened a chooser nobody saw (a CI run timed out so). A
    // listener kept for the whole step keeps the interception on.
    const keepIntercepting = () => undefined;
    page.on('filechooser', keepIntercepting);
    let chooser = page.waitForEvent('filechooser');
    await page.keyboard.press('Space');
    await (await chooser).setFiles({ name: 'scan.png', mimeType: 'image/png', buffer: Buffer.from('not a picture') });
    await expect(panel.getByText(FieldMessages.attachmentType)).toBeVisible();
    await expect(fileInput).toHaveAttribute('aria-invalid', 'true');
    await expect(fileInput).toBeFocused();
    chooser = page.waitForEvent('filechooser');
    await page.keyboard.press('Space');
    await (await chooser).setFiles(fixture('faces', 'coffee.png'));
    await expect(page.getByTestId('attachment-name')).toHaveText('coffee.png');
    page.off('filechooser', keepIntercepting);
    await expectLeft(--left);
    const remove = panel.getByRole('button', { name: `${FieldTexts.removeAttachment} coffee.png` });
    await expect(remove).toBeFocused();
    // Tab goes on to 'Previous field', then 'Next field'.
    await page.keyboard.press('Tab');
    await expect(panel.getByRole('button', { name: FieldTexts.previousField })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(panel.getByRole('button', { name: FieldTexts.nextField })).toBeFocused();
    await page.keyboard.press('Enter');

    // The initials are on page 2: the viewer turns to it (the date beside them is filled when signing).
    await expect(page.getByTestId('page-of-total')).toHaveText('Page 2/2');
    await expect(page.locator('[data-field="signed-on"]')).toHaveText(FieldTexts.filledWhenSigning);
    const initials = page.getByRole('textbox', { name: 'Initials', exact: true });
    await expect(initials).toBeFocused();
    await expect(initials).toHaveValue('KN');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('KVN');
    await page.keyboard.press('Enter');
    await expectLeft(0);
    await expect(page.getByTestId('method-blocked')).toHaveCount(0);
    // Past the last field, the focus goes on to the signing method.
    await expect(page.getByLabel(SignerTexts.methodESignature)).toBeFocused();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const sheet = (await panel.boundingBox())!;
    expect(sheet.x).toBeGreaterThanOrEqual(0);
    expect(sheet.x + sheet.width).toBeLessThanOrEqual(360);
    await shot(page, 'fields-signer-filled');

    // A reload resumes: the server gives back every value.
    await page.reload();
    await expect(page.getByTestId('fields-left')).toHaveText(leftText(0, 7));
    await expect(pan).toHaveValue('ABCDE1234F');
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await expect(page.locator('[data-field="pan"]')).toHaveText('ABCDE1234F');
    await expect(page.locator('[data-field="city"]')).toHaveText('Mumbai');
    await expect(page.locator('[data-field="amount"]')).toHaveText('25000');
    await expect(page.locator('[data-field="plan"]')).toHaveText('Basic');
    await expect(page.locator('[data-field="agree"]')).toHaveText('✓');
    await expect(page.locator('[data-field="proof"]')).toHaveText('coffee.png');
    await expect(pan).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(city).toHaveValue('Mumbai');
    await expect(panel.getByRole('button', { name: FieldTexts.previousField })).toBeEnabled();

    // Signing: e-Signature (the only method) with the confirmation, then the name typed on the pad.
    const method = page.getByLabel(SignerTexts.methodESignature);
    await expect(method).toBeEnabled();
    await expect(method).toBeChecked();
    await page.getByLabel(SignerTexts.confirmDetails).check();
    await page.getByRole('button', { name: SignerTexts.proceed }).click();
    const pad = page.getByRole('dialog');
    await expect(pad).toContainText(SignerTexts.padTitle);
    await pad.getByRole('tab', { name: SignerTexts.padType }).click();
    await pad.getByRole('button', { name: SignerTexts.submit }).click();
    await expect(page).toHaveURL(/\/success\/demo\/[0-9a-f-]{36}$/);
    await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 20_000 });
  });
});
