import { Limits, Messages, RecipientMessages, SignerTexts } from '@esign/contract';
import type { Organisation, OrganisationSettings, RequestListItem } from '@esign/contract';
import { signaturePng } from '@esign/test-support';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import config from '../playwright.config';
import { apiKey, processDraft, signInAsDemo } from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import { faceCamera, faceVideos } from './support/face';

/**
 * The signer app's dialogs (signer-web/src/dialogs) driven through the signing page: the OTP dialog, the instruction
 * dialogs (location, camera, face capture, liveness video) with Chromium's fake camera, and the signature pad on a
 * 360 px phone with touch. Organisation settings a test changes are put back after it.
 */

// The fake camera plays a face held still (the browser's and the server's face checks need one; no blink, so the
// server's liveness analysis fails: face.spec.ts has the journeys that pass).
const MEDIA_ARGS = [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  `--use-file-for-fake-video-capture=${faceCamera('still')}`,
];
const baseArgs = config.use?.launchOptions?.args ?? [];
const MUMBAI = { latitude: 19.076, longitude: 72.8777 };
const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
// The labels the dialogs add beside the contract's texts (signer-web/src/dialogs/texts.ts).
const OTP_STEPS = 'OTP steps';
const ALLOWED = 'Allowed';

type Flags = Pick<
  OrganisationSettings,
  'location_capture' | 'allow_signing_from_india' | 'esignature_face_capture' | 'face_capture' | 'live_video'
>;

let key = '';
let restore: Flags | null = null;
let run = 0;

/** A signer with an address no other test uses (the dev outbox is searched by address). */
const signer = (label: string) => {
  run += 1;
  return { name: 'Kavya Nair', email: `dialogs-${label}-${Date.now()}-${run}@example.in`, phone: '9812345670' };
};

/** Sends a one-signer e-Signature request through the API and answers its sign link (path and query). */
async function signLink(page: Page, person: ReturnType<typeof signer>, otp: boolean): Promise<string> {
  const up = await page.request.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify([
        {
          name: person.name,
          email: person.email,
          phoneNumber: `+91 ${person.phone}`,
          observer: false,
          signature_type: 'e-Signature',
        },
      ]),
      checkOrder: 'false',
      otpRequired: String(otp),
      orgId: DEMO.orgId,
      file: { name: 'normal.pdf', mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', 'normal.pdf')) },
    },
  });
  expect(up.status()).toBe(200);
  const { refId } = (await up.json()) as { refId: number };
  await processDraft(page, refId);
  const item = (await (
    await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } })
  ).json()) as RequestListItem;
  const url = new URL(item.data[0].sign_url as string);
  return url.pathname + url.search;
}

/** Changes the demo organisation's settings; the previous values are put back after the test. */
async function orgSettings(page: Page, changes: Partial<Flags>): Promise<void> {
  if (!restore) {
    const org = (await (
      await page.request.get(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key } })
    ).json()) as Organisation;
    const s = org.settings;
    restore = {
      location_capture: s.location_capture,
      allow_signing_from_india: s.allow_signing_from_india,
      esignature_face_capture: s.esignature_face_capture,
      face_capture: s.face_capture,
      live_video: s.live_video,
    };
  }
  const res = await page.request.put(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key }, data: changes });
  expect(res.status()).toBe(200);
}

const latestOtp = async (page: Page, to: string): Promise<string> => {
  const messages = (await (await page.request.get(`/dev/outbox?to=${encodeURIComponent(to)}`)).json()) as {
    kind: string;
    channel: string;
    text: string;
  }[];
  const code = /\b(\d{6})\b/.exec(messages.find((m) => m.kind === 'otp' && m.channel === 'email')?.text ?? '')?.[1];
  expect(code).toBeTruthy();
  return code as string;
};

const toast = (page: Page, text: string | RegExp) => page.locator('.toasts').getByText(text);

/** Accept, e-Signature, confirm, 'Proceed to eSign': the signature pad opens. */
async function acceptAndOpenPad(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
  await page.getByRole('button', { name: SignerTexts.yes }).click();
  await expect(page.getByTestId('accepted')).toBeVisible();
  await page.getByLabel(SignerTexts.methodESignature).check();
  await page.getByLabel(SignerTexts.confirmDetails).check();
  await page.getByRole('button', { name: SignerTexts.proceed }).click();
  const pad = page.getByRole('dialog', { name: SignerTexts.padTitle });
  await expect(pad).toBeVisible();
  return pad;
}

