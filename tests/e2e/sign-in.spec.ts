import {
  Headers as ApiHeaders,
  Messages,
  RecipientListTexts,
  StaffRoutes,
  SignerRoutes,
  logoPath,
} from '@esign/contract';
import type { Page } from '@playwright/test';
import { DEMO, expect, shot, storage, test } from './fixtures';

const signIn = async (page: Page, username: string, password: string) => {
  await page.getByLabel(Messages.usernameLabel, { exact: true }).fill(username);
  await page.getByLabel(Messages.passwordLabel, { exact: true }).fill(password);
  await page.getByRole('button', { name: Messages.loginButton }).click();
};

const errorLine = (page: Page) => page.getByTestId('login-error');

const path = (pathname: string) => new RegExp(`^[^?#]*//[^/]+${pathname.replace(/[/.]/g, '\\$&')}(\\?.*)?$`);

test.describe('staff sign-in', () => {
  test('/ lands on the sign-in page', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(path(StaffRoutes.signIn));
    await expect(page.getByLabel(Messages.usernameLabel, { exact: true })).toBeVisible();
    await expect(page.getByLabel(Messages.passwordLabel, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: Messages.loginButton })).toBeVisible();
    await shot(page, 'sign-in');
  });

  test('Login with empty fields says so without asking the server', async ({ page }) => {
    const consumerCalls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/consumers')) consumerCalls.push(request.url());
    });
    await page.goto(StaffRoutes.signIn);
    await page.getByRole('button', { name: Messages.loginButton }).click();
    await expect(errorLine(page)).toHaveText(Messages.loginFieldsEmpty);

    await page.getByLabel(Messages.usernameLabel, { exact: true }).fill('demo');
    await page.getByRole('button', { name: Messages.loginButton }).click();
    await expect(errorLine(page)).toHaveText(Messages.loginFieldsEmpty);
    expect(consumerCalls).toEqual([]);
  });

  test("a wrong password shows 'User doesn't exist !'", async ({ page }) => {
    await page.goto(StaffRoutes.signIn);
    await signIn(page, 'nobody', 'not-the-password');
    await expect(errorLine(page)).toHaveText(Messages.userDoesNotExist);
    await signIn(page, 'nobody', 'still-not-it');
    await expect(errorLine(page)).toHaveText(Messages.userDoesNotExist);
    await expect(page).toHaveURL(path(StaffRoutes.signIn));
    expect(await storage(page)).toEqual({});
  });

  test('repeated failures are throttled with the server message', async ({ page }) => {
    await page.goto(StaffRoutes.signIn);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const answer = page.waitForResponse((response) => response.url().includes('/consumers/throttled/key-auth'));
      await signIn(page, 'throttled', `wrong-${attempt}`);
      expect((await answer).status()).toBe(401);
      await expect(errorLine(page)).toHaveText(Messages.userDoesNotExist);
    }
    await signIn(page, 'throttled', 'wrong-6');
    await expect(errorLine(page)).toHaveText(Messages.tooManyLoginFailures);
  });

  test('demo signs in, sees the dashboard, and signing out revokes the key', async ({ page }) => {
    await page.goto(StaffRoutes.signIn);
    await signIn(page, DEMO.username, DEMO.password);
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));

    await expect(page.getByRole('heading', { name: Messages.requestsDetails })).toBeVisible();
    await expect(page.getByRole('button', { name: Messages.initiateContract })).toBeVisible();
    await expect(page.getByRole('menuitem', { name: Messages.navDashboard })).toBeVisible();
    await expect(page.getByRole('menuitem', { name: Messages.navDrafts })).toBeVisible();

    const logo = page.getByTestId('org-logo');
    await expect(logo).toHaveAttribute('src', logoPath(DEMO.orgId));
    await expect
      .poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);

    const badge = page.getByTestId('mode-badge');
    await expect(badge).toHaveText(Messages.testBadge);
    await badge.hover();
    await expect(page.getByRole('tooltip')).toHaveText(Messages.testModeTooltip);
    await page.mouse.move(0, 0);
    await shot(page, 'dashboard');

    const session = await storage(page);
    expect(session).toMatchObject({ username: DEMO.username, orgId: DEMO.orgId, status: 'test' });
    expect(session.api_key).toBeTruthy();
    expect(session.tag).toBeTruthy();
    const withKey = { headers: { [ApiHeaders.apiKey]: session.api_key } };
    expect((await page.request.get(`/api/organisations/${DEMO.orgId}`, withKey)).status()).toBe(200);

    await page.getByRole('menuitem', { name: Messages.navDrafts }).click();
    await expect(page).toHaveURL(path(StaffRoutes.drafts));
    await expect(page.getByRole('heading', { name: Messages.draftRequests })).toBeVisible();
    await page.getByRole('menuitem', { name: Messages.navDashboard }).click();
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await expect(page).toHaveURL(path(StaffRoutes.requestInitiate));
    await expect(page.getByRole('heading', { name: Messages.initiateRequestHeading })).toBeVisible();

    await page.getByRole('button', { name: Messages.signOut }).click();
    await expect(page).toHaveURL(path(StaffRoutes.signIn));
    await expect(page.getByRole('button', { name: Messages.loginButton })).toBeVisible();
    expect(await storage(page)).toEqual({});
    expect((await page.request.get(`/api/organisations/${DEMO.orgId}`, withKey)).status()).toBe(401);
  });

  test('/mail-sent offers the way back to the dashboard', async ({ page }) => {
    await page.goto(StaffRoutes.signIn);
    await signIn(page, DEMO.username, DEMO.password);
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));
    await page.goto(StaffRoutes.mailSent);
    await expect(page.getByRole('heading', { name: Messages.mailSent })).toBeVisible();
    await page.getByRole('link', { name: Messages.goToDashboard }).click();
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));
    await page.getByRole('button', { name: Messages.signOut }).click();
    await expect(page).toHaveURL(path(StaffRoutes.signIn));
  });

  test('staff pages without a session go to the sign-in page', async ({ page }) => {
    for (const route of [StaffRoutes.dashboard, StaffRoutes.drafts, StaffRoutes.mailSent]) {
      await page.goto(route);
      await expect(page).toHaveURL(path(StaffRoutes.signIn));
      await expect(page.getByRole('button', { name: Messages.loginButton })).toBeVisible();
    }
  });

  test('the sign-in page ends a stored session', async ({ page }) => {
    await page.goto(StaffRoutes.signIn);
    await signIn(page, DEMO.username, DEMO.password);
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));
    const { api_key } = await storage(page);
    await page.goto(StaffRoutes.signIn);
    await expect(page.getByRole('button', { name: Messages.loginButton })).toBeVisible();
    await expect.poll(() => storage(page)).toEqual({});
    const withKey = { headers: { [ApiHeaders.apiKey]: api_key } };
    await expect
      .poll(async () => (await page.request.get(`/api/organisations/${DEMO.orgId}`, withKey)).status())
      .toBe(401);
    await page.goto(StaffRoutes.dashboard);
    await expect(page).toHaveURL(path(StaffRoutes.signIn));
  });

  test('an hour without activity signs the user out; activity keeps the session', async ({ page }) => {
    await page.clock.install();
    await page.goto(StaffRoutes.signIn);
    await signIn(page, DEMO.username, DEMO.password);
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));
    const { api_key } = await storage(page);

    await page.clock.fastForward('59:00');
    await page.mouse.move(200, 300);
    await page.clock.fastForward('59:00');
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));

    await page.clock.fastForward('01:00:01');
    await expect(page).toHaveURL(path(StaffRoutes.signIn), { timeout: 15_000 });
    expect(await storage(page)).toEqual({});
    const withKey = { headers: { [ApiHeaders.apiKey]: api_key } };
    await expect
      .poll(async () => (await page.request.get(`/api/organisations/${DEMO.orgId}`, withKey)).status())
      .toBe(401);
  });
});

