import AxeBuilder from '@axe-core/playwright';
import { Messages, SIGNER_ERASED_DATA, StaffRoutes, WatchdogMessages } from '@esign/contract';
import type { RequestListItem, WatchdogFinding } from '@esign/contract';
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { en } from '../../admin/src/i18n/en';
import { animationsDone, DEMO, expect, test } from './fixtures';
import { startOwnServer, type OwnServer } from './support/own-server';
import { completedRequest, requestStatus, signedRequest, staffKey } from './support/requests';

/**
 * Issue 24 in the console, against a server this file starts for itself (support/own-server.ts): the seal's test fault
 * point (ESIGN_TEST_FAULTS, as api/test/watchdog.test.ts uses it), a watchdog that scans every minute, and a clock the
 * journey moves forward as the API tests move theirs (support/shift-clock.cjs). (a) A seal that fails past its attempts
 * and the watchdog's own retries shows as the dashboard's banner to an administrator, not to a staff user; once the
 * fault ends, its Retry completes the request. (b) Retention set on /settings and shown again after a reload; with 1
 * day and the clock moved 2, the request is archived on the dashboard and on its page (hashes, the chain's verdict).
 * (c) A signer's data: the export downloaded and its manifest read, the erasure confirmed; the signed document still
 * verifies.
 */

const C = en.console;
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const FAULT = 'seal.before-completion';

