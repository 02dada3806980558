import AxeBuilder from '@axe-core/playwright';
import { CONSOLE_ROUTES, Messages, StaffRoutes } from '@esign/contract';
import type { Page } from '@playwright/test';
import { en } from '../../admin/src/i18n/en';
import { hi } from '../../admin/src/i18n/hi';
import { apiKey, processDraft, saveDraft, signInAsDemo, storeUpload, uploadDraft } from './console';
import { animationsDone, DEMO, expect, test } from './fixtures';
import { completedRequest } from './support/requests';

/**
 * Issue 22, accessibility of the staff console: axe-core (WCAG 2.0 and 2.1, A and AA rules) on every console route of
 * the route table (CONSOLE_ROUTES) and the states behind them (the file dialog, the template picker, an expanded
 * request, a request's page, the administration's forms, the dialogs that show a secret once, the set-password page,
 * the 'not allowed' page, the console in Hindi): no serious or critical violation. Then the console by keyboard alone.
 */

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const C = en.console;

/** The serious and critical violations axe finds on the page as it is now (each with the elements it names). */
async function violations(page: Page, state: string): Promise<string[]> {
  const { violations: found } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${state}: ${v.id} (${v.impact}) ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 160)}`).join(', ')}`,
    );
}

/** Waits until react-admin has nothing loading (its progress indicator gone) and the page has settled. */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(page.locator('.MuiLinearProgress-root[role="progressbar"]:not([aria-valuenow])')).toHaveCount(0);
  await animationsDone(page);
}

