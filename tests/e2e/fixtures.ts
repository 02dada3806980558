import { test as base } from '@playwright/test';
import type { Page } from '@playwright/test';

export { expect } from '@playwright/test';

/** Every journey runs against the server the global setup started (or E2E_BASE_URL when given). */
export const test = base.extend({
  // Playwright requires the destructuring pattern even when no other fixture is used.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => {
    await use(process.env.E2E_BASE_URL);
  },
});

export const DEMO = { username: 'demo', password: 'demo1234', orgId: 'demo' } as const;

/** Everything the page keeps in local storage, as a plain object. */
export const storage = (page: Page): Promise<Record<string, string>> =>
  page.evaluate(() => Object.fromEntries(Object.entries(localStorage)));

/** Saves a screenshot when E2E_SHOTS_DIR is set (for looking at the screens, not for asserting). */
export const shot = async (page: Page, name: string): Promise<void> => {
  const dir = process.env.E2E_SHOTS_DIR;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
};