/** The serious and critical violations axe finds on the page as it is now. */
async function violations(page: Page): Promise<string[]> {
  await animationsDone(page);
  const { violations: found } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 160)).join(', ')}`);
}

async function signIn(page: Page, username: string = DEMO.username, password: string = DEMO.password) {
  await page.goto(StaffRoutes.signIn);
  await page.getByLabel(Messages.usernameLabel, { exact: true }).fill(username);
  await page.getByLabel(Messages.passwordLabel, { exact: true }).fill(password);
  await page.getByRole('button', { name: Messages.loginButton }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

const findings = async (api: APIRequestContext, key: string): Promise<WatchdogFinding[]> =>
  (await (
    await api.get(`/api/watchdog/findings?filter=${encodeURIComponent('{"resolved":false}')}`, {
      headers: { apikey: key },
    })
  ).json()) as WatchdogFinding[];

const listItem = async (api: APIRequestContext, key: string, refId: number): Promise<RequestListItem> =>
  (await (await api.get(`/api/requests/${refId}`, { headers: { apikey: key } })).json()) as RequestListItem;

test.describe.serial('issue 24 in the console: the watchdog, retention and a signer’s data', () => {
  test.describe.configure({ timeout: 240_000 });
  let server: OwnServer;
  let context: BrowserContext;
  let page: Page;
  let sealedRefId: number;
  let staffContext: BrowserContext;

  test.beforeAll(async ({ browser }) => {
    // The seal fails until the journey ends the fault (its count written as used up, as a restart would find it).
    server = await startOwnServer({ ESIGN_TEST_FAULTS: `${FAULT}=fail*1000`, WATCHDOG_INTERVAL_SECONDS: '60' });
    context = await browser.newContext({ baseURL: server.baseUrl, acceptDownloads: true });
    page = await context.newPage();
    staffContext = await browser.newContext({ baseURL: server.baseUrl });
  });

  test.afterAll(async () => {
    await context?.close();
    await staffContext?.close();
    await server?.stop();
  });

  test('a seal stuck past its attempts and the watchdog’s retries: the banner, its Retry completes the request', async () => {
    const api = context.request;
    let key = await staffKey(api);
    const refId = await signedRequest(api, key, 'Mira Shah', DEMO.orgId, {
      email: 'mira.shah@example.in',
      phoneNumber: '9876505555',
    });
    // The seal job's attempts and the watchdog's retries, each after the jobs' backoff: the clock moves an hour at a
    // time until the watchdog gives up and reports it.
    let finding: WatchdogFinding | undefined;
    for (let hour = 0; hour < 60 && finding?.state !== 'reported'; hour++) {
      await server.advance(3600);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      key = await staffKey(api);
      finding = (await findings(api, key)).find((f) => f.refId === refId);
    }
    expect(finding).toMatchObject({ refId, kind: 'seal_stuck', state: 'reported', retryable: true });
    expect(await requestStatus(api, key, refId)).toBe('in-progress');

    await signIn(page);
    const banner = page.getByTestId('watchdog-banner');
    await expect(banner.getByRole('heading', { name: WatchdogMessages.bannerTitle })).toBeVisible();
    const line = banner.getByTestId('watchdog-finding').filter({ hasText: String(refId) });
    await expect(line).toContainText(C.watchdog.kinds.seal_stuck);
    await expect(line).toContainText(finding!.detail);
    await expect(line.getByRole('link', { name: String(refId), exact: true })).toHaveAttribute(
      'href',
      `/requests/${refId}/show`,
    );
    // The dashboard is the specification's otherwise.
    await expect(page.getByRole('heading', { name: Messages.requestsDetails })).toBeVisible();
    expect(await violations(page)).toEqual([]);

    // A staff user sees the dashboard without it (the management command, on this server's DATA_DIR).
    execFileSync(
      process.execPath,
      [
        path.join(__dirname, '..', '..', 'api', 'dist', 'manage.js'),
        ...['create-user', '--org', DEMO.orgId, '--username', 'sunil', '--password', 'sunil-password-1'],
        ...['--role', 'staff'],
      ],
      { env: { ...process.env, DATA_DIR: server.dataDir, PUBLIC_URL: server.baseUrl, LOG_LEVEL: 'warn' } },
    );
    const staffPage = await staffContext.newPage();
    await signIn(staffPage, 'sunil', 'sunil-password-1');
    await expect(staffPage.getByTestId('requests').locator('tbody tr', { hasText: String(refId) })).toHaveCount(1);
    await expect(staffPage.getByTestId('watchdog-banner')).toHaveCount(0);

    // The fault ends (as a repaired seal key would), then the person's Retry: the request completes, the banner goes.
    mkdirSync(path.join(server.dataDir, 'test-faults'), { recursive: true });
    writeFileSync(path.join(server.dataDir, 'test-faults', FAULT), 'x'.repeat(1000));
    await line.getByRole('button', { name: WatchdogMessages.bannerRetry }).click();
    await expect(page.getByRole('alert').filter({ hasText: WatchdogMessages.retried })).toBeVisible();
    await expect.poll(() => requestStatus(api, key, refId), { timeout: 60_000 }).toBe('completed');
    // The finding is resolved by the watchdog's next scan (every minute of the server's clock); then no banner.
    await expect
      .poll(
        async () => {
          await server.advance(120);
          return (await findings(api, key)).filter((f) => f.refId === refId).length;
        },
        { timeout: 30_000 },
      )
      .toBe(0);
    await page.reload();
    await expect(page.getByRole('heading', { name: Messages.requestsDetails })).toBeVisible();
    await expect(page.getByTestId('watchdog-banner')).toHaveCount(0);
    sealedRefId = refId;
  });

  test('retention saved and shown again; with 1 day and the clock moved 2, the request is archived', async () => {
    await signIn(page);
    await page.goto(StaffRoutes.settings);
    const documents = page.getByLabel(C.retention.documents);
    const media = page.getByLabel(C.retention.media);
    await expect(documents).toHaveValue('');
    // The API's own rules, said before saving: a media period longer than the documents'.
    await documents.fill('1');
    await media.fill('5');
    await expect(page.getByTestId('media_retention_days')).toContainText(en.retention.mediaLonger);
    await expect(page.getByRole('button', { name: Messages.settingsSave })).toBeDisabled();
    await media.fill('1');
    await page.getByRole('button', { name: Messages.settingsSave }).click();
    await expect(page.getByRole('alert').filter({ hasText: Messages.settingsSaved })).toBeVisible();
    await page.reload();
    await expect(page.getByLabel(C.retention.documents)).toHaveValue('1');
    await expect(page.getByLabel(C.retention.media)).toHaveValue('1');

    // Two days later the retention job has deleted the completed request's files.
    await server.advance(2 * 86400);
    const api = context.request;
    await expect
      .poll(
        async () => {
          await server.advance(3600);
          return (await listItem(api, await staffKey(api), sealedRefId)).archived ?? false;
        },
        { timeout: 60_000 },
      )
      .toBe(true);

    await signIn(page);
    const row = page
      .getByTestId('requests')
      .locator('tbody tr', { hasText: String(sealedRefId) })
      .first();
    await expect(row.getByTestId('archived')).toHaveText(C.request.archived);
    // The status text stays the list's own.
    await expect(row.getByTestId('status-text')).toHaveText(
      (await listItem(context.request, await staffKey(context.request), sealedRefId)).status_text,
    );
    await page.goto(StaffRoutes.requestShow.replace(':id', String(sealedRefId)));
    const archived = page.getByTestId('archived-documents');
    await expect(archived).toContainText(C.request.archivedHashes);
    await expect(archived.getByTestId('archived-hash')).toHaveCount(2);
    await expect(archived.getByRole('link')).toHaveCount(0);
    await expect(page.getByTestId('chain-verdict')).toHaveAttribute('data-intact', 'true');
    await expect(page.getByTestId('verification')).toContainText(en.retention.filesDeleted);
    expect(await violations(page)).toEqual([]);
  });

  test('a signer’s data: the export downloaded and read, the erasure confirmed, the document still verifies', async () => {
    const api = context.request;
    const email = 'asha.verma@example.in';
    const refId = await completedRequest(api, await staffKey(api), 'Asha Verma', DEMO.orgId, {
      email,
      phoneNumber: '9876506666',
    });
    await signIn(page);
    await page.getByRole('menuitem', { name: C.layout.signerData, exact: true }).click();
    await expect(page).toHaveURL(/\/signer-data$/);
    await expect(page.getByRole('heading', { name: C.signerData.title })).toBeVisible();
    // A bad address: the API's own rule, before any call.
    await page.getByLabel(C.signerData.identifier).fill('not an address');
    await page.getByRole('button', { name: C.signerData.export }).click();
    await expect(page.getByText(en.signers.notAnAddress)).toBeVisible();

    await page.getByLabel(C.signerData.identifier).fill(email.toUpperCase());
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: C.signerData.export }).click(),
    ]);
    const file = test.info().outputPath('signer-export.zip');
    await download.saveAs(file);
    const manifest = JSON.parse(execFileSync('unzip', ['-p', file, 'manifest.json'], { encoding: 'utf8' })) as {
      format: string;
      identifier: string;
      parties: { email: string }[];
      requests: { ref_id: number }[];
    };
    expect(manifest.format).toBe('esign-signer-export');
    expect(manifest.identifier).toBe(email);
    expect(manifest.requests.map((r) => r.ref_id)).toEqual([refId]);
    expect(manifest.parties.map((p) => p.email)).toEqual([email]);
    expect(JSON.stringify(manifest)).not.toContain('mira.shah@example.in');

    await page.getByRole('button', { name: C.signerData.erase }).click();
    const dialog = page.getByRole('dialog');
    for (const item of SIGNER_ERASED_DATA)
      await expect(dialog.getByTestId('erase-list')).toContainText(C.signerData.data[item]);
    await expect(dialog).toContainText(en.signers.kept);
    expect(await violations(page)).toEqual([]);
    await dialog.getByRole('button', { name: C.signerData.eraseConfirm }).click();
    const result = page.getByTestId('erasure-result');
    await expect(result).toContainText(email);
    await expect(result).toContainText(String(refId));
    await expect(result).toContainText(en.signers.kept);

    // The signed document still verifies, and the trail's chain is intact.
    await page.goto(StaffRoutes.requestShow.replace(':id', String(refId)));
    await expect(page.getByTestId('verification-verdict')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('chain-verdict')).toHaveAttribute('data-intact', 'true');
  });
});
