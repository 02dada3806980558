import { CATALOGUES, LANGUAGE_NAMES, fillText, type RecipientLanguage } from '@esign/contract';
import type { APIRequestContext, Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import { glyphCheck, shippedFont } from './support/glyphs';
import { outbox, person, staffKey, type Person } from './support/recipient';

/**
 * Issue 22, the recipient's language: a request sent through /v1/upload with a recipient whose language is Hindi (or
 * Tamil); the invitation e-mail is in it; the recipient's browser asks for hi-IN (ta-IN); the page, the OTP SMS and
 * the success page are in it; and the script is drawn with the shipped font, glyph for glyph (compared with a render
 * of the same text with that font file, and shown to differ from one with a font that lacks the script).
 */

const SHOTS = path.join(__dirname, '..', 'test-results', 'languages');

/** A sent parallel request (us_constitution.pdf, e-Signature, OTP on) whose recipient speaks `language`. */
async function sendIn(api: APIRequestContext, key: string, signer: Person, language: RecipientLanguage) {
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
          language,
        },
      ]),
      checkOrder: 'false',
      otpRequired: 'true',
      orgId: DEMO.orgId,
      file: {
        name: 'us_constitution.pdf',
        mimeType: 'application/pdf',
        buffer: readFileSync(fixture('pdfs', 'us_constitution.pdf')),
      },
    },
  });
  expect(up.status()).toBe(200);
  const refId = (await up.json()).refId as number;
  const done = await api.post('/v1/process', {
    headers: { apikey: key },
    data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1] }] },
  });
  expect(done.status()).toBe(200);
  return refId;
}

const JOURNEYS = [
  { language: 'hi' as const, locale: 'hi-IN', script: 'devanagari', signer: ['Kavita Sharma', '9812345671'] },
  { language: 'ta' as const, locale: 'ta-IN', script: 'tamil', signer: ['Meenakshi Sundaram', '9812345672'] },
];

for (const {
  language,
  locale,
  script,
  signer: [name, phone],
} of JOURNEYS) {
  test.describe(`a recipient who reads ${LANGUAGE_NAMES[language]}`, () => {
    test.use({ locale });
    test.describe.configure({ timeout: 120_000 });
    const c = CATALOGUES[language];

    test(`gets the invitation, the page, the OTP SMS and the success page in ${language}, the script drawn with the shipped font`, async ({
      page,
    }) => {
      mkdirSync(SHOTS, { recursive: true });
      const key = await staffKey(page.request);
      const signer = person(`lang-${language}`, name, phone);
      const refId = await sendIn(page.request, key, signer, language);

      // The invitation e-mail, in the recipient's language.
      const mail = (await outbox(page.request, signer.email)).find(
        (m) => m.kind === 'invitation' && m.channel === 'email' && m.refId === refId,
      );
      expect(mail?.subject).toBe(
        fillText(c.mail.invitationSubject, { from: 'Demo Organisation', file: 'us_constitution.pdf' }),
      );
      expect(mail?.text).toContain(fillText(c.mail.greeting, { name }));
      expect(mail?.text).toContain(c.mail.reviewAndSign);
      const link = new URL(/https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? '')?.[0] ?? '');

      // The fonts the page asks for: its own script's only.
      const fonts: string[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('.woff2')) fonts.push(path.basename(new URL(r.url()).pathname));
      });

      await page.goto(link.pathname + link.search);
      expect(await page.evaluate(() => navigator.languages[0])).toBe(locale);
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      const dialog = page.getByRole('dialog', { name: c.page.otpTitle });
      await expect(dialog.getByText(c.page.otpRequestStep)).toBeVisible();
      await expect(page.getByTestId('language-switch')).toHaveValue(language);
      await shot(page, `language-${language}-otp`);
      await dialog.getByRole('button', { name: c.page.getOtp }).click();
      await expect(page.getByText(c.messages.otpSent)).toBeVisible();

      // The OTP by SMS (and e-mail), in the page's language.
      const sms = (await outbox(page.request, `+91${phone}`)).find((m) => m.kind === 'otp' && m.channel === 'sms');
      const code = /\b(\d{6})\b/.exec(sms?.text ?? '')?.[1] ?? '';
      expect(sms?.text).toBe(fillText(c.mail.smsOtp, { code, file: 'us_constitution.pdf', org: 'Demo Organisation' }));
      const otpMail = (await outbox(page.request, signer.email)).find((m) => m.kind === 'otp' && m.channel === 'email');
      expect(otpMail?.subject).toBe(fillText(c.mail.otpSubject, { file: 'us_constitution.pdf' }));

      await dialog.getByPlaceholder(c.page.otpPlaceholder).fill(code);
      await dialog.getByRole('button', { name: c.page.verify }).click();
      await expect(dialog.getByText(c.messages.otpVerified)).toBeVisible();
      await expect(dialog).toBeHidden();

      // The document and the decision, in the language.
      await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
      await expect(page.getByTestId('page-of-total')).toHaveText(fillText(c.page.pageOfTotal, { page: 1, total: 19 }));
      await expect(page.getByTestId('pdf-canvas')).toHaveAttribute(
        'aria-label',
        fillText(c.page.pageImage, { page: 1, total: 19 }),
      );
      const prompt = page.getByText(c.page.acceptPrompt);
      await expect(prompt).toBeVisible();
      await shot(page, `language-${language}-document`);
      await page.getByRole('button', { name: c.page.accept, exact: true }).click();
      await expect(page.getByRole('dialog')).toContainText(c.page.acceptConfirm);
      await page.getByRole('button', { name: c.page.yes }).click();
      await expect(page.getByTestId('accepted')).toHaveText(c.page.accepted);
      await page.getByLabel(c.page.methodESignature).check();
      await page.getByLabel(c.page.confirmDetails).check();
      await page.getByRole('button', { name: c.page.proceed }).click();

      // The e-Signature with the typed name.
      const pad = page.getByRole('dialog', { name: c.page.padTitle });
      await pad.getByRole('tab', { name: c.page.padType }).click();
      await expect(pad.getByTestId('typed-name')).toHaveText(name);
      await shot(page, `language-${language}-pad`);
      await pad.getByRole('button', { name: c.page.submit }).click();

      // The success page, in the language.
      await expect(page).toHaveURL(/\/success\/demo\/[0-9a-f-]{36}$/);
      await expect(page.getByText(c.page.successTitle)).toBeVisible({ timeout: 30_000 });
      const closing = page.getByTestId('success').getByText(c.page.closeWindow);
      await expect(closing).toBeVisible();
      await shot(page, `language-${language}-success`);

      // The script is the shipped font's, glyph for glyph; without it the same text is boxes.
      const weight = Number(await closing.evaluate((el) => getComputedStyle(el).fontWeight)) >= 600 ? 600 : 400;
      const { reference, withoutFont } = await glyphCheck(
        closing,
        shippedFont(script, weight),
        SHOTS,
        `${language}-close-window`,
      );
      const compared = JSON.stringify({ reference, withoutFont });
      test.info().annotations.push({ type: 'glyphs', description: compared });
      console.log(`${language} glyphs:`, compared);
      expect(Math.abs(reference.page[0] - reference.other[0])).toBeLessThanOrEqual(1);
      expect(Math.abs(reference.page[1] - reference.other[1])).toBeLessThanOrEqual(1);
      expect(reference.difference).toBeLessThan(0.01);
      expect(
        Math.abs(withoutFont.page[0] - withoutFont.other[0]) > 4 || withoutFont.difference > 0.15,
        JSON.stringify(withoutFont),
      ).toBe(true);

      expect(fonts.length).toBeGreaterThan(0);
      expect(fonts.filter((f) => !f.startsWith(`noto-sans-${script}-${script}-`))).toEqual([]);
    });
  });
}