test.describe('public pages', () => {
  test('an unknown page ends at /not-found', async ({ page }) => {
    await page.goto('/some/unknown/page');
    await expect(page).toHaveURL(path(StaffRoutes.notFound));
    await expect(page.getByText(Messages.notFoundPage, { exact: true })).toBeVisible();
  });

  test('/not-found shows the 404 text', async ({ page }) => {
    await page.goto(StaffRoutes.notFound);
    await expect(page.getByRole('heading')).toHaveText(Messages.notFoundPage);
  });

  test('/retry-mail-sent confirms the mail', async ({ page }) => {
    await page.goto(SignerRoutes.retryMailSent);
    await expect(page.getByRole('heading')).toHaveText(Messages.mailSent);
  });

  test("/list shows the client layout with the recipient's own list, and nothing of the staff console", async ({
    page,
  }) => {
    const response = await page.goto(StaffRoutes.list);
    expect(response?.status()).toBe(200);
    await expect(page).toHaveURL(path(StaffRoutes.list));
    await expect(page.getByRole('main').getByRole('heading', { name: RecipientListTexts.heading })).toBeVisible();
    await expect(page.getByRole('button', { name: Messages.signOut })).toHaveCount(0);
    await expect(page.getByRole('link', { name: Messages.navDashboard })).toHaveCount(0);
  });
});
