import {
  DEFAULT_RECTANGLE,
  DEFAULT_TIME_ZONE,
  Headers as ApiHeaders,
  Messages,
  RequestMessages,
  StaffRoutes,
  formatDateTime,
  logoPath,
} from '@esign/contract';
import type { Organisation, OrganisationSettings, RequestListItem, UploadResponse } from '@esign/contract';
import type { Locator, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fill, stagedBox } from '../../admin/src/requests/placement/geometry';
import {
  RECIPIENTS,
  apiKey,
  chooseFile,
  fillRecipient,
  processDraft,
  saveDraft,
  signInAsDemo,
  uploadDraft,
  type Recipient,
} from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';

/**
 * The console's points of issue 18, one journey each, asserting what a staff user sees: texts, enabled states, the
 * order of rows and colours by their computed style.
 */

const orgPath = `/api/organisations/${DEMO.orgId}`;
const rows = (page: Page) => page.locator('[data-testid="requests"] tbody tr');
const search = (page: Page) => page.getByPlaceholder(Messages.searchPlaceholder);
const toast = (page: Page) => page.getByRole('alert').filter({ hasNotText: /^$/ }).last();
const atPath = (pathname: string) => new RegExp(`^[^?#]*//[^/]+${pathname.replace(/[/.]/g, '\\$&')}(\\?.*)?$`);
const withKey = async (page: Page) => ({ [ApiHeaders.apiKey]: await apiKey(page) });

const settings = async (page: Page): Promise<OrganisationSettings> => {
  const response = await page.request.get(orgPath, { headers: await withKey(page) });
  expect(response.status()).toBe(200);
  return ((await response.json()) as Organisation).settings;
};
const putSettings = async (page: Page, data: Partial<OrganisationSettings>) =>
  expect((await page.request.put(orgPath, { headers: await withKey(page), data })).status()).toBe(200);

const listItem = async (page: Page, refId: number): Promise<RequestListItem> => {
  const response = await page.request.get(`/api/requests/${refId}`, { headers: await withKey(page) });
  expect(response.status()).toBe(200);
  return (await response.json()) as RequestListItem;
};

