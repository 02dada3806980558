import { Messages, RecipientMessages, SignerTexts } from '@esign/contract';
import type { Browser, Page, PlaywrightWorkerArgs } from '@playwright/test';
import type { FaceVideos } from '../../api/test/support/face-video';
import config from '../playwright.config';
import { apiKey, signInAsDemo } from './console';
import { expect, shot, test } from './fixtures';
import {
  faceTimings,
  faceVideos,
  oneSignerLink,
  orgSettings,
  pdfImages,
  pdfPages,
  pdfText,
  requestItem,
  signingRefusal,
  verifySigned,
} from './support/face';
import type { FaceFlags } from './support/face';

/**
 * Face capture and the liveness video for real: Chromium's fake camera plays recordings made from the fixture photos
 * (api/test/support/face-video.ts: the astronaut blinking, the astronaut still, a coffee cup), the signer app runs the
 * face models in the browser (onnxruntime-web) and the server checks the selfie and scores the video itself. Nothing
 * is faked. A browser per camera file; the demo organisation's settings are put back after each test.
 */

const baseArgs = config.use?.launchOptions?.args ?? [];
const FACE_ASSETS = /\/models\/face\/|ort-wasm|ort\.wasm/;
// signer-web/src/dialogs/texts.ts: the live hints beside the contract's texts.
const HINT = { faceInView: 'Face in view', noFaceInView: 'No face in view', blinkDetected: 'Blink detected' };
const FACE_AND_VIDEO: Partial<FaceFlags> = {
  location_capture: false,
  face_capture: true,
  live_video: true,
  live_video_threshold: 0.5,
};

let videos: FaceVideos;
let key = '';
let restore: (() => Promise<void>) | null = null;
let run = 0;
const email = (label: string) => `face-${label}-${Date.now()}-${++run}@example.in`;

