import { defineConfig } from '@playwright/test';

/**
 * Journeys in real Chromium (Debian's, never a downloaded one) against the built API, which the global setup starts
 * on a free port with a throwaway DATA_DIR. Set E2E_BASE_URL to run against a server that is already up instead.
 */
export default defineConfig({
  testDir: 'e2e',
  workers: 1,
  retries: 0,
  reporter: 'list',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  globalSetup: './e2e/global-setup.ts',
  use: {
    // A trace records every step of every test (screenshots, DOM snapshots): a quarter of the journeys' time on two
    // cores, and CI keeps only what the run printed. So CI records none; E2E_TRACE=on or off overrides either way.
    trace: (process.env.E2E_TRACE ?? (process.env.CI ? 'off' : 'on')) === 'off' ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
});