/** A request uploaded through the API, with the options a journey needs (the OTP off for a reject by link). */
async function uploadWith(
  page: Page,
  { recipients = RECIPIENTS, otpRequired = true, file = 'normal.pdf' } = {} as {
    recipients?: Recipient[];
    otpRequired?: boolean;
    file?: string;
  },
): Promise<UploadResponse> {
  const res = await page.request.post('/v1/upload', {
    headers: await withKey(page),
    multipart: {
      data: JSON.stringify(
        recipients.map((r) => ({
          name: r.name,
          email: r.email,
          phoneNumber: `+91 ${r.phone}`,
          observer: r.type === 'Receives a copy',
          signature_type: r.signature ?? null,
        })),
      ),
      checkOrder: 'false',
      otpRequired: String(otpRequired),
      orgId: DEMO.orgId,
      file: { name: file, mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', file)) },
    },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as UploadResponse;
}

/** Shows only this request's row on the dashboard. */
async function findRow(page: Page, refId: number): Promise<Locator> {
  await search(page).fill(String(refId));
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText(String(refId));
  return rows(page).first();
}

const css = (locator: Locator, property: 'backgroundColor' | 'color') =>
  locator.evaluate((element, name) => getComputedStyle(element)[name], property);
const rgb = (text: string): number[] => (text.match(/[\d.]+/g) ?? []).map(Number);

test.describe('issue 18 in the console', () => {
  test.beforeEach(async ({ page }) => signInAsDemo(page));

  test('point 2: a rejected party shows when and why; rejected, expired, cancelled and completed rows read differently', async ({
    page,
  }) => {
    const zone = (await settings(page)).time_zone;
    const rejected = await uploadWith(page, { recipients: [RECIPIENTS[0]], otpRequired: false });
    await processDraft(page, rejected.refId);
    const token = new URL((await listItem(page, rejected.refId)).data[0].sign_url as string).searchParams.get('token');
    const remark = 'Clause 4 names the wrong fee; please send the corrected copy.';
    const answer = await page.request.post(`/v1/esign/reject/${DEMO.orgId}/${rejected.refId}/1`, {
      headers: { [ApiHeaders.signToken]: token as string },
      data: { remark },
    });
    expect(answer.status()).toBe(200);
    const rejectedAt = (await listItem(page, rejected.refId)).data[0].rejected_at as string;
    expect(rejectedAt).toBeTruthy();
    const running = await uploadWith(page, { recipients: [RECIPIENTS[0]] });
    await processDraft(page, running.refId);
    await page.reload();

    // In progress: the theme's purple bar, the count as its label.
    let row = await findRow(page, running.refId);
    const bar = (r: Locator) => r.getByTestId('progress').locator('.MuiLinearProgress-bar');
    const label = (r: Locator) => r.getByTestId('status-text');
    await expect(label(row)).toHaveText('0 of 1 signed');
    const purple = await css(bar(row), 'backgroundColor');
    expect(rgb(purple)).toEqual([94, 53, 177]);

    // Rejected: a red bar and a red 'Rejected'; the party's status with the time and the remark under it.
    row = await findRow(page, rejected.refId);
    await expect(label(row)).toHaveText('Rejected');
    const [r, g, b] = rgb(await css(bar(row), 'backgroundColor'));
    expect(r).toBeGreaterThan(g + 100);
    expect(r).toBeGreaterThan(b + 100);
    expect(rgb(await css(label(row), 'color'))).toEqual(rgb(await css(bar(row), 'backgroundColor')));
    await row.getByText('normal.pdf').click();
    const party = page.getByTestId('party-table').getByTestId('party-1');
    await expect(party.getByTestId('party-status')).toHaveText('REJECTED');
    await expect(party.getByTestId('rejected-at')).toHaveText(
      fill(Messages.partyRejectedOn, { date: formatDateTime(rejectedAt, zone) }),
    );
    await expect(party.getByTestId('reject-remark')).toHaveText(fill(Messages.partyRemark, { remark }));
    await expect(party).toContainText(remark);
    await shot(page, 'issue18-rejected-row');

    // Expired, cancelled and completed as the list would give them (the same row, its status rewritten in the answer):
    // amber, grey and green, each unlike the others and unlike the purple of a request in progress.
    const seen: Record<string, string> = { 'in-progress': purple };
    for (const [status, text] of [
      ['expired', 'Expired'],
      ['cancelled', 'Cancelled'],
      ['completed', 'Completed'],
    ] as const) {
      await page.route('**/api/requests?*', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as RequestListItem[];
        await route.fulfill({
          response,
          json: body.map((item) =>
            item.refId === running.refId
              ? { ...item, request_status: status, status_text: text, status: status === 'completed' ? 1 : 0 }
              : item,
          ),
        });
      });
      await page.reload();
      row = await findRow(page, running.refId);
      await expect(label(row)).toHaveText(text);
      seen[status] = await css(bar(row), 'backgroundColor');
      await page.unroute('**/api/requests?*');
    }
    const [er, eg, eb] = rgb(seen.expired);
    expect(er).toBeGreaterThan(200);
    expect(eg).toBeGreaterThan(60);
    expect(eg).toBeLessThan(180);
    expect(eb).toBeLessThan(60);
    const [cr, cg, cb, ca] = rgb(seen.cancelled);
    expect(Math.max(cr, cg, cb) - Math.min(cr, cg, cb)).toBeLessThan(16);
    expect(ca ?? 1).toBeLessThan(1);
    const [gr, gg, gb] = rgb(seen.completed);
    expect(gg).toBeGreaterThan(gr);
    expect(gg).toBeGreaterThan(gb);
    expect(new Set(Object.values(seen)).size).toBe(4);
  });

  test('point 3: duplicate and delete show their loader texts, then where the copy is or how many went; the selection clears', async ({
    page,
  }) => {
    const first = await uploadDraft(page, 'normal.pdf');
    await processDraft(page, first.refId);
    const second = await uploadDraft(page, 'giraffe.pdf');
    await processDraft(page, second.refId);
    await page.reload();
    await expect(rows(page).nth(0)).toContainText(String(second.refId));
    await expect(rows(page).nth(1)).toContainText(String(first.refId));
    const checked = page.locator('[data-testid="requests"] tbody input[type="checkbox"]:checked');
    const slow = async (pattern: string) =>
      page.route(pattern, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        await route.continue();
      });

    // Duplicate: 'Duplicating selected row(s)' while it runs, then the copy's Ref ID with a link to edit it.
    await slow('**/v1/duplicateRef/**');
    await rows(page).nth(0).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Duplicate' }).click();
    const duplicated = page.waitForResponse((response) => response.url().includes('/v1/duplicateRef/'));
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page.getByTestId('wait-text')).toHaveText(Messages.duplicating);
    const copy = ((await (await duplicated).json()) as { refId: number }).refId;
    const note = page.getByTestId('duplicated-toast');
    await expect(note).toContainText(fill(Messages.duplicatedAs, { refId: copy }));
    await expect(page.getByTestId('wait-text')).toBeHidden();
    await expect(checked).toHaveCount(0);
    // The selection toolbar (Delete row, Duplicate) folds away: react-admin keeps it, 0 px tall.
    const toolbarHeight = () =>
      page
        .locator('[class*="RaBulkActionsToolbar-toolbar"]')
        .evaluateAll((toolbars) => Math.max(0, ...toolbars.map((toolbar) => (toolbar as HTMLElement).offsetHeight)));
    await expect.poll(toolbarHeight).toBe(0);
    await shot(page, 'issue18-duplicated');
    await note.getByRole('link', { name: `${Messages.editSubmit} ${copy}` }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.requestInitiate));
    await expect(page.getByTestId('ref-id')).toHaveText(`Ref Id: ${copy}`);
    await expect(page.getByTestId('document')).toHaveText('giraffe.pdf');
    await page.unroute('**/v1/duplicateRef/**');

    // Delete both: 'Deleting selected row(s)', then how many were deleted; the rows are gone and nothing is selected.
    await page.goto(StaffRoutes.dashboard);
    await slow('**/v1/deleteRef/**');
    await expect(rows(page).nth(1)).toContainText(String(first.refId));
    await rows(page).nth(0).getByRole('checkbox').check();
    await rows(page).nth(1).getByRole('checkbox').check();
    await page.getByRole('button', { name: Messages.deleteRow }).click();
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page.getByTestId('wait-text')).toHaveText(Messages.deleting);
    await expect(toast(page)).toHaveText(fill(Messages.deletedRows, { count: 2 }));
    await expect(page.getByTestId('wait-text')).toBeHidden();
    await expect(checked).toHaveCount(0);
    await expect.poll(toolbarHeight).toBe(0);
    await expect(page.locator('#main-content')).not.toContainText(String(second.refId));
    await expect(page.locator('#main-content')).not.toContainText(String(first.refId));
    await page.unroute('**/v1/deleteRef/**');
  });

  test('point 6: a draft submitted from Edit/Submit says so and comes first on the dashboard, by the time it was sent', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const zone = (await settings(page)).time_zone;
    // Saved as a draft first, then another request is sent: the draft is the older of the two until it is sent.
    const draft = await uploadDraft(page, 'doc_2_3_pages.pdf');
    await saveDraft(page, draft);
    const sent = await uploadDraft(page, 'normal.pdf');
    await processDraft(page, sent.refId);

    await page.getByRole('menuitem', { name: Messages.navDrafts }).click();
    await search(page).fill(String(draft.refId));
    await expect(page.locator('tbody tr')).toHaveCount(1);
    await page.locator('tbody tr').first().getByRole('button', { name: Messages.editSubmit }).click();
    await expect(page.getByTestId('ref-id')).toHaveText(`Ref Id: ${draft.refId}`);
    await expect(page.getByTestId('document')).toHaveText('doc_2_3_pages.pdf');
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.upload));
    await page.getByRole('button', { name: Messages.saveButton, exact: true }).click();
    await expect(page.getByText(Messages.requestSaved, { exact: true })).toBeVisible();
    await page.getByRole('button', { name: Messages.submitRequest }).click();
    await expect(page.getByRole('heading', { name: Messages.mailSent })).toBeVisible();
    await expect(page.getByText(Messages.requestSubmitted, { exact: true })).toBeVisible();

    await page.getByRole('link', { name: Messages.goToDashboard }).click();
    await expect(rows(page).nth(0)).toContainText(String(draft.refId));
    await expect(rows(page).nth(1)).toContainText(String(sent.refId));
    const item = await listItem(page, draft.refId);
    expect(item.timestamp).toBe(item.submitted_at);
    await expect(rows(page).nth(0).getByTestId('timestamp')).toHaveText(formatDateTime(item.submitted_at, zone));
  });

  test('point 7: Back from the first placement step and leaving the placement leave no draft; a saved draft stays', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const proceedToPlacement = async (): Promise<number> => {
      await page.goto(StaffRoutes.dashboard);
      await page.getByRole('button', { name: Messages.initiateContract }).click();
      await chooseFile(page, 'normal.pdf');
      await fillRecipient(page, 0, RECIPIENTS[0]);
      await page.getByRole('button', { name: Messages.proceed }).click();
      await expect(page).toHaveURL(atPath(StaffRoutes.upload));
      return Number(await page.evaluate(() => localStorage.getItem('refId')));
    };
    const discarded = (refId: number) =>
      page.waitForResponse((response) => response.url().endsWith(`/api/drafts/${refId}/unsaved`));
    const expectNotListed = async (refId: number) => {
      await page.goto(StaffRoutes.drafts);
      await search(page).fill(String(refId));
      await expect(page.getByText(Messages.noRecordsFound)).toBeVisible();
      const drafts = await page.request.get(`/v1/drafts/${DEMO.orgId}`, { headers: await withKey(page) });
      expect(((await drafts.json()).data as { refId: number }[]).map((d) => d.refId)).not.toContain(refId);
    };

    // Back from the first step: the dashboard, and the draft PROCEED made is gone at once.
    let refId = await proceedToPlacement();
    let answer = discarded(refId);
    await page.getByRole('button', { name: Messages.backButton }).click();
    expect(await (await answer).json()).toEqual({ id: refId, kept: false });
    await expect(page).toHaveURL(atPath(StaffRoutes.dashboard));
    await expectNotListed(refId);

    // Leaving the placement by the menu: discarded too.
    refId = await proceedToPlacement();
    answer = discarded(refId);
    await page.getByRole('menuitem', { name: Messages.navDrafts }).click();
    expect(await (await answer).json()).toEqual({ id: refId, kept: false });
    await expectNotListed(refId);

    // A saved draft edited (Edit/Submit → PROCEED → Back) stays in the drafts.
    const saved = await uploadDraft(page, 'normal.pdf');
    await saveDraft(page, saved);
    await page.goto(StaffRoutes.drafts);
    await search(page).fill(String(saved.refId));
    await page.locator('tbody tr').first().getByRole('button', { name: Messages.editSubmit }).click();
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.upload));
    answer = discarded(saved.refId);
    await page.getByRole('button', { name: Messages.backButton }).click();
    expect(await (await answer).json()).toEqual({ id: saved.refId, kept: true });
    await page.goto(StaffRoutes.drafts);
    await search(page).fill(String(saved.refId));
    await expect(page.locator('tbody tr')).toHaveCount(1);
    await expect(page.locator('tbody tr').first()).toContainText('normal.pdf');
  });

  test("point 8: every time in the console is written in the organisation's time zone, with its label", async ({
    page,
  }) => {
    const before = (await settings(page)).time_zone;
    const headers = await withKey(page);
    try {
      await putSettings(page, { time_zone: 'UTC' });
      const sent = await uploadDraft(page, 'normal.pdf');
      await processDraft(page, sent.refId);
      const draft = await uploadDraft(page, 'giraffe.pdf');
      await saveDraft(page, draft);
      const template = await page.request.post('/api/templates', {
        headers,
        multipart: {
          template_name: `Zone check ${Date.now()}`,
          file: {
            name: 'sample_form.pdf',
            mimeType: 'application/pdf',
            buffer: readFileSync(fixture('pdfs', 'sample_form.pdf')),
          },
        },
      });
      expect(template.status()).toBe(201);
      const created = (await template.json()) as { id: string; template_name: string; timestamp: string };
      await page.reload();

      const utc = (value: string) => formatDateTime(value, 'UTC');
      const item = await listItem(page, sent.refId);
      const row = await findRow(page, sent.refId);
      await expect(row.getByTestId('timestamp')).toHaveText(utc(item.timestamp));
      await expect(row.getByTestId('timestamp')).toHaveText(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} (am|pm) UTC$/);

      await page.goto(StaffRoutes.drafts);
      await search(page).fill(String(draft.refId));
      const draftRow = (await (
        await page.request.get(`/api/drafts/${draft.refId}`, { headers })
      ).json()) as RequestListItem;
      await expect(page.locator('tbody tr')).toHaveCount(1);
      await expect(page.locator('tbody tr').first().getByTestId('timestamp')).toHaveText(utc(draftRow.timestamp));

      await page.goto(StaffRoutes.templates);
      await expect(page.getByRole('row').filter({ hasText: created.template_name })).toContainText(
        utc(created.timestamp),
      );

      await page.goto(StaffRoutes.outbox);
      const messages = (await (
        await page.request.get(`/dev/outbox?to=${encodeURIComponent(RECIPIENTS[0].email)}`)
      ).json()) as { createdAt: string; refId: number | null }[];
      const invitation = messages.find((m) => m.refId === sent.refId)!;
      await page.getByLabel('Recipient').fill(RECIPIENTS[0].email);
      await expect(
        page
          .getByTestId('outbox-message')
          .filter({ hasText: `Ref ID ${sent.refId}` })
          .first(),
      ).toContainText(utc(invitation.createdAt));

      // Back in the default zone: the same request reads in IST.
      await putSettings(page, { time_zone: DEFAULT_TIME_ZONE });
      await page.goto(StaffRoutes.dashboard);
      const again = await findRow(page, sent.refId);
      await expect(again.getByTestId('timestamp')).toHaveText(formatDateTime(item.timestamp, DEFAULT_TIME_ZONE));
      await expect(again.getByTestId('timestamp')).toContainText('IST');
      await page.request.delete(`/api/templates/${created.id}`, { headers });
    } finally {
      await putSettings(page, { time_zone: before });
    }
  });

  test("point 9: an empty dashboard keeps its title and search, and says 'No requests yet' with the way to start one", async ({
    page,
  }) => {
    await page.route('**/api/requests?*', (route) =>
      route.fulfill({
        json: [],
        headers: { 'Content-Range': 'requests */0', 'Access-Control-Expose-Headers': 'Content-Range' },
      }),
    );
    await page.reload();
    await expect(page.getByRole('heading', { name: Messages.requestsDetails })).toBeVisible();
    await expect(search(page)).toBeVisible();
    await expect(page.getByTestId('no-data')).toBeVisible();
    await expect(page.getByTestId('no-data-caption')).toHaveText(Messages.noRequestsYet);
    await shot(page, 'issue18-empty-dashboard');

    // A search that finds nothing keeps the box and says 'No records found.'.
    await search(page).fill('no-such-file');
    await expect(page.getByTestId('no-data-caption')).toHaveText(Messages.noRecordsFound);
    await expect(search(page)).toHaveValue('no-such-file');
    await search(page).fill('');
    await expect(page.getByTestId('no-data-caption')).toHaveText(Messages.noRequestsYet);

    await page.getByTestId('no-data').getByRole('link', { name: Messages.initiateContract }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.requestInitiate));
    await expect(page.getByRole('heading', { name: Messages.initiateRequestHeading })).toBeVisible();
  });

  test('point 11: a two-dot file name and a short phone number are told their own rule', async ({ page }) => {
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await page.getByLabel(Messages.selectFileUploadType).click();
    await page.getByRole('option', { name: Messages.chooseFile, exact: true }).click();
    const dialog = page.getByRole('dialog');
    const pdf = readFileSync(fixture('pdfs', 'normal.pdf'));
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'my.contract.pdf', mimeType: 'application/pdf', buffer: pdf });
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('file-error')).toHaveText(Messages.pdfFileNameDots);
    // Not a PDF at all: still the specification's text.
    await page.getByTestId('file-input').setInputFiles(fixture('faces', 'coffee.png'));
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('file-error')).toHaveText(Messages.invalidPdf);
    await dialog.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(dialog).toHaveCount(0);

    // The server's check says the same, in the contract's words.
    for (const path of ['/v1/onboard/checkDocument', '/v1/upload']) {
      const refused = await page.request.post(path, {
        headers: await withKey(page),
        multipart: {
          data: JSON.stringify([
            {
              name: 'A',
              email: 'a@example.in',
              phoneNumber: '+919876543210',
              observer: false,
              signature_type: 'e-Signature',
            },
          ]),
          checkOrder: 'false',
          otpRequired: 'true',
          orgId: DEMO.orgId,
          file: { name: 'my.contract.pdf', mimeType: 'application/pdf', buffer: pdf },
        },
      });
      expect(refused.status()).toBe(415);
      expect((await refused.json()).message).toBe(Messages.pdfFileNameDots);
    }

    // A phone number that is too short: the phone's message on its card (and in the toast), not the form's.
    await page.getByRole('button', { name: Messages.chooseFile }).click();
    await page.getByTestId('file-input').setInputFiles(fixture('pdfs', 'normal.pdf'));
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('document')).toHaveText('normal.pdf');
    await fillRecipient(page, 0, { ...RECIPIENTS[0], phone: '98765' });
    await page.getByRole('button', { name: Messages.proceed }).click();
    const card = page.getByTestId('recipient-1');
    await expect(card.getByText(RequestMessages.phoneInvalid)).toBeVisible();
    await expect(toast(page)).toHaveText(RequestMessages.phoneInvalid);
    await expect(page.getByText(Messages.fillFormDetails)).toHaveCount(0);
    await expect(page).toHaveURL(atPath(StaffRoutes.requestInitiate));
  });

  test('point 15: new boxes appear in view near the top of the page, one below the other, and are still sent as the default', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const signers: Recipient[] = [
      RECIPIENTS[0],
      RECIPIENTS[1],
      {
        name: 'Kiran Das',
        email: 'kiran@example.in',
        phone: '9000011111',
        type: 'Needs to sign',
        signature: 'e-Signature',
      },
    ];
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await chooseFile(page, 'tracemonkey.pdf');
    for (let i = 1; i < signers.length; i++)
      await page.getByRole('button', { name: Messages.addMoreSignatories }).click();
    for (const [i, r] of signers.entries()) await fillRecipient(page, i, r);
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.upload));

    const canvas = page.getByTestId('pdf-page').locator('canvas');
    await expect(page.getByTestId('signature-box')).toHaveCount(3);
    const boxes = [];
    for (const order of [1, 2, 3]) {
      // Each signer's box is in view when it is the one to place (the first as the page opens, the others on Next)...
      if (order > 1) await page.getByRole('button', { name: Messages.nextButton }).click();
      await expect(page.getByTestId('current-signer')).toHaveText(signers[order - 1].name);
      const box = page.locator(`[data-testid="signature-box"][data-order="${order}"]`);
      await expect(box).toHaveAttribute('data-active', 'true');
      await expect(box).toBeInViewport();
      await expect(page.getByTestId('not-dragged')).toContainText(signers[order - 1].name);
      // ... near the top of the page, a step lower and further right for each signer.
      const page1 = (await canvas.boundingBox())!;
      const found = (await box.boundingBox())!;
      const k = page1.height / 840;
      expect((found.y - page1.y) / k).toBeCloseTo(stagedBox(order - 1).y, 0);
      expect((found.x - page1.x) / k).toBeCloseTo(stagedBox(order - 1).x, 0);
      expect((found.y - page1.y) / k).toBeLessThan(840 / 2);
      boxes.push({ ...found, y: found.y - page1.y, x: found.x - page1.x });
    }
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        expect(overlap).toBe(false);
      }
    await shot(page, 'issue18-staged-boxes');

    // Saved without a drag: the specification's default rectangle for every signer, not where the boxes were shown.
    const save = page.waitForRequest((request) => request.url().endsWith('/v1/save'));
    await page.getByRole('button', { name: Messages.saveButton, exact: true }).click();
    const sent = (await save).postDataJSON() as { data: { rectangle: string; drag_coord: unknown }[] };
    expect(sent.data.map((entry) => entry.rectangle)).toEqual([
      DEFAULT_RECTANGLE,
      DEFAULT_RECTANGLE,
      DEFAULT_RECTANGLE,
    ]);
    expect(sent.data.every((entry) => entry.drag_coord === null)).toBe(true);
    await expect(page.getByText(Messages.requestSaved, { exact: true })).toBeVisible();

    // Point 6 on a new request: 'Submit Request' says the request went.
    await page.getByRole('button', { name: Messages.submitRequest }).click();
    await expect(page.getByText(Messages.requestSubmitted, { exact: true })).toBeVisible();
    await expect(page).toHaveURL(atPath(StaffRoutes.mailSent));
  });

  test("point 16: the file dialog's 'Choose File' is the console's button, and the logo is sharp at 3× density", async ({
    page,
    browser,
  }) => {
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await page.getByLabel(Messages.selectFileUploadType).click();
    await page.getByRole('option', { name: Messages.chooseFile, exact: true }).click();
    const dialog = page.getByRole('dialog');
    // What shows: the console's outlined purple button, its name the specification's 'Choose File'.
    const choose = dialog.getByTestId('choose-file');
    await expect(choose).toBeVisible();
    await expect(choose).toHaveText(Messages.chooseFile);
    await expect(choose).toHaveClass(/MuiButton-root/);
    expect(rgb(await css(choose, 'color'))).toEqual([94, 53, 177]);
    // The native input is the control behind it (one button of that name), with no box of its own on the screen.
    const input = page.getByTestId('file-input');
    await expect(dialog.getByRole('button', { name: Messages.chooseFile })).toHaveCount(1);
    expect(await dialog.getByRole('button', { name: Messages.chooseFile }).getAttribute('type')).toBe('file');
    const shown = (await input.boundingBox())!;
    expect(shown.width).toBeLessThanOrEqual(1);
    expect(shown.height).toBeLessThanOrEqual(1);
    expect(await input.evaluate((element) => getComputedStyle(element).opacity)).toBe('0');
    await input.setInputFiles(fixture('pdfs', 'normal.pdf'));
    await expect(dialog.getByTestId('chosen-file')).toHaveText('normal.pdf');
    await shot(page, 'issue18-file-dialog');
    await dialog.getByRole('button', { name: Messages.cancelButton }).click();

    // The logo at device pixel ratio 3: the console's top bar and the signer's page.
    const up = await uploadWith(page, { recipients: [RECIPIENTS[0]], otpRequired: false });
    await processDraft(page, up.refId);
    const signUrl = (await listItem(page, up.refId)).data[0].sign_url as string;
    const key = await apiKey(page);
    const dense = await browser.newContext({ deviceScaleFactor: 3, baseURL: process.env.E2E_BASE_URL });
    try {
      const staff = await dense.newPage();
      await staff.goto(StaffRoutes.signIn);
      // Once the sign-in page has rendered: as it starts, it forgets any session it finds (react-admin's check), which
      // could erase the one written here.
      await expect(staff.locator('input[name="username"]')).toBeVisible();
      await staff.waitForLoadState('networkidle');
      await staff.evaluate(
        ({ session }) => Object.entries(session).forEach(([name, value]) => localStorage.setItem(name, value)),
        { session: { username: DEMO.username, api_key: key, orgId: DEMO.orgId, tag: '', status: 'test' } },
      );
      await staff.goto(StaffRoutes.dashboard);
      const sharp = async (logo: Locator) => {
        await expect(logo).toHaveAttribute('src', logoPath(DEMO.orgId));
        await expect
          .poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
          .toBeGreaterThan(0);
        const { natural, rendered } = await logo.evaluate((img: HTMLImageElement) => ({
          natural: img.naturalWidth,
          rendered: img.getBoundingClientRect().width,
        }));
        expect(rendered).toBeGreaterThan(0);
        expect(natural).toBeGreaterThanOrEqual(3 * rendered);
      };
      await sharp(staff.getByTestId('org-logo'));
      const signer = await dense.newPage();
      await signer.goto(signUrl);
      await sharp(signer.getByTestId('org-logo').first());
    } finally {
      await dense.close();
    }
  });

  test('point 17: Settings edits the DSC signer-app link, its tutorial video and the time zone, with clear messages', async ({
    page,
  }) => {
    const before = await settings(page);
    const restore = {
      dsc_download_url: before.dsc_download_url,
      dsc_tutorial_url: before.dsc_tutorial_url,
      time_zone: before.time_zone,
    };
    await putSettings(page, { dsc_download_url: null, dsc_tutorial_url: null, time_zone: DEFAULT_TIME_ZONE });
    try {
      await page.getByRole('menuitem', { name: Messages.navSettings }).click();
      await expect(page.getByRole('heading', { name: Messages.settingsDscSection })).toBeVisible();
      await expect(page.getByTestId('wait-text')).toBeHidden();
      const download = page.getByLabel(Messages.settingsDscDownloadUrl);
      const tutorial = page.getByLabel(Messages.settingsDscTutorialUrl);
      const zone = page.getByLabel(Messages.settingsTimeZone);
      const save = page.getByRole('button', { name: Messages.settingsSave, exact: true });
      await expect(download).toHaveValue('');
      await expect(zone).toHaveValue(DEFAULT_TIME_ZONE);
      await expect(page.getByText(/^Now: .* IST$/)).toBeVisible();
      await expect(save).toBeDisabled();

      // Not a web address: said under the field, and Save stays off.
      await download.fill('signer-app.exe');
      await expect(page.getByText(Messages.settingsUrlInvalid)).toBeVisible();
      await expect(save).toBeDisabled();
      await download.fill('https://downloads.example.in/esign-signer-setup.exe');
      await tutorial.fill('https://videos.example.in/dsc-tutorial');
      await expect(page.getByText(Messages.settingsUrlInvalid)).toHaveCount(0);

      // A time zone picked from the list; clearing it is refused with its message.
      await zone.fill('');
      await zone.blur();
      await expect(page.getByText(Messages.settingsTimeZoneInvalid)).toBeVisible();
      await expect(save).toBeDisabled();
      await zone.fill('Europe/Lon');
      await page.getByRole('option', { name: 'Europe/London', exact: true }).click();
      await expect(page.getByText(/^Now: .* GMT(\+1)?$/)).toBeVisible();
      await expect(save).toBeEnabled();

      const sent = page.waitForRequest((request) => request.method() === 'PUT' && request.url().endsWith(orgPath));
      await save.click();
      expect((await sent).postDataJSON()).toEqual({
        dsc_download_url: 'https://downloads.example.in/esign-signer-setup.exe',
        dsc_tutorial_url: 'https://videos.example.in/dsc-tutorial',
        time_zone: 'Europe/London',
      });
      await expect(toast(page)).toHaveText(Messages.settingsSaved);
      await expect(save).toBeDisabled();
      await shot(page, 'issue18-settings-dsc-time-zone');

      await page.reload();
      await expect(page.getByTestId('wait-text')).toBeHidden();
      await expect(download).toHaveValue('https://downloads.example.in/esign-signer-setup.exe');
      await expect(tutorial).toHaveValue('https://videos.example.in/dsc-tutorial');
      await expect(zone).toHaveValue('Europe/London');
      expect(await settings(page)).toMatchObject({
        dsc_download_url: 'https://downloads.example.in/esign-signer-setup.exe',
        dsc_tutorial_url: 'https://videos.example.in/dsc-tutorial',
        time_zone: 'Europe/London',
      });

      // Emptied, the tutorial link is removed (null), nothing else is sent.
      const cleared = page.waitForRequest((request) => request.method() === 'PUT' && request.url().endsWith(orgPath));
      await tutorial.fill('');
      await save.click();
      expect((await cleared).postDataJSON()).toEqual({ dsc_tutorial_url: null });
      await expect(toast(page)).toHaveText(Messages.settingsSaved);
      expect((await settings(page)).dsc_tutorial_url).toBeNull();
    } finally {
      await putSettings(page, restore);
    }
  });
});

