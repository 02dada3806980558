import { Messages, StaffRoutes } from '@esign/contract';
import { readFileSync } from 'node:fs';
import { apiKey, signInAsDemo } from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import { completedRequest } from './support/requests';

test.describe('the verification report from the console', () => {
  test("a completed request's expanded row offers 'Verification report', which opens the report", async ({
    page,
    context,
  }) => {
    test.setTimeout(120_000);
    await signInAsDemo(page);
    const refId = await completedRequest(page.request, await apiKey(page), 'Kavya Menon');

    await page.goto(StaffRoutes.dashboard);
    const row = page.locator('[data-testid="requests"] tbody tr', { hasText: String(refId) }).first();
    await expect(row.getByTestId('progress')).toContainText('Completed');
    await row.getByText('us_constitution.pdf').click();
    const link = page.getByTestId('verification-report').getByRole('link', { name: Messages.verificationReport });
    await expect(link).toBeVisible();
    await expect(link).toHaveAttribute('target', '_blank');
    await shot(page, 'verification-link');

    const [report] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await report.waitForLoadState();
    await expect(report).toHaveTitle(`${Messages.verificationReport} · Ref ID ${refId}`);
    await expect(report.getByRole('heading', { level: 1 })).toHaveText(Messages.verificationReport);
    await expect(report.getByTestId('summary')).toHaveText('Every signature is valid and the audit trail is intact.');
    const rows = report.getByTestId('signature');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).locator('td').nth(0)).toHaveText('Kavya Menon');
    await expect(rows.nth(0).locator('td').nth(1)).toHaveText('e-Signature');
    await expect(rows.nth(0).locator('td').nth(2)).toHaveText(/^B-(B|T|LT|LTA)$/);
    await expect(rows.nth(1).locator('td').nth(1)).toHaveText('organisation seal');
    for (const i of [0, 1]) {
      const status = rows.nth(i).getByTestId('status');
      await expect(status).toHaveText('Valid');
      // Green (#2e7d32) for a valid signature.
      expect(await status.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(46, 125, 50)');
    }
    await shot(report, 'verification-report');
  });

  test('a request not completed yet offers no report link', async ({ page }) => {
    await signInAsDemo(page);
    const key = await apiKey(page);
    const up = await page.request.post('/v1/upload', {
      headers: { apikey: key },
      multipart: {
        data: JSON.stringify([
          {
            name: 'Ravi Nair',
            email: 'ravi@example.in',
            phoneNumber: '9876505678',
            observer: false,
            signature_type: 'e-Signature',
          },
        ]),
        checkOrder: 'false',
        otpRequired: 'false',
        orgId: DEMO.orgId,
        file: { name: 'normal.pdf', mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', 'normal.pdf')) },
      },
    });
    const refId = (await up.json()).refId as number;
    await page.request.post('/v1/process', {
      headers: { apikey: key },
      data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1] }] },
    });
    await page.goto(StaffRoutes.dashboard);
    const row = page.locator('[data-testid="requests"] tbody tr', { hasText: String(refId) }).first();
    await row.getByText('normal.pdf').click();
    await expect(page.getByTestId('party-table')).toContainText('IN-PROGRESS');
    await expect(page.getByRole('link', { name: Messages.verificationReport })).toHaveCount(0);
  });
});