test.describe('the language switch', () => {
  test.use({ locale: 'en-IN' });

  async function openLink(page: Page, label: string): Promise<void> {
    const key = await staffKey(page.request);
    const signer = person(label);
    const up = await page.request.post('/v1/upload', {
      headers: { apikey: key },
      multipart: {
        data: JSON.stringify([
          {
            name: signer.name,
            email: signer.email,
            phoneNumber: `+91 ${signer.phone}`,
            signature_type: 'e-Signature',
            observer: false,
          },
        ]),
        checkOrder: 'false',
        otpRequired: 'false',
        orgId: DEMO.orgId,
        file: { name: 'normal.pdf', mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', 'normal.pdf')) },
      },
    });
    const refId = (await up.json()).refId as number;
    await page.request.post('/v1/process', {
      headers: { apikey: key },
      data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1] }] },
    });
    const mail = (await outbox(page.request, signer.email)).find(
      (m) => m.kind === 'invitation' && m.channel === 'email',
    );
    const link = new URL(/https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? '')?.[0] ?? '');
    await page.goto(link.pathname + link.search);
  }

  test('English for an English browser and no language set; the switch (by keyboard) changes the page and is remembered', async ({
    page,
  }) => {
    const fonts: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('.woff2')) fonts.push(path.basename(new URL(r.url()).pathname));
    });
    await openLink(page, 'lang-switch');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.getByText(CATALOGUES.en.page.acceptPrompt)).toBeVisible();
    // An English page downloads no font of an Indian script (the switch's names wait until it is about to open).
    await page.evaluate(() => document.fonts.ready);
    expect(fonts).toEqual([]);
    const select = page.getByRole('combobox', { name: CATALOGUES.en.page.language });
    // Each language in its own name.
    await expect(select.locator('option')).toHaveText(Object.values(LANGUAGE_NAMES));
    await select.focus();
    await select.selectOption('kn');
    await expect(page.locator('html')).toHaveAttribute('lang', 'kn');
    await expect(page.getByText(CATALOGUES.kn.page.acceptPrompt)).toBeVisible();
    await expect(page.getByRole('combobox', { name: CATALOGUES.kn.page.language })).toHaveValue('kn');
    await page.evaluate(() => document.fonts.ready);
    expect(fonts.some((f) => f.startsWith('noto-sans-kannada-kannada-'))).toBe(true);
    await page.reload();
    await expect(page.getByText(CATALOGUES.kn.page.acceptPrompt)).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('esign:language'))).toBe('kn');
    // Back to English by keyboard alone.
    const again = page.getByRole('combobox', { name: CATALOGUES.kn.page.language });
    await again.focus();
    await page.keyboard.press('Home');
    await expect(page.getByText(CATALOGUES.en.page.acceptPrompt)).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  });
});
