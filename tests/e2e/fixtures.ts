import { test as base } from '@playwright/test';
import type { Page } from '@playwright/test';
import path from 'node:path';
import { fixturePath, sharedDir } from '@esign/test-support';

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

/**
 * Waits until every finite animation and transition of the page has ended (spinners run forever and are left out):
 * axe-core reads a button that is still fading in (MUI's dialogs, menus, the signer app's steps) as low contrast.
 */
export const animationsDone = (page: Page): Promise<unknown> =>
  page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY),
  );

/**
 * Saves a screenshot of the screen (for looking at, not for asserting): into E2E_SHOTS_DIR when set, else into
 * tests/test-results/screens, which CI keeps with the test output.
 */
export const shot = async (page: Page, name: string): Promise<void> => {
  const dir = process.env.E2E_SHOTS_DIR ?? path.join(__dirname, '..', 'test-results', 'screens');
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
};

/** The shared folder beside the checkout (or SHARED_DIR), as every suite finds it: fixtures and tools. */
export { sharedDir };

/** A shared fixture file. */
export const fixture = fixturePath;