test.describe('issue 18, point 14: no noise from the console', () => {
  test('visiting /sign-in sends no sign-out call and logs no 401; only the Outbox page reads /dev/outbox', async ({
    page,
  }) => {
    const calls: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => calls.push(`${request.method()} ${new URL(request.url()).pathname}`));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('response', (response) => response.status() === 401 && errors.push(`401 ${response.url()}`));
    const signOuts = () => calls.filter((call) => call.startsWith('DELETE /consumers/'));
    const outboxReads = () => calls.filter((call) => call === 'GET /dev/outbox');

    await page.goto(StaffRoutes.signIn);
    await expect(page.getByRole('button', { name: Messages.loginButton })).toBeVisible();
    await page.waitForTimeout(1000);
    expect(signOuts()).toEqual([]);
    expect(errors).toEqual([]);

    // Signed in, on the dashboard for a while: nothing reads the outbox, though its link is there.
    await signInAsDemo(page);
    await expect(rows(page).first().or(page.getByTestId('no-data'))).toBeVisible();
    await page.waitForTimeout(3000);
    await page.getByRole('menuitem', { name: Messages.navDrafts }).click();
    await page.getByRole('menuitem', { name: Messages.navDashboard }).click();
    await page.waitForTimeout(1000);
    expect(outboxReads()).toEqual([]);
    await page.getByRole('button', { name: Messages.outboxHeading }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.outbox));
    await expect.poll(() => outboxReads().length).toBeGreaterThan(0);
    expect(errors).toEqual([]);

    // Signing out revokes the key once (204) and the sign-in page adds no call of its own.
    await page.getByRole('button', { name: Messages.signOut }).click();
    await expect(page).toHaveURL(atPath(StaffRoutes.signIn));
    await page.waitForTimeout(1000);
    expect(signOuts()).toHaveLength(1);
    expect(errors).toEqual([]);

    // A key that died meanwhile: the list call finds out (its 401 is how), and no sign-out call follows it.
    await page.evaluate(() => {
      localStorage.setItem('username', 'demo');
      localStorage.setItem('api_key', 'ess_no-longer-valid');
      localStorage.setItem('orgId', 'demo');
      localStorage.setItem('status', 'test');
    });
    errors.length = 0;
    await page.goto(StaffRoutes.dashboard);
    await expect(page).toHaveURL(atPath(StaffRoutes.signIn));
    await page.waitForTimeout(1000);
    expect(signOuts()).toHaveLength(1);
    const refused = errors.filter((e) => e.startsWith('401 ')).map((e) => new URL(e.slice(4)).pathname);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((path) => path.startsWith('/api/'))).toBe(true);
  });
});