/** Chromium whose camera plays `file` (.y4m, looped), its permission prompt answered yes. */
const withCamera = (playwright: PlaywrightWorkerArgs['playwright'], file: string): Promise<Browser> =>
  playwright.chromium.launch({
    ...config.use?.launchOptions,
    args: [
      ...baseArgs,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${file}`,
    ],
  });

const signerPage = async (browser: Browser, baseURL: string | undefined): Promise<Page> => {
  const context = await browser.newContext({ baseURL, permissions: ['camera'] });
  return context.newPage();
};

/** The instruction dialog from the camera check to the face step, once the models say a face is in view or not. */
async function toFaceStep(page: Page, link: string, hint: string) {
  await page.goto(link);
  const dialog = page.getByRole('dialog');
  await expect(dialog.locator('.check-line-ok')).toHaveCount(1);
  await dialog.getByRole('button', { name: SignerTexts.instructionsNext }).click();
  // The live hint comes from the browser's models: they have loaded and looked at the preview.
  await expect(dialog.getByTestId('face-hint')).toHaveText(hint, { timeout: 20_000 });
  return dialog;
}

test.describe('face capture and liveness, with the face models in the browser', () => {
  test.describe.configure({ timeout: 90_000 });

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    videos = await faceVideos();
  });

  test.beforeEach(async ({ page }) => {
    await signInAsDemo(page);
    key = await apiKey(page);
  });

  test.afterEach(async () => {
    await restore?.();
    restore = null;
  });

  test('a coffee cup: no face in view, Capture says no face without sending it (the server says the same when the models cannot load), and the server holds no selfie', async ({
    page,
    playwright,
    baseURL,
  }) => {
    restore = await orgSettings(page, key, { ...FACE_AND_VIDEO, live_video: false });
    const signer = await oneSignerLink(page, key, email('cup'));
    const browser = await withCamera(playwright, videos.cup.y4m);
    try {
      const tab = await signerPage(browser, baseURL);
      const selfies: string[] = [];
      tab.on('request', (r) => {
        if (r.method() === 'POST' && r.url().includes('/v1/signer_details/') && r.postData()?.includes('"selfie"'))
          selfies.push(r.url());
      });
      const dialog = await toFaceStep(tab, signer.link, HINT.noFaceInView);
      await dialog.getByRole('button', { name: SignerTexts.capture }).click();
      await expect(dialog.getByRole('alert')).toHaveText(SignerTexts.noFace);
      await expect(dialog.getByRole('button', { name: SignerTexts.recapture })).toBeEnabled();
      await expect(dialog.getByRole('button', { name: SignerTexts.proceedToEsign })).toBeDisabled();
      await shot(tab, 'face-cup-no-face');
      expect(selfies).toEqual([]);

      // Without the browser's models (they fail to load), the signer is not stopped: the picture goes to the server,
      // whose own check answers the same.
      const bare = await signerPage(browser, baseURL);
      await bare.route('**/models/face/**', (route) => route.fulfill({ status: 404, body: 'gone' }));
      await bare.goto(signer.link);
      const again = bare.getByRole('dialog');
      await again.getByRole('button', { name: SignerTexts.instructionsNext }).click();
      const capture = again.getByRole('button', { name: SignerTexts.capture });
      await expect(capture).toBeEnabled();
      const checked = bare.waitForResponse(
        (r) => r.url().includes('/v1/signer_details/') && Boolean(r.request().postData()?.includes('"selfie"')),
      );
      await capture.click();
      expect((await checked).status()).toBe(400);
      await expect(again.getByRole('alert')).toHaveText(SignerTexts.noFace);
      await expect(again.getByTestId('face-hint')).toBeHidden();
      // The server has no selfie for the party: it refuses to start signing for that reason.
      expect(await signingRefusal(page, signer)).toBe(RecipientMessages.faceNeeded);
    } finally {
      await browser.close();
    }
  });

  test('the astronaut blinking: face captured, the video passes, the drawn signature completes the request, and the certificate shows the face and the liveness result', async ({
    page,
    playwright,
    baseURL,
  }) => {
    test.setTimeout(150_000);
    restore = await orgSettings(page, key, FACE_AND_VIDEO);
    const signer = await oneSignerLink(page, key, email('blink'));
    const browser = await withCamera(playwright, videos.blink.y4m);
    try {
      const tab = await signerPage(browser, baseURL);
      const dialog = await toFaceStep(tab, signer.link, HINT.faceInView);
      await dialog.getByRole('button', { name: SignerTexts.capture }).click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible({ timeout: 20_000 });
      await shot(tab, 'face-blink-captured');
      await dialog.getByRole('button', { name: SignerTexts.instructionsNext }).click();

      // Liveness: 4.5 s of recording, the browser sees the blinks meanwhile; the server's analysis decides.
      await dialog.getByRole('button', { name: SignerTexts.startRecording }).click();
      await expect(dialog.getByRole('button', { name: SignerTexts.recording })).toBeDisabled();
      await expect(dialog.getByTestId('face-hint')).toHaveText(HINT.blinkDetected, { timeout: 10_000 });
      await expect(dialog.getByRole('button', { name: SignerTexts.rerecord })).toBeVisible({ timeout: 10_000 });
      await shot(tab, 'face-blink-recorded');
      const timings = await faceTimings(tab);
      test.info().annotations.push({ type: 'face timings (ms)', description: JSON.stringify(timings) });
      console.log('face timings (ms):', JSON.stringify(timings));
      expect(timings['face:frame']?.count).toBeGreaterThan(10);

      const answer = tab.waitForResponse((r) => r.url().includes('/v1/liveness/') && r.request().method() === 'POST');
      await dialog.getByRole('button', { name: SignerTexts.proceedToEsign }).click();
      await expect(dialog.getByText(SignerTexts.processingVideo)).toBeVisible();
      const scored = (await (await answer).json()) as {
        passed: boolean;
        data: { liveliness_score: { value: number } };
      };
      expect(scored.passed).toBe(true);
      expect(scored.data.liveliness_score.value).toBeGreaterThan(0.5);
      await expect(tab.getByText(SignerTexts.acceptPrompt)).toBeVisible();

      // Accept, e-Signature, a drawing, Submit.
      await tab.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
      await tab.getByRole('button', { name: SignerTexts.yes }).click();
      await tab.getByLabel(SignerTexts.methodESignature).check();
      await tab.getByLabel(SignerTexts.confirmDetails).check();
      await tab.getByRole('button', { name: SignerTexts.proceed }).click();
      const pad = tab.getByRole('dialog', { name: SignerTexts.padTitle }).locator('canvas');
      await expect(pad).toBeVisible();
      const box = (await pad.boundingBox())!;
      await tab.mouse.move(box.x + 20, box.y + box.height / 2);
      await tab.mouse.down();
      for (let x = 20; x < box.width - 20; x += 10)
        await tab.mouse.move(box.x + x, box.y + box.height / 2 + Math.sin(x / 18) * (box.height / 4));
      await tab.mouse.up();
      await tab.getByRole('button', { name: SignerTexts.submit }).click();
      await expect(tab.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
      await shot(tab, 'face-blink-signed');
    } finally {
      await browser.close();
    }

    await expect
      .poll(async () => (await requestItem(page, key, signer.refId)).request_status, { timeout: 60_000 })
      .toBe('completed');
    const item = await requestItem(page, key, signer.refId);
    const signed = Buffer.from(await (await page.request.get(item.data[0].downloadUrl as string)).body());
    // The certificate of completion follows the document's 2 pages: the face thumbnail and the liveness result.
    const pages = pdfPages(signed);
    expect(pages).toBeGreaterThan(2);
    expect(pdfImages(signed).filter((image) => image.page > 2).length).toBeGreaterThan(0);
    const certificate = pdfText(signed, 3);
    expect(certificate).toMatch(/Liveness\s+Passed/);
    const verified = verifySigned(signed);
    expect(verified.signatures.every((sig) => sig.valid && sig.trusted)).toBe(true);
    expect(verified.ok).toBe(true);
  });

  test('the astronaut holding still: face captured, the video fails with the spec text, and the signer cannot go on', async ({
    page,
    playwright,
    baseURL,
  }) => {
    restore = await orgSettings(page, key, FACE_AND_VIDEO);
    const signer = await oneSignerLink(page, key, email('still'));
    const browser = await withCamera(playwright, videos.still.y4m);
    try {
      const tab = await signerPage(browser, baseURL);
      const dialog = await toFaceStep(tab, signer.link, HINT.faceInView);
      await dialog.getByRole('button', { name: SignerTexts.capture }).click();
      await expect(dialog.getByText(SignerTexts.faceCaptured)).toBeVisible({ timeout: 20_000 });
      await dialog.getByRole('button', { name: SignerTexts.instructionsNext }).click();
      await dialog.getByRole('button', { name: SignerTexts.startRecording }).click();
      await expect(dialog.getByRole('button', { name: SignerTexts.rerecord })).toBeVisible({ timeout: 10_000 });
      await expect(dialog.getByTestId('face-hint')).not.toHaveText(HINT.blinkDetected);

      const proceed = dialog.getByRole('button', { name: SignerTexts.proceedToEsign });
      await proceed.click();
      await expect(dialog.getByRole('alert')).toHaveText(Messages.faceVerificationFailed, { timeout: 30_000 });
      await expect(dialog.getByText(SignerTexts.processingVideo)).toBeHidden();
      await shot(tab, 'face-still-failed');
      // Still in the dialog: the document's Accept is not offered.
      await expect(dialog).toBeVisible();
      await expect(tab.getByText(SignerTexts.acceptPrompt)).toBeHidden();
    } finally {
      await browser.close();
    }
    // The server holds the selfie but no passed video: it refuses to start signing.
    expect(await signingRefusal(page, signer)).toBe(RecipientMessages.livenessNeeded);
  });

  test('no face or liveness checks: the face models and onnxruntime are never requested', async ({ page, context }) => {
    // Location only: the instruction dialogs show, without a camera step.
    restore = await orgSettings(page, key, {
      location_capture: true,
      allow_signing_from_india: true,
      face_capture: false,
      esignature_face_capture: false,
      aadhaar_face_capture: false,
      live_video: false,
    });
    await context.grantPermissions(['geolocation']);
    await context.setGeolocation({ latitude: 19.076, longitude: 72.8777 });
    const fetched: string[] = [];
    page.on('request', (r) => fetched.push(r.url()));

    const located = await oneSignerLink(page, key, email('location'));
    await page.goto(located.link);
    const dialog = page.getByRole('dialog');
    await expect(dialog.locator('.check-line-ok')).toHaveCount(1);
    await dialog.getByRole('button', { name: SignerTexts.proceedToEsign }).click();
    await expect(page.getByText(SignerTexts.acceptPrompt)).toBeVisible();

    // Nothing asked: no dialog at all.
    await restore();
    restore = await orgSettings(page, key, { location_capture: false, face_capture: false, live_video: false });
    const plain = await oneSignerLink(page, key, email('plain'));
    await page.goto(plain.link);
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
    await page.getByRole('button', { name: SignerTexts.yes }).click();
    await expect(page.getByTestId('accepted')).toBeVisible();

    expect(fetched.some((url) => url.includes('/signer-assets/'))).toBe(true);
    expect(fetched.filter((url) => FACE_ASSETS.test(url))).toEqual([]);
  });
});
