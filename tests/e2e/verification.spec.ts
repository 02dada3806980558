import { Messages, StaffRoutes } from '@esign/contract';
import type { RequestListItem } from '@esign/contract';
import type { APIRequestContext } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { apiKey, signInAsDemo } from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';

/** A 1×1 transparent PNG, as the signature pad would post a drawing. */
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Sends us_constitution.pdf to one e-Signature signer (no OTP) and signs it through the recipient's calls. */
async function completedRequest(request: APIRequestContext, key: string, name: string): Promise<number> {
  const ok = async <T = unknown>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> => {
    expect(res.ok(), `${res.url()} answered ${res.status()}: ${await res.text()}`).toBe(true);
    return (await res.json()) as T;
  };
  const up = await ok<{ refId: number }>(
    await request.post('/v1/upload', {
      headers: { apikey: key },
      multipart: {
        data: JSON.stringify([
          {
            name,
            email: 'kavya@example.in',
            phoneNumber: '9876501234',
            observer: false,
            signature_type: 'e-Signature',
          },
        ]),
        checkOrder: 'false',
        otpRequired: 'false',
        orgId: DEMO.orgId,
        file: {
          name: 'us_constitution.pdf',
          mimeType: 'application/pdf',
          buffer: readFileSync(fixture('pdfs', 'us_constitution.pdf')),
        },
      },
    }),
  );
  const refId = up.refId;
  await ok(
    await request.post('/v1/process', {
      headers: { apikey: key },
      data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1] }] },
    }),
  );
  const item = await ok<RequestListItem>(await request.get(`/api/requests/${refId}`, { headers: { apikey: key } }));
  const token = new URL(item.data[0].sign_url as string).searchParams.get('token') as string;
  const t = { 'x-sign-token': token };
  const base = `${DEMO.orgId}/${refId}/1`;
  const { request: signing } = await ok<{ request: { requestId: string } }>(
    await request.get(`/v1/reference/${base}`, { headers: t }),
  );
  const requestId = signing.requestId;
  await ok(await request.post(`/v1/signer_details/${base}`, { headers: t, data: { status: 'opened' } }));
  await ok(await request.post(`/v1/signer_details/${base}`, { headers: t, data: { status: 'signing' } }));
  await ok(await request.get(`/v1/init/${DEMO.orgId}/${requestId}?method=2`, { headers: t }));
  await ok(await request.post(`/v1/esignature/${DEMO.orgId}/${requestId}`, { headers: t, data: { file: PNG } }));
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/requests/${refId}`, { headers: { apikey: key } })).json()) as RequestListItem)
          .request_status,
      { timeout: 60_000 },
    )
    .toBe('completed');
  return refId;
}

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
