import { Headers as ApiHeaders, Messages, StaffRoutes } from '@esign/contract';
import type { ErrorBody, Organisation, OrganisationSettings } from '@esign/contract';
import type { Page } from '@playwright/test';
import { apiKey, signInAsDemo } from './console';
import { DEMO, expect, shot, test } from './fixtures';

type Changed = Pick<OrganisationSettings, 'esignature_face_capture' | 'live_video' | 'live_video_threshold'>;

/** The journey starts from the seeded defaults of the settings it changes. */
const START: Changed = { esignature_face_capture: false, live_video: false, live_video_threshold: 0.5 };

const path = (pathname: string) => new RegExp(`^[^?#]*//[^/]+${pathname.replace(/[/.]/g, '\\$&')}(\\?.*)?$`);
const toast = (page: Page) => page.getByRole('alert').last();
const waiting = (page: Page) => page.getByTestId('wait-text');
const saveButton = (page: Page) => page.getByRole('button', { name: Messages.settingsSave, exact: true });
const toggle = (page: Page, label: string) => page.getByRole('switch', { name: label, exact: true });
const slider = (page: Page) => page.getByRole('slider', { name: Messages.settingsLiveVideoThreshold, exact: true });
const isOrgPut = (method: string, url: string) =>
  method === 'PUT' && new URL(url).pathname === `/api/organisations/${DEMO.orgId}`;

test.describe('organisation settings', () => {
  test('/settings without a session goes to the sign-in page', async ({ page }) => {
    await page.goto(StaffRoutes.settings);
    await expect(page).toHaveURL(path(StaffRoutes.signIn));
    await expect(page.getByRole('button', { name: Messages.loginButton })).toBeVisible();
  });

  test('Settings turns on the face capture for e-signatures and the liveness video, and keeps them', async ({
    page,
  }) => {
    await signInAsDemo(page);
    const headers = { [ApiHeaders.apiKey]: await apiKey(page) };
    const orgPath = `/api/organisations/${DEMO.orgId}`;
    const settings = async (): Promise<OrganisationSettings> => {
      const response = await page.request.get(orgPath, { headers });
      expect(response.status()).toBe(200);
      return ((await response.json()) as Organisation).settings;
    };
    const put = async (data: Partial<OrganisationSettings>) =>
      expect((await page.request.put(orgPath, { headers, data })).status()).toBe(200);

    // The journeys share one server and its demo organisation: whatever this one changes is put back.
    const before = await settings();
    const restore: Changed = {
      esignature_face_capture: before.esignature_face_capture,
      live_video: before.live_video,
      live_video_threshold: before.live_video_threshold,
    };
    await put(START);
    try {
      await page.getByRole('menuitem', { name: Messages.navSettings }).click();
      await expect(page).toHaveURL(path(StaffRoutes.settings));
      await expect(page.getByRole('heading', { name: Messages.settingsHeading, level: 1 })).toBeVisible();
      await expect(page.getByRole('heading', { name: Messages.settingsIdentitySection })).toBeVisible();
      await expect(waiting(page)).toBeHidden();

      // Nothing changed yet; the threshold only works with the liveness video on.
      await expect(saveButton(page)).toBeDisabled();
      await expect(toggle(page, Messages.settingsEsignatureFaceCapture)).not.toBeChecked();
      await expect(toggle(page, Messages.settingsLiveVideo)).not.toBeChecked();
      await expect(slider(page)).toBeDisabled();
      await expect(page.getByTestId('threshold-value')).toHaveText('0.50');
      await expect(page.getByText(Messages.settingsLiveVideoThresholdHelp, { exact: false })).toBeVisible();

      await toggle(page, Messages.settingsEsignatureFaceCapture).check();
      await toggle(page, Messages.settingsLiveVideo).check();
      await expect(slider(page)).toBeEnabled();
      await slider(page).focus();
      await page.keyboard.press('Home');
      for (let step = 0; step < 14; step += 1) await page.keyboard.press('ArrowRight');
      await expect(page.getByTestId('threshold-value')).toHaveText('0.70');
      await expect(slider(page)).toHaveAttribute('aria-valuenow', '0.7');
      await expect(saveButton(page)).toBeEnabled();

      // A 400 shows the server's own message and keeps the form as it is: the server is sent an invalid threshold.
      const invalid = await page.request.put(orgPath, { headers, data: { live_video_threshold: 2 } });
      expect(invalid.status()).toBe(400);
      const { message } = (await invalid.json()) as ErrorBody;
      expect(message).toBeTruthy();
      await page.route(`**${orgPath}`, (route) =>
        route.request().method() === 'PUT'
          ? route.continue({ postData: JSON.stringify({ ...route.request().postDataJSON(), live_video_threshold: 2 }) })
          : route.continue(),
      );
      await saveButton(page).click();
      await expect(toast(page)).toHaveText(message);
      await page.unroute(`**${orgPath}`);
      await expect(saveButton(page)).toBeEnabled();
      await expect(page.getByTestId('threshold-value')).toHaveText('0.70');
      expect(await settings()).toMatchObject(START);

      // Save sends only what changed.
      const sent = page.waitForRequest((request) => isOrgPut(request.method(), request.url()));
      const answered = page.waitForResponse((response) => isOrgPut(response.request().method(), response.url()));
      await saveButton(page).click();
      expect((await sent).postDataJSON()).toEqual({
        esignature_face_capture: true,
        live_video: true,
        live_video_threshold: 0.7,
      });
      expect((await answered).status()).toBe(200);
      await expect(toast(page)).toHaveText(Messages.settingsSaved);
      await expect(saveButton(page)).toBeDisabled();
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, 'settings-saved');

      // Kept: after a reload, and on the server.
      await page.reload();
      await expect(waiting(page)).toBeHidden();
      await expect(toggle(page, Messages.settingsEsignatureFaceCapture)).toBeChecked();
      await expect(toggle(page, Messages.settingsLiveVideo)).toBeChecked();
      await expect(slider(page)).toBeEnabled();
      await expect(slider(page)).toHaveAttribute('aria-valuenow', '0.7');
      await expect(page.getByTestId('threshold-value')).toHaveText('0.70');
      await expect(toggle(page, Messages.settingsFaceCapture)).toBeChecked({ checked: before.face_capture });
      await shot(page, 'settings');
      expect(await settings()).toMatchObject({
        esignature_face_capture: true,
        live_video: true,
        live_video_threshold: 0.7,
        face_capture: before.face_capture,
        aadhaar_face_capture: before.aadhaar_face_capture,
        location_capture: before.location_capture,
        allow_signing_from_india: before.allow_signing_from_india,
      });

      // Turned back off from the page.
      const sentOff = page.waitForRequest((request) => isOrgPut(request.method(), request.url()));
      await toggle(page, Messages.settingsEsignatureFaceCapture).uncheck();
      await toggle(page, Messages.settingsLiveVideo).uncheck();
      await expect(slider(page)).toBeDisabled();
      await saveButton(page).click();
      expect((await sentOff).postDataJSON()).toEqual({ esignature_face_capture: false, live_video: false });
      await expect(toast(page)).toHaveText(Messages.settingsSaved);
      expect(await settings()).toMatchObject({ esignature_face_capture: false, live_video: false });
    } finally {
      await put(restore);
    }
  });
});