/** A wavy stroke by touch (Chrome DevTools touch events, as a finger on a phone sends them). */
async function touchDraw(page: Page, canvas: Locator): Promise<void> {
  const box = (await canvas.boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  const at = (x: number) => ({ x: box.x + x, y: box.y + box.height / 2 + Math.sin(x / 15) * (box.height / 4) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(20)] });
  for (let x = 30; x < box.width - 20; x += 8) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(x)] });
    await page.waitForTimeout(5);
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** A small valid PNG (a dark wave on transparency). */
const png = (): Buffer => signaturePng();

async function allowMedia(context: BrowserContext, where = MUMBAI): Promise<void> {
  await context.grantPermissions(['geolocation', 'camera']);
  await context.setGeolocation(where);
}

// Chromium's fake camera (a face) and its permission prompt answered yes; launch options are per file.
test.use({ launchOptions: { ...config.use?.launchOptions, args: [...baseArgs, ...MEDIA_ARGS] } });

test.describe('signer dialogs', () => {
  test.describe.configure({ timeout: 120_000 });

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    await faceVideos();
  });

  test.beforeEach(async ({ page }) => {
    await signInAsDemo(page);
    key = await apiKey(page);
    restore = null;
  });

  test.afterEach(async ({ page }) => {
    if (restore) await orgSettings(page, restore);
    restore = null;
  });

  test('OTP: the steps, GET OTP, digits only, a wrong code, 429 in another tab, Resend after the wait, a replaced code expired, verified then redirected, and a 401 popup once the link is replaced', async ({
    page,
    context,
  }) => {
    test.setTimeout(150_000);
    const person = signer('otp');
    const link = await signLink(page, person, true);
    const otpDialog = (p: Page) => p.getByRole('dialog', { name: 'OTP verification' });
    const getOtp = (p: Page) => otpDialog(p).getByRole('button', { name: SignerTexts.getOtp });

    // Tab A: the two steps, GET OTP.
    await page.goto(link);
    const dialog = otpDialog(page);
    await expect(dialog).toBeVisible();
    const steps = dialog.getByRole('list', { name: OTP_STEPS }).getByRole('listitem');
    await expect(steps).toHaveText([`1${SignerTexts.otpRequestStep}`, `2${SignerTexts.otpVerifyStep}`]);
    await expect(steps.nth(0)).toHaveAttribute('aria-current', 'step');
    await expect(dialog.getByRole('button', { name: SignerTexts.close })).toBeVisible();
    await getOtp(page).click();
    await expect(toast(page, Messages.otpSent)).toBeVisible();
    await expect(steps.nth(1)).toHaveAttribute('aria-current', 'step');

    // The code: focused, numeric keyboard, one-time-code, digits only, at most 6.
    const input = dialog.getByPlaceholder(SignerTexts.otpPlaceholder);
    await expect(input).toBeFocused();
    await expect(input).toHaveAttribute('inputmode', 'numeric');
    await expect(input).toHaveAttribute('autocomplete', 'one-time-code');
    await expect(input).toHaveAttribute('maxlength', String(Limits.otpLength));
    const verify = dialog.getByRole('button', { name: SignerTexts.verify });
    await input.pressSequentially('4a-2 b9');
    await expect(input).toHaveValue('429');
    await expect(verify).toBeDisabled();
    await input.fill('12345678');
    await expect(input).toHaveValue('123456');

    const first = await latestOtp(page, person.email);
    await input.fill(first.slice(0, 5) + String((Number(first[5]) + 1) % 10));
    await verify.click();
    await expect(dialog.getByRole('alert')).toHaveText(Messages.otpInvalid);
    const resend = dialog.getByRole('button', { name: SignerTexts.resendOtp });
    await expect(resend).toBeDisabled();
    await expect(resend).toContainText(/\(\d+s\)/);
    await shot(page, 'dialogs-otp-verify');

    // Tab B asks within the 30 s: the server's 429 message in a toast; it stays on 'Request OTP'.
    const tabB = await context.newPage();
    await tabB.goto(link);
    await getOtp(tabB).click();
    await expect(toast(tabB, /^Please wait \d+ seconds before requesting a new OTP\.$/)).toBeVisible();
    await expect(otpDialog(tabB).getByPlaceholder(SignerTexts.otpPlaceholder)).toHaveCount(0);

    // Tab A: Resend once its countdown has run out.
    await expect(resend).toBeEnabled({ timeout: Limits.otpResendSeconds * 1000 + 5_000 });
    await resend.click();
    await expect(toast(page, Messages.otpResent)).toBeVisible();
    const resentAt = Date.now();
    await expect(resend).toBeDisabled();

    // Tab B gets a new OTP 30 s later: tab A's code is replaced, so it answers 'OTP Expired'.
    await tabB.waitForTimeout(Math.max(0, resentAt + Limits.otpResendSeconds * 1000 + 1_000 - Date.now()));
    await getOtp(tabB).click();
    await expect(toast(tabB, Messages.otpSent)).toBeVisible();
    const latest = await latestOtp(page, person.email);
    await input.fill(latest);
    await verify.click();
    await expect(dialog.getByRole('alert')).toHaveText(Messages.otpExpired);

    // Tab B verifies: 'Verified!', 'Redirecting to eSign...', and the document Limits.otpRedirectMs later.
    const dialogB = otpDialog(tabB);
    await dialogB.getByPlaceholder(SignerTexts.otpPlaceholder).fill(latest);
    await dialogB.getByRole('button', { name: SignerTexts.verify }).click();
    await expect(dialogB.getByText(Messages.otpVerified)).toBeVisible();
    await expect(dialogB.getByText(Messages.redirectingToEsign)).toBeVisible();
    const verifiedAt = Date.now();
    await shot(tabB, 'dialogs-otp-verified');
    await expect(dialogB).toBeHidden();
    expect(Date.now() - verifiedAt).toBeGreaterThanOrEqual(Limits.otpRedirectMs - 300);
    await expect(tabB.getByText(SignerTexts.acceptPrompt)).toBeVisible();
    await tabB.close();

    // The link stops holding in tab A (the party has opened it in tab B, so the staff can no longer resend the
    // invitation; a link replaced in the meantime looks the same to the app): the next call answers 401, in a popup.
    await page.evaluate(() => {
      sessionStorage.setItem('esign:token', 'a'.repeat(43));
      history.replaceState(history.state, '', location.pathname);
    });
    await expect(resend).toBeEnabled();
    await resend.click();
    const popup = page.getByRole('dialog').filter({ hasText: RecipientMessages.invalidLink });
    await expect(popup.getByRole('alert')).toHaveText(RecipientMessages.invalidLink);
    await shot(page, 'dialogs-otp-401');
    // Escape closes the popup only; its Close button gives the focus back.
    await page.keyboard.press('Escape');
    await expect(popup).toBeHidden();
    await expect(dialog).toBeVisible();
    await resend.click();
    await popup.getByRole('button', { name: SignerTexts.close }).click();
    await expect(popup).toBeHidden();
    await expect(resend).toBeFocused();
  });

  test.describe('instructions, with the fake camera', () => {
    test('location in India while the organisation forbids it: the remark, and signing stops', async ({
      page,
      context,
    }) => {
      await orgSettings(page, { location_capture: true, allow_signing_from_india: false });
      await allowMedia(context);
      await page.goto(await signLink(page, signer('blocked'), false));
      const remark = RecipientMessages.locationBlocked.replace('{country}', 'India');
      await expect(page.getByTestId('remark')).toContainText(remark);
      await expect(page.getByRole('button', { name: SignerTexts.accept, exact: true })).toHaveCount(0);
    });

    test('checks, face capture and the liveness video: Next gated, Capture and Recapture, 4.5 s recording, Proceed (the server finds no blink), Back', async ({
      page,
      context,
    }) => {
      await orgSettings(page, {
        location_capture: true,
        allow_signing_from_india: true,
        esignature_face_capture: true,
        live_video: true,
      });
      await allowMedia(context);
      await page.goto(await signLink(page, signer('live'), false));

      const dialog = page.getByRole('dialog');
      await expect(dialog.getByText(SignerTexts.checkingLocation)).toBeVisible();
      await expect(dialog.getByText(SignerTexts.checkingCamera)).toBeVisible();
      await expect(dialog.locator('.check-line-ok')).toHaveCount(2);
      await expect(dialog.getByText(ALLOWED)).toHaveCount(2);
      const next = dialog.getByRole('button', { name: SignerTexts.instructionsNext });
      await next.click();

      // Face capture: the webcam, Capture, 'Processing...', then the server has the selfie.
      const capture = dialog.getByRole('button', { name: SignerTexts.capture });
      await expect(dialog.locator('video')).toBeVisible();
      await expect(next).toBeDisabled();
      await capture.click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible();
      const image = dialog.getByRole('img', { name: 'Your face capture' });
      expect(await image.getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
      const size = await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
      expect(size[0]).toBeLessThanOrEqual(640);
      expect(size[1]).toBeLessThanOrEqual(480);
      await dialog.getByRole('button', { name: SignerTexts.recapture }).click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toHaveCount(0);
      await expect(next).toBeDisabled();
      await capture.click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible();
      await shot(page, 'dialogs-face-captured');
      await next.click();

      // Liveness: Start Recording, 'Recording...' for Limits.videoRecordingMs, then Re-record and Proceed.
      const proceed = dialog.getByRole('button', { name: SignerTexts.proceedToEsign });
      await expect(proceed).toBeDisabled();
      const start = dialog.getByRole('button', { name: SignerTexts.startRecording });
      await expect(start).toBeEnabled();
      // Timed from before the click: under load the click can return late, never early.
      const startedAt = Date.now();
      await start.click();
      await expect(dialog.getByRole('button', { name: SignerTexts.recording })).toBeDisabled();
      await expect(dialog.getByTestId('recording-countdown')).toHaveText(/^[1-5]$/);
      await expect(dialog.getByRole('button', { name: SignerTexts.rerecord })).toBeVisible({ timeout: 10_000 });
      const took = Date.now() - startedAt;
      expect(took).toBeGreaterThanOrEqual(Limits.videoRecordingMs - 300);
      expect(took).toBeLessThan(Limits.videoRecordingMs + 4_000);
      await shot(page, 'dialogs-liveness-recorded');

      // The server analyses it: a face held still does not blink, so it fails; the indicator stops, Proceed stays.
      const sent = page.waitForRequest((r) => r.url().includes('/v1/liveness/') && r.method() === 'POST');
      await proceed.click();
      const body = (await sent).postDataJSON() as { video_file: string };
      expect(body.video_file).toMatch(/^data:video\/webm[^,]*;base64,/);
      await expect(dialog.getByText(Messages.faceVerificationFailed)).toBeVisible({ timeout: 30_000 });
      await expect(dialog.getByText(SignerTexts.processingVideo)).toBeHidden();
      await expect(proceed).toBeEnabled();

      // Back: the face step keeps its capture; then the checks; then the page's onBack (the dialog stays).
      await dialog.getByRole('button', { name: SignerTexts.instructionsBack }).click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible();
      await dialog.getByRole('button', { name: SignerTexts.instructionsBack }).click();
      await expect(dialog.getByText(SignerTexts.checkingLocation)).toBeVisible();
      await expect(next).toBeEnabled();
      // Every camera stream is stopped once no camera step is shown.
      await expect
        .poll(() =>
          page.evaluate(() =>
            Array.from(document.querySelectorAll('video')).some((v) =>
              ((v.srcObject as MediaStream | null)?.getTracks() ?? []).some((t) => t.readyState === 'live'),
            ),
          ),
        )
        .toBe(false);
    });

    test('the answers the dialogs map: no face (4xx), an error (5xx), a failed and a passed liveness score', async ({
      page,
      context,
    }) => {
      await orgSettings(page, { location_capture: false, esignature_face_capture: true, live_video: true });
      await allowMedia(context);
      await page.goto(await signLink(page, signer('answers'), false));
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: SignerTexts.instructionsNext }).click();

      // The server's answers are played here: its no-face refusal (a 4xx with its text), then an error.
      let faceStatus = 400;
      await page.route('**/v1/signer_details/**', (route) =>
        route.fulfill({ status: faceStatus, json: { code: faceStatus, error: 'X', message: SignerTexts.noFace } }),
      );
      await dialog.getByRole('button', { name: SignerTexts.capture }).click();
      await expect(dialog.getByRole('alert')).toHaveText(SignerTexts.noFace);
      await dialog.getByRole('button', { name: SignerTexts.recapture }).click();
      faceStatus = 500;
      await dialog.getByRole('button', { name: SignerTexts.capture }).click();
      await expect(dialog.getByRole('alert')).toHaveText(SignerTexts.faceError);
      await page.unroute('**/v1/signer_details/**');
      await dialog.getByRole('button', { name: SignerTexts.recapture }).click();
      await dialog.getByRole('button', { name: SignerTexts.capture }).click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible();
      await dialog.getByRole('button', { name: SignerTexts.instructionsNext }).click();

      await dialog.getByRole('button', { name: SignerTexts.startRecording }).click();
      await expect(dialog.getByRole('button', { name: SignerTexts.rerecord })).toBeVisible({ timeout: 10_000 });
      const proceed = dialog.getByRole('button', { name: SignerTexts.proceedToEsign });
      const answers = [
        { status: 400, json: { code: 400, error: 'BAD_REQUEST', message: 'x' } },
        { status: 200, json: { code: 200, data: { liveliness_score: { value: 0 } } } },
        { status: 200, json: { code: 200, data: { liveliness_score: { value: 0.99 } } } },
      ];
      await page.route('**/v1/liveness/**', async (route) => {
        // Long enough for the indicator's two texts to be seen even on a loaded machine.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.fulfill(answers.shift()!);
      });
      await proceed.click();
      await expect(dialog.getByText(SignerTexts.processingVideo)).toBeVisible();
      await expect(dialog.getByText(SignerTexts.analysingVideo)).toBeVisible();
      await expect(dialog.getByRole('alert')).toHaveText(Messages.faceVerificationFailed);
      await shot(page, 'dialogs-liveness-failed');
      await proceed.click();
      await expect(dialog.getByText(SignerTexts.processingVideo)).toBeHidden();
      await expect(dialog.getByRole('alert')).toHaveText(Messages.faceVerificationFailed);
      await proceed.click();
      // Passed: onDone, and the page shows the document.
      await expect(page.getByText(SignerTexts.acceptPrompt)).toBeVisible();
    });

    test.describe('on a 360 px phone', () => {
      test.use(PHONE);

      test('location and face capture, then the typed signature is accepted (the server has the position and the selfie)', async ({
        page,
        context,
      }) => {
        await orgSettings(page, {
          location_capture: true,
          allow_signing_from_india: true,
          esignature_face_capture: true,
        });
        await allowMedia(context);
        const person = signer('face');
        await page.goto(await signLink(page, person, false));
        const dialog = page.getByRole('dialog');
        await dialog.getByRole('button', { name: SignerTexts.instructionsNext }).click();
        await dialog.getByRole('button', { name: SignerTexts.capture }).click();
        await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible();
        const box = (await dialog.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(360);
        await shot(page, 'dialogs-phone-face');
        await dialog.getByRole('button', { name: SignerTexts.proceedToEsign }).click();

        const pad = await acceptAndOpenPad(page);
        await pad.getByRole('tab', { name: SignerTexts.padType }).click();
        await pad.getByLabel(SignerTexts.padItalic).check();
        await pad.getByRole('button', { name: SignerTexts.submit }).click();
        await expect(page).toHaveURL(/\/success\/demo\//);
      });
    });
  });

  test('instructions: location and camera refused show their texts, and Next stays disabled', async ({
    page,
    playwright,
    baseURL,
  }) => {
    await orgSettings(page, { location_capture: true, esignature_face_capture: true });
    const link = await signLink(page, signer('denied'), false);
    // The fake camera without the flag that answers yes to every prompt, and both refused as a person would in the
    // browser's prompt (Chromium's permission settings for this origin).
    const browser = await playwright.chromium.launch({
      ...config.use?.launchOptions,
      args: [...baseArgs, '--use-fake-device-for-media-stream'],
    });
    try {
      const cdp = await browser.newBrowserCDPSession();
      for (const name of ['geolocation', 'camera'])
        await cdp.send('Browser.setPermission', {
          permission: { name },
          setting: 'denied',
          origin: new URL(baseURL as string).origin,
        });
      await cdp.detach();
      const refused = await (await browser.newContext({ baseURL })).newPage();
      await refused.goto(link);
      const dialog = refused.getByRole('dialog');
      await expect(dialog.getByText(Messages.locationDenied)).toBeVisible({ timeout: 20_000 });
      await expect(dialog.getByText(Messages.cameraDenied)).toBeVisible();
      await expect(dialog.getByRole('button', { name: SignerTexts.instructionsNext })).toBeDisabled();
      await shot(refused, 'dialogs-denied');
    } finally {
      await browser.close();
    }
  });

  test.describe('the signature pad on a 360 px phone', () => {
    test.use(PHONE);

    test('loaded on demand, crisp canvas, touch drawing, Clear, the empty pad, upload checks and preview, typed 24 px, Exit, then a drawing is signed', async ({
      page,
    }) => {
      const person = signer('pad');
      const scripts: string[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'script') scripts.push(r.url());
      });
      await page.goto(await signLink(page, person, false));
      await expect(page.getByText(SignerTexts.acceptPrompt)).toBeVisible();
      expect(scripts.some((u) => /SignaturePad-[\w-]+\.js$/.test(u))).toBe(false);

      let pad = await acceptAndOpenPad(page);
      expect(scripts.some((u) => /SignaturePad-[\w-]+\.js$/.test(u))).toBe(true);
      await expect(pad.getByRole('tab', { name: SignerTexts.padDraw })).toHaveAttribute('aria-selected', 'true');
      const canvas = pad.getByRole('img', { name: 'Signature drawing area' });
      await expect(canvas).toBeVisible();
      const [shown, backing] = await canvas.evaluate((c: HTMLCanvasElement) => [c.clientWidth, c.width]);
      expect(backing).toBe(Math.round(shown * 2));
      const dialogBox = (await pad.boundingBox())!;
      expect(dialogBox.x + dialogBox.width).toBeLessThanOrEqual(360);

      const submit = pad.getByRole('button', { name: SignerTexts.submit });
      const clear = pad.getByRole('button', { name: SignerTexts.clear });
      await submit.click();
      await expect(pad.getByRole('alert')).toHaveText(Messages.emptySignaturePad);
      await touchDraw(page, canvas);
      await expect(pad.getByRole('alert')).toHaveText('');
      await clear.click();
      await submit.click();
      await expect(pad.getByRole('alert')).toHaveText(Messages.emptySignaturePad);

      // Type: the name at 24 px, normal then italic; Clear goes back to normal.
      await pad.getByRole('tab', { name: SignerTexts.padType }).click();
      const typed = pad.getByTestId('typed-name');
      await expect(typed).toHaveText(person.name);
      await expect(typed).toHaveCSS('font-size', `${Limits.nameSignatureFontPx}px`);
      await expect(typed).toHaveCSS('font-style', 'normal');
      await pad.getByLabel(SignerTexts.padItalic).check();
      await expect(typed).toHaveCSS('font-style', 'italic');
      await clear.click();
      await expect(pad.getByLabel(SignerTexts.padNormal)).toBeChecked();

      // Upload: one dot and png/jpeg only, at most 1 MB, a preview, Clear removes it.
      await pad.getByRole('tab', { name: SignerTexts.padUpload }).click();
      const file = pad.locator('input[type=file]');
      await file.setInputFiles({ name: 'my.signature.png', mimeType: 'image/png', buffer: png() });
      await expect(pad.getByRole('alert')).toHaveText(Messages.invalidSignatureImage);
      await file.setInputFiles({ name: 'signature.gif', mimeType: 'image/gif', buffer: png() });
      await expect(pad.getByRole('alert')).toHaveText(Messages.invalidSignatureImage);
      const big = Buffer.concat([png(), Buffer.alloc(Limits.signatureImageMaxBytes)]);
      await file.setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: big });
      await expect(pad.getByRole('alert')).toHaveText(RecipientMessages.signatureTooLarge);
      await file.setInputFiles({ name: 'signature.png', mimeType: 'image/png', buffer: png() });
      await expect(pad.getByRole('alert')).toHaveText('');
      const preview = pad.getByRole('img', { name: 'signature.png' });
      await expect(preview).toBeVisible();
      await shot(page, 'dialogs-pad-upload');
      await clear.click();
      await expect(preview).toHaveCount(0);

      await pad.getByRole('button', { name: SignerTexts.exit }).click();
      await expect(pad).toBeHidden();

      // Open again, draw with a finger, Submit: the server takes the trimmed PNG and the signing completes.
      await page.getByRole('button', { name: SignerTexts.proceed }).click();
      pad = page.getByRole('dialog', { name: SignerTexts.padTitle });
      await touchDraw(page, pad.getByRole('img', { name: 'Signature drawing area' }));
      await shot(page, 'dialogs-pad-drawn');
      const sent = page.waitForRequest((r) => r.url().includes('/v1/esignature/'));
      await pad.getByRole('button', { name: SignerTexts.submit }).click();
      const body = (await sent).postDataJSON() as { kind: string; file: string };
      expect(body.kind).toBe('drawn');
      expect(body.file).toMatch(/^data:image\/png;base64,/);
      await expect(page).toHaveURL(/\/success\/demo\//);
    });
  });
});
