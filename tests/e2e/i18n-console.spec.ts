import { AdminMessages, Messages, StaffRoutes } from '@esign/contract';
import type { Page } from '@playwright/test';
import { en } from '../../admin/src/i18n/en';
import { hi } from '../../admin/src/i18n/hi';
import { signInAsDemo } from './console';
import { DEMO, expect, shot, storage, test } from './fixtures';

/**
 * Issue 22, the console's languages: the Hindi catalogue has every key of the English one (react-admin's own texts
 * and the console's) and nothing else, with the same %{marks}; English is the contract's texts word for word; the
 * switch in the top bar changes the console's language, remembers it, and English reads exactly as before.
 */

type Tree = { [key: string]: string | Tree };

/** Every text of a catalogue by its dotted key. */
const leaves = (tree: Tree, prefix = ''): Map<string, string> => {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(`${prefix}${key}`, value);
    else for (const [k, v] of leaves(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
};
/**
 * Waits until the dashboard reads as it will stay: the administrator's menu shown (it follows the permissions call),
 * nothing loading, and its text the same twice in a row.
 */
async function settledDashboard(page: Page): Promise<void> {
  await expect(page.getByRole('menuitem', { name: Messages.navSettings, exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');
  await expect(page.locator('.MuiLinearProgress-root[role="progressbar"]:not([aria-valuenow])')).toHaveCount(0);
  // The same text twice, half a second apart (the rows, when there are any, are in).
  let before = '';
  await expect
    .poll(
      async () => {
        const now = await page.getByRole('main').innerText();
        const same = now === before;
        before = now;
        return same;
      },
      { intervals: [500] },
    )
    .toBe(true);
}

const marks = (text: string) => [...text.matchAll(/%\{(\w+)\}/g)].map((m) => m[1]).sort();
const plurals = (text: string) => text.split(' |||| ').length;

test.describe("the console's catalogues", () => {
  const english = leaves(en as unknown as Tree);
  const hindi = leaves(hi as unknown as Tree);

  test('the Hindi catalogue has every key of the English one, and no other', () => {
    const missing = [...english.keys()].filter((key) => !hindi.has(key));
    const extra = [...hindi.keys()].filter((key) => !english.has(key));
    expect(missing, 'keys the Hindi catalogue misses').toEqual([]);
    expect(extra, 'keys only the Hindi catalogue has').toEqual([]);
    expect(english.size).toBeGreaterThan(500);
  });

  test('each Hindi text keeps the values and plural forms of its English one, and is written in Devanagari', () => {
    const problems: string[] = [];
    let devanagari = 0;
    for (const [key, text] of english) {
      const other = hindi.get(key) ?? '';
      if (marks(text).join() !== marks(other).join())
        problems.push(`${key}: ${marks(other)} instead of ${marks(text)}`);
      if (plurals(text) !== plurals(other))
        problems.push(`${key}: ${plurals(other)} plural forms, not ${plurals(text)}`);
      if (/[\u0900-\u097F]/.test(other)) devanagari++;
    }
    expect(problems).toEqual([]);
    // Names (DSC, SHA-256, a value alone) stay as they are; everything else is Hindi.
    expect(devanagari / english.size).toBeGreaterThan(0.95);
  });

  test("English is the contract's texts word for word (its {marks} as Polyglot's %{marks})", () => {
    for (const [key, text] of Object.entries(Messages))
      if (typeof text === 'string')
        expect(en.esign[key as keyof typeof en.esign]).toBe(text.replace(/\{(\w+)\}/g, '%{$1}'));
    for (const [key, text] of Object.entries(AdminMessages))
      expect(en.admin[key as keyof typeof en.admin]).toBe(text.replace(/\{(\w+)\}/g, '%{$1}'));
  });
});

test.describe('the language switch', () => {
  test('Hindi from the top bar, remembered across a reload and a sign-out; English again reads as before', async ({
    page,
  }) => {
    await signInAsDemo(page);
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    // The dashboard as it reads once settled: the administrator's menu (after the permissions call) and the rows.
    await settledDashboard(page);
    const english = await page.getByRole('main').innerText();

    await page.getByTestId('language-switch').click();
    await page.getByRole('menuitem', { name: 'हिन्दी' }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'hi');
    await expect(page.getByRole('heading', { name: hi.esign.requestsDetails })).toBeVisible();
    await expect(page.getByRole('button', { name: hi.esign.initiateContract })).toBeVisible();
    await expect(page.getByRole('menuitem', { name: hi.esign.navDrafts })).toBeVisible();
    // The Devanagari letters are drawn with the shipped font, not left to the computer.
    await expect
      .poll(() => page.evaluate(() => document.fonts.check('16px "Noto Sans Devanagari"', 'अनुरोध')))
      .toBe(true);

    await shot(page, 'console-hindi-dashboard');
    await page.goto(StaffRoutes.requestInitiate);
    await expect(page.getByRole('heading', { name: hi.esign.initiateRequestHeading })).toBeVisible();
    await shot(page, 'console-hindi-initiate');
    await page.goto(StaffRoutes.dashboard);

    // Remembered: after a reload, and on the sign-in page after signing out (which clears the session values only).
    await page.reload();
    await expect(page.getByRole('heading', { name: hi.esign.requestsDetails })).toBeVisible();
    await page.getByRole('button', { name: hi.esign.signOut }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole('button', { name: hi.esign.loginButton })).toBeVisible();
    expect(await storage(page)).toEqual({ console_language: 'hi' });
    await page.getByRole('button', { name: hi.esign.loginButton }).click();
    await expect(page.getByTestId('login-error')).toHaveText(hi.esign.loginFieldsEmpty);

    // English again: the switch forgets the choice, and the dashboard reads exactly as it did.
    await page.getByLabel(hi.esign.usernameLabel, { exact: true }).fill(DEMO.username);
    await page.getByLabel(hi.esign.passwordLabel, { exact: true }).fill(DEMO.password);
    await page.getByRole('button', { name: hi.esign.loginButton }).click();
    await expect(page).toHaveURL(new RegExp(`${StaffRoutes.dashboard}$`));
    await page.getByTestId('language-switch').click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.getByRole('heading', { name: Messages.requestsDetails })).toBeVisible();
    await settledDashboard(page);
    expect(await page.getByRole('main').innerText()).toBe(english);
    expect((await storage(page)).console_language).toBeUndefined();
  });
});