test.describe('the console with axe-core and the keyboard', () => {
  test.describe.configure({ timeout: 240_000 });

  test('every console route of the route table and the states behind it', async ({ page }) => {
    const found: string[] = [];
    const seen = new Set<string>();
    const check = async (route: string, state = route) => {
      seen.add(route);
      await settled(page);
      found.push(...(await violations(page, state)));
    };

    // Public pages.
    await page.goto(StaffRoutes.signIn);
    await check(StaffRoutes.signIn);
    await page.goto(StaffRoutes.notFound);
    await check(StaffRoutes.notFound);
    await page.goto(StaffRoutes.list);
    await check(StaffRoutes.list);
    await page.goto(`${StaffRoutes.setPassword}?token=not-a-link`);
    await expect(page.getByTestId('link-invalid')).toBeVisible();
    await check(StaffRoutes.setPassword);

    // The requests.
    await signInAsDemo(page);
    const key = await apiKey(page);
    const refId = await completedRequest(page.request, key, 'Asha Rao');
    const sent = await uploadDraft(page);
    await processDraft(page, sent.refId);
    const draft = await uploadDraft(page);
    await saveDraft(page, draft);
    await page.goto(StaffRoutes.dashboard);
    await check(StaffRoutes.dashboard);
    await page.locator('[data-testid="requests"] tbody tr').first().getByText('normal.pdf').click();
    await expect(page.getByTestId('party-table')).toBeVisible();
    await check(StaffRoutes.dashboard, 'dashboard, a row expanded');
    await page.goto(StaffRoutes.drafts);
    await check(StaffRoutes.drafts);
    await page.goto(StaffRoutes.requests);
    await expect(page).toHaveURL(/\/dashboard$/);
    seen.add(StaffRoutes.requests);
    await page.goto(StaffRoutes.requestShow.replace(':id', String(refId)));
    await expect(page.getByTestId('verification-verdict')).toBeVisible();
    await check(StaffRoutes.requestShow, 'a completed request');
    await page.goto(StaffRoutes.requestShow.replace(':id', String(sent.refId)));
    await expect(page.getByTestId('verification')).toContainText(C.request.verificationNone);
    await page.getByRole('button', { name: C.request.cancel }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await check(StaffRoutes.requestShow, 'the cancel dialog');
    await page.keyboard.press('Escape');

    // The creation flow: Initiate (the file dialog and the template picker), the placement, the confirmation.
    await page.goto(StaffRoutes.requestInitiate);
    await check(StaffRoutes.requestInitiate);
    await page.getByLabel(Messages.selectFileUploadType, { exact: true }).click();
    await page.getByRole('option', { name: Messages.chooseFile, exact: true }).click();
    await expect(page.getByText(Messages.fileNoteOnlyPdf)).toBeVisible();
    // The select's list fades out after the choice: axe reads its half-transparent options as low contrast.
    await expect(page.locator('li[role="option"]')).toHaveCount(0);
    await check(StaffRoutes.requestInitiate, 'the file dialog');
    await page.getByRole('button', { name: Messages.cancelButton }).click();
    await page.getByLabel(Messages.selectFileUploadType, { exact: true }).click();
    await page.getByRole('option', { name: Messages.chooseTemplate, exact: true }).click();
    await expect(page.getByRole('dialog', { name: Messages.pickTemplate })).toBeVisible();
    await expect(page.locator('li[role="option"]')).toHaveCount(0);
    await check(StaffRoutes.requestInitiate, 'the template picker');
    await page.getByRole('button', { name: Messages.cancelButton }).click();
    const upload = await uploadDraft(page);
    await storeUpload(page, upload);
    await page.goto(StaffRoutes.upload);
    await expect(page.getByTestId('current-signer')).toBeVisible();
    await expect(page.getByTestId('signature-box').first()).toBeVisible();
    await check(StaffRoutes.upload);
    await page.goto(StaffRoutes.mailSent);
    await check(StaffRoutes.mailSent);

    // Templates, the outbox.
    await page.goto(StaffRoutes.templates);
    await check(StaffRoutes.templates);
    await page.goto(StaffRoutes.templateCreate);
    await check(StaffRoutes.templateCreate);
    await page.goto(StaffRoutes.outbox);
    await expect(page.getByTestId('outbox-message').first()).toBeVisible();
    await check(StaffRoutes.outbox);

    // The administration.
    await page.goto(StaffRoutes.settings);
    await expect(page.getByTestId('seal-info')).toBeVisible();
    await check(StaffRoutes.settings);
    await page.goto(StaffRoutes.users);
    await check(StaffRoutes.users);
    await page.goto(StaffRoutes.userCreate);
    await check(StaffRoutes.userCreate);
    await page.goto(StaffRoutes.users);
    await page.getByTestId('users').getByRole('link').first().click();
    await expect(page).toHaveURL(/\/users\/[^/]+$/);
    await check(StaffRoutes.userEdit);
    await page.goto(StaffRoutes.apiKeys);
    await check(StaffRoutes.apiKeys);
    await page.goto(StaffRoutes.apiKeyCreate);
    await page.getByLabel(C.apiKeys.name, { exact: true }).fill('a11y');
    await page.getByRole('button', { name: en.ra.action.save }).click();
    await expect(page.getByRole('dialog', { name: C.apiKeys.keyTitle })).toBeVisible();
    await check(StaffRoutes.apiKeyCreate, 'the key shown once');
    await page.getByRole('button', { name: C.apiKeys.done }).click();
    await page.goto(StaffRoutes.webhookCreate);
    await check(StaffRoutes.webhookCreate);
    await page.getByLabel(C.webhooks.url, { exact: true }).fill('http://127.0.0.1:9/a11y');
    await page.getByRole('button', { name: en.ra.action.save }).click();
    await expect(page.getByRole('dialog', { name: C.webhooks.secretTitle })).toBeVisible();
    await check(StaffRoutes.webhookCreate, 'the secret shown once');
    await page.getByRole('button', { name: C.apiKeys.done }).click();
    await expect(page).toHaveURL(/\/webhooks\/[^/]+\/show$/);
    const webhook = page.url();
    await check(StaffRoutes.webhookShow);
    await page.goto(StaffRoutes.webhooks);
    await check(StaffRoutes.webhooks);
    await page.goto(StaffRoutes.deliveries);
    await check(StaffRoutes.deliveries);
    // Issue 24: a signer's data, and its erasure's confirmation (cancelled: nothing is erased).
    await page.goto(StaffRoutes.signerData);
    await check(StaffRoutes.signerData);
    await page.getByLabel(C.signerData.identifier).fill('nobody@example.in');
    await page.getByRole('button', { name: C.signerData.erase }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await check(StaffRoutes.signerData, 'the erasure dialog');
    await page.getByRole('dialog').getByRole('button', { name: C.signerData.cancel }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);

    // The console in Hindi: the dashboard and the settings.
    await page.getByTestId('language-switch').click();
    await page.getByRole('menuitem', { name: 'हिन्दी' }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'hi');
    await page.goto(StaffRoutes.dashboard);
    await expect(page.getByRole('heading', { name: hi.esign.requestsDetails })).toBeVisible();
    await check(StaffRoutes.dashboard, 'the dashboard in Hindi');
    await page.goto(StaffRoutes.settings);
    await check(StaffRoutes.settings, 'the settings in Hindi');
    await page.getByTestId('language-switch').click();
    await page.getByRole('menuitem', { name: 'English' }).click();

    // Tidy up what the journey made in the demo organisation.
    await page.goto(webhook);
    await page.getByRole('button', { name: C.webhooks.delete }).click();
    await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
    await expect(page).toHaveURL(/\/webhooks$/);

    // Every route of the console's table was looked at.
    expect(CONSOLE_ROUTES.filter((route) => !seen.has(route))).toEqual([]);
    expect(found).toEqual([]);
  });

  test("a staff user's 'not allowed' page", async ({ page }) => {
    // Made by the administration journey's own path would take a minute; the page is the same for any staff user.
    await signInAsDemo(page);
    await page.route('**/api/whoami', (route) =>
      route.fulfill({ json: { kind: 'session', orgId: DEMO.orgId, username: 'staff', keyName: null, role: 'staff' } }),
    );
    await page.goto(StaffRoutes.users);
    await expect(page.getByTestId('not-allowed')).toBeVisible();
    await settled(page);
    expect(await violations(page, 'not allowed')).toEqual([]);
  });

  test('the console by keyboard alone: sign-in, the language, the menu, a form, a row, a request page and its dialog', async ({
    page,
  }) => {
    /** Presses Tab until `target` has the focus (at most `max` times). */
    const tabTo = async (target: ReturnType<Page['locator']>, max = 60) => {
      await target.waitFor();
      for (let i = 0; i < max; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error('not reached by Tab');
    };

    // Sign in: the username field has the focus; Tab to the password; Enter submits.
    await page.goto(StaffRoutes.signIn);
    // Typed once the page has put the focus there (before that, the keys go nowhere and the name arrives cut).
    await expect(page.locator('input[name="username"]')).toBeFocused();
    await page.keyboard.type(DEMO.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(DEMO.password);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/dashboard$/);
    const key = await apiKey(page);
    const refId = await completedRequest(page.request, key, 'Keya Sen');
    await page.reload();

    // The language switch: open it, choose Hindi, then English again.
    await tabTo(page.getByTestId('language-switch'));
    await page.keyboard.press('Enter');
    await expect(page.getByRole('menu')).toBeVisible();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(page.locator('html')).toHaveAttribute('lang', 'hi');
    await expect(page.getByRole('button', { name: hi.esign.initiateContract })).toBeVisible();
    await page.getByTestId('language-switch').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');

    // A row of the dashboard: its expand button, then the link to the request's page.
    await page.getByPlaceholder(Messages.searchPlaceholder).fill(String(refId));
    await expect(page.locator('[data-testid="requests"] tbody tr')).toHaveCount(1);
    await tabTo(page.locator('[data-testid="requests"] tbody tr').first());
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('party-table')).toBeVisible();
    await tabTo(page.getByTestId('request-page-link'));
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/requests/${refId}/show$`));

    // The request page's duplicate: its dialog answers the keyboard (Escape closes it, the focus comes back).
    const duplicate = page.getByRole('button', { name: C.common.duplicate });
    await tabTo(duplicate);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog')).toContainText(Messages.duplicateConfirm);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(duplicate).toBeFocused();

    // The administration: the menu's Users, then the invitation form filled and saved by keyboard.
    await tabTo(page.getByRole('menuitem', { name: C.layout.users }));
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/users/);
    await tabTo(page.getByRole('link', { name: C.users.invite }));
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/users\/create$/);
    const username = `kbd.${Date.now().toString(36).slice(-5)}`;
    await tabTo(page.getByLabel(C.users.username, { exact: true }));
    await page.keyboard.type(username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(`${username}@example.in`);
    await tabTo(page.getByRole('button', { name: en.ra.action.save }));
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('users').locator('tbody tr', { hasText: username })).toBeVisible();
  });
});
