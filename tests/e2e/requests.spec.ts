import { Messages, RequestMessages, StaffRoutes } from '@esign/contract';
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import {
  RECIPIENTS,
  apiKey,
  choose,
  chooseFile,
  fillRecipient,
  processDraft,
  saveDraft,
  signInAsDemo,
  uploadDraft,
} from './console';

const toast = (page: Page) => page.getByRole('alert').last();

test.describe('Initiate Request: every client-side check', () => {
  test.beforeEach(async ({ page }) => {
    await signInAsDemo(page);
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await expect(page).toHaveURL(/\/request-initiate$/);
  });

  test('the defaults, the file dialog and the recipients limit', async ({ page }) => {
    await expect(page.getByRole('heading', { name: Messages.initiateRequestHeading })).toBeVisible();
    await expect(page.getByLabel(Messages.enableParallelSigning)).toBeChecked();
    await expect(page.getByLabel(Messages.otpVerificationCheckbox)).toBeChecked();
    await expect(page.getByLabel(Messages.setReminder)).not.toBeChecked();
    await page.getByLabel(Messages.setReminder).check();
    for (const label of ['12 hours', '1 day', '2 days']) await expect(page.getByLabel(label)).toBeVisible();

    await choose(page, page, Messages.selectFileUploadType, Messages.chooseFile);
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByText(Messages.fileNoteOnlyPdf)).toBeVisible();
    await expect(dialog.getByText(Messages.fileNoteMaxSize)).toBeVisible();
    // Two dots in the name (told the rule it breaks), then not a PDF at all, then too big: refused before anything is
    // sent.
    await page.getByTestId('file-input').setInputFiles({
      name: 'contract.v2.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n'),
    });
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('file-error')).toHaveText(Messages.pdfFileNameDots);
    await page.getByTestId('file-input').setInputFiles(fixture('faces', 'coffee.png'));
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('file-error')).toHaveText(Messages.invalidPdf);
    await page.getByTestId('file-input').setInputFiles({
      name: 'huge.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.alloc(5_242_880, 32),
    });
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('file-error')).toHaveText(Messages.fileTooLarge);
    await dialog.getByRole('button', { name: Messages.cancelButton }).click();
    // Gone (its own 'Choose File' button with it) before the page's one opens it again.
    await expect(dialog).toHaveCount(0);

    // A damaged PDF passes the client checks and is refused by the server's check, with its message.
    await page.getByRole('button', { name: Messages.chooseFile }).click();
    await page.getByTestId('file-input').setInputFiles(fixture('pdfs', 'encrypted_new.pdf'));
    await page.getByRole('dialog').getByRole('button', { name: Messages.selectButton }).click();
    await expect(toast(page)).toContainText('password protected');

    const add = page.getByRole('button', { name: Messages.addMoreSignatories });
    await add.hover();
    await expect(page.getByRole('tooltip')).toHaveText(Messages.addMoreSignatories);
    for (let i = 1; i < 6; i++) await add.click();
    await expect(page.getByTestId('recipient-6')).toBeVisible();
    await expect(add).toBeDisabled();
    await add.locator('..').hover();
    await expect(page.getByRole('tooltip')).toHaveText(Messages.maximumLimitReached);
    await shot(page, 'initiate-six-recipients');
  });

  test("PROCEED says what is missing, in the specification's words", async ({ page }) => {
    const proceed = page.getByRole('button', { name: Messages.proceed });
    await proceed.click();
    await expect(toast(page)).toHaveText(Messages.fillFormDetails);
    // Toasts hide after 3 s.
    await page.waitForTimeout(2000);
    await expect(page.getByRole('alert').filter({ hasText: Messages.fillFormDetails })).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: Messages.fillFormDetails })).toBeHidden({ timeout: 1500 });

    const card = page.getByTestId('recipient-1');
    await card.getByLabel('Name', { exact: true }).fill('Asha Rao');
    await card.getByLabel('Email', { exact: true }).fill('asha@example');
    await card.getByLabel('Phone of recipient 1').fill('98765 43210');
    await proceed.click();
    await expect(card.getByText(Messages.invalidEmail)).toBeVisible();

    await card.getByLabel('Email', { exact: true }).fill('asha@example.in');
    await card.getByLabel('Phone of recipient 1').fill('987');
    await proceed.click();
    await expect(card.getByText(RequestMessages.phoneInvalid)).toBeVisible();

    await card.getByLabel('Phone of recipient 1').fill('98765 43210');
    await choose(page, card, 'Recipient type', 'Needs to sign');
    await proceed.click();
    await expect(card.getByText(Messages.selectSignatureType)).toBeVisible();

    // Receiving a copy takes the signature type away.
    await choose(page, card, 'Recipient type', 'Receives a copy');
    await expect(card.getByLabel('Signature type', { exact: true })).toHaveCount(0);
    await choose(page, card, 'Recipient type', 'Needs to sign');
    await choose(page, card, 'Signature type', 'e-Signature');

    await proceed.click();
    await expect(toast(page)).toHaveText(Messages.fillFormDetails); // no file yet
    await expect(page.locator('#main-content').getByText(Messages.fillFormDetails)).toBeVisible();

    await chooseFile(page, 'normal.pdf');
    await page.getByLabel(Messages.setReminder).check();
    await proceed.click();
    await expect(toast(page)).toHaveText(Messages.selectDuration);
    await page.getByLabel('1 day').check();

    // The server's own checks come back with its message (an Indian mobile number is required).
    await card.getByLabel('Phone of recipient 1').fill('12345');
    await proceed.click();
    await expect(toast(page)).toContainText('valid Indian phone number');

    await card.getByLabel('Phone of recipient 1').fill('98765 43210');
    await proceed.click();
    await expect(page).toHaveURL(/\/upload$/);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('upload_response') ?? 'null'));
    expect(stored.requests[0]).toMatchObject({
      name: 'Asha Rao',
      phoneNumber: '+919876543210',
      signature_type: 'e-Signature',
    });
  });
});

test.describe('Initiate Request: a template, and the failures of the upload', () => {
  test.beforeEach(async ({ page }) => signInAsDemo(page));

  const oneSigner = async (page: Page) => {
    await fillRecipient(page, 0, RECIPIENTS[0]);
  };

  test('a request started from a template goes on to the placement with its pages', async ({ page }) => {
    const created = await page.request.post('/api/templates', {
      headers: { apikey: await apiKey(page) },
      multipart: {
        template_name: 'Employee form',
        file: {
          name: 'sample_form.pdf',
          mimeType: 'application/pdf',
          buffer: readFileSync(fixture('pdfs', 'sample_form.pdf')),
        },
      },
    });
    expect(created.status()).toBe(201);
    const templateId = (await created.json()).template_id as string;
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await choose(page, page, Messages.selectFileUploadType, Messages.chooseTemplate);
    const picker = page.getByRole('dialog', { name: Messages.pickTemplate });
    await picker.locator(`[data-template-id="${templateId}"]`).click();
    await picker.getByRole('button', { name: Messages.selectButton }).click();
    await expect(page.getByTestId('document')).toContainText('Employee form');
    await oneSigner(page);
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(page).toHaveURL(/\/upload$/);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('upload_response') ?? 'null'));
    expect(stored['total-pages']).toBe(1);
  });

  test("a server failure and a lost connection give the catalogue's texts", async ({ page }) => {
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await chooseFile(page, 'normal.pdf');
    await oneSigner(page);
    await page.route('**/v1/upload', (route) => route.fulfill({ status: 500, json: { code: 500, message: 'boom' } }));
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(toast(page)).toHaveText(Messages.uploadFailed);
    await page.unroute('**/v1/upload');
    await page.route('**/v1/upload', (route) => route.abort('connectionfailed'));
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(toast(page)).toHaveText(Messages.connectionFailed);
    await expect(page).toHaveURL(/\/request-initiate$/);
  });
});

test.describe('dashboard and drafts', () => {
  /** A request sent first, so that by the last test its invitation is over a minute old and may be resent. */
  let sentEarly: { refId: number; at: number };

  test.beforeAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
    const auth = Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64');
    const key = (
      await (
        await api.get(`/consumers/${DEMO.username}/key-auth`, { headers: { authorization: `Basic ${auth}` } })
      ).json()
    ).data[0].key as string;
    const up = await api.post('/v1/upload', {
      headers: { apikey: key },
      multipart: {
        data: JSON.stringify([
          {
            name: 'Rahul Nair',
            email: 'rahul@example.in',
            phoneNumber: '+91 9876500001',
            observer: false,
            signature_type: 'e-Signature',
          },
        ]),
        checkOrder: 'false',
        otpRequired: 'true',
        orgId: DEMO.orgId,
        file: {
          name: 'with_cropbox.pdf',
          mimeType: 'application/pdf',
          buffer: readFileSync(fixture('pdfs', 'with_cropbox.pdf')),
        },
      },
    });
    const refId = (await up.json()).refId as number;
    await api.post('/v1/process', {
      headers: { apikey: key },
      data: { orgId: DEMO.orgId, data: [{ refId, order: 1 }] },
    });
    sentEarly = { refId, at: Date.now() };
    await api.dispose();
  });

  test.beforeEach(async ({ page }) => signInAsDemo(page));

  test('a sent request: newest first, progress, the party table, resend, duplicate and delete', async ({ page }) => {
    const older = await uploadDraft(page, 'doc_2_3_pages.pdf');
    await processDraft(page, older.refId);
    const up = await uploadDraft(page, 'normal.pdf');
    await processDraft(page, up.refId);
    await page.reload();

    const rows = page.locator('[data-testid="requests"] tbody tr');
    await expect(rows.first()).toContainText(String(up.refId));
    await expect(rows.first()).toContainText('normal.pdf');
    await expect(rows.first().getByTestId('progress')).toContainText('0 of 2 signed');
    await expect(page.getByTestId('mode-badge')).toHaveText(Messages.testBadge);

    await rows.first().getByText('normal.pdf').click();
    const parties = page.getByTestId('party-table');
    await expect(parties).toBeVisible();
    for (const column of [
      'Party name',
      'Email address',
      'Original document link',
      'Signed document link',
      'Sign Url',
      'Status',
      'Actions',
    ])
      await expect(parties.getByRole('columnheader', { name: column })).toBeVisible();
    const asha = parties.getByTestId('party-1');
    await expect(asha).toContainText('IN-PROGRESS');
    await expect(asha).toContainText(Messages.notGenerated);
    await expect(asha.getByRole('link', { name: 'Sign Url' })).toHaveAttribute(
      'href',
      new RegExp(`/esign/demo/${up.refId}/1\\?token=`),
    );
    await expect(parties.getByTestId('party-3')).toContainText('WAITING');
    await expect(parties.getByTestId('party-3').getByRole('link', { name: 'Sign Url' })).toHaveCount(0);
    await shot(page, 'dashboard-expanded');

    // The invitation went out a moment ago: the server refuses another so soon, and the console says so.
    await asha.getByRole('button', { name: Messages.resendInvite }).click();
    await expect(page.getByText(Messages.inviteFailed)).toBeVisible();

    // Duplicate: the confirmation with Yes and No, then a new draft.
    await rows.first().getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await expect(page.getByRole('dialog')).toContainText(Messages.duplicateConfirm);
    await page.getByRole('button', { name: 'No' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page.getByTestId('wait-text')).toBeHidden();

    // Delete: the confirmation, then the row is gone.
    await rows.first().getByRole('checkbox').check();
    await page.getByRole('button', { name: Messages.deleteRow }).hover();
    await expect(page.getByRole('tooltip')).toHaveText(Messages.deleteRow);
    await page.getByRole('button', { name: Messages.deleteRow }).click();
    await expect(page.getByRole('dialog')).toContainText(Messages.deleteConfirm);
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page.locator('[data-testid="requests"]')).not.toContainText(String(up.refId));
    await expect(page.locator('[data-testid="requests"]')).toContainText(String(older.refId));

    await page.goto(StaffRoutes.drafts);
    await expect(page.getByText('normal.pdf').first()).toBeVisible();
  });

  test('pagination 5 or 10, default 5; search by Ref ID and by file name', async ({ page }) => {
    const refIds: number[] = [];
    // More than a page of 10, whatever ran before.
    for (let i = 0; i < 11; i++) {
      const up = await uploadDraft(page, i % 2 ? 'giraffe.pdf' : 'american_flag.pdf');
      await processDraft(page, up.refId);
      refIds.push(up.refId);
    }
    await page.reload();
    const rows = page.locator('[data-testid="requests"] tbody tr');
    await expect(rows).toHaveCount(5);
    await page.getByRole('combobox', { name: /rows per page/i }).click();
    await page.getByRole('option', { name: '10' }).click();
    await expect(rows).toHaveCount(10);

    const search = page.getByPlaceholder(Messages.searchPlaceholder);
    await search.fill(String(refIds[2]));
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(String(refIds[2]));
    await search.fill('GIRAF');
    await expect(rows.first()).toContainText('giraffe.pdf');
    await expect(page.locator('[data-testid="requests"]')).not.toContainText('american_flag.pdf');
    await search.fill('no-such-file');
    await expect(page.getByText(Messages.noRecordsFound)).toBeVisible();
  });

  test('the dev outbox shows the invitations with their sign links', async ({ page }) => {
    const up = await uploadDraft(page, 'normal.pdf');
    await processDraft(page, up.refId);
    await page.getByRole('button', { name: Messages.outboxHeading }).click();
    await expect(page).toHaveURL(/\/outbox$/);
    await page.getByLabel('Recipient').fill(RECIPIENTS[0].email);
    const message = page
      .getByTestId('outbox-message')
      .filter({ hasText: `Ref ID ${up.refId}` })
      .first();
    await expect(message).toContainText('invitation');
    await expect(message.getByRole('link')).toHaveAttribute('href', new RegExp(`/esign/demo/${up.refId}/1\\?token=`));
    await shot(page, 'outbox');
  });

  test('an empty dashboard shows the no-data picture', async ({ page }) => {
    await page.route('**/api/requests?*', (route) =>
      route.fulfill({
        json: [],
        headers: { 'Content-Range': 'requests */0', 'Access-Control-Expose-Headers': 'Content-Range' },
      }),
    );
    await page.reload();
    await expect(page.getByTestId('no-data')).toBeVisible();
  });

  test('drafts: search, edit shows the Ref Id and the saved recipients, PROCEED keeps the Ref ID, submit', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const draft = await uploadDraft(page, 'tracemonkey.pdf');
    // Listed from its first SAVE on (an upload alone is PROCEED's unsaved draft, never listed).
    await saveDraft(page, draft);
    await page.getByRole('menuitem', { name: Messages.navDrafts }).click();
    await expect(page.getByRole('heading', { name: Messages.draftRequests })).toBeVisible();
    const search = page.getByPlaceholder(Messages.searchPlaceholder);
    await search.fill(String(draft.refId));
    const rows = page.locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(Messages.draft);
    await expect(rows.first()).toContainText('tracemonkey.pdf');
    await search.fill('TraceMonk');
    await expect(rows.first()).toContainText('tracemonkey.pdf');
    await search.fill('zzz-nothing');
    await expect(page.getByText(Messages.noRecordsFound)).toBeVisible();
    await search.fill(String(draft.refId));
    await rows.first().getByText('tracemonkey.pdf').click();
    await expect(page.getByTestId('party-table')).toContainText('SAVED');
    await shot(page, 'drafts');

    await rows.first().getByRole('button', { name: Messages.editSubmit }).click();
    await expect(page).toHaveURL(/\/request-initiate$/);
    await expect(page.getByTestId('ref-id')).toHaveText(`Ref Id: ${draft.refId}`);
    await expect(page.getByTestId('recipient-1').getByLabel('Name', { exact: true })).toHaveValue(RECIPIENTS[0].name);
    await expect(page.getByTestId('recipient-3').getByLabel('Signature type', { exact: true })).toHaveCount(0);
    await expect(page.getByTestId('document')).toHaveText('tracemonkey.pdf');
    await fillRecipient(page, 1, { ...RECIPIENTS[1], name: 'Vikram K. Shah' });
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(page).toHaveURL(/\/upload$/);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('upload_response') ?? 'null'));
    expect(stored.refId).toBe(draft.refId);
    expect(stored.requests[1].name).toBe('Vikram K. Shah');

    // Submitted from the placement: it leaves the drafts and shows on the dashboard, under the same Ref ID.
    await page.getByRole('button', { name: Messages.saveButton, exact: true }).click();
    await expect(page.getByText(Messages.requestSaved)).toBeVisible();
    await page.getByRole('button', { name: Messages.submitRequest }).click();
    await expect(page.getByRole('heading', { name: Messages.mailSent })).toBeVisible();
    await page.goto(StaffRoutes.drafts);
    await expect(page.getByTestId('no-data').or(page.locator('tbody tr').first())).toBeVisible();
    await expect(page.locator('#main-content')).not.toContainText(String(draft.refId));
    await page.goto(StaffRoutes.dashboard);
    await page.getByPlaceholder(Messages.searchPlaceholder).fill(String(draft.refId));
    await expect(page.locator('[data-testid="requests"] tbody tr').first()).toContainText('tracemonkey.pdf');
  });

  test("'Resend Invite' once the last invitation is a minute old: the toasts", async ({ page }) => {
    test.setTimeout(120_000);
    const wait = sentEarly.at + 61_000 - Date.now();
    if (wait > 0) await page.waitForTimeout(wait);
    await page.getByPlaceholder(Messages.searchPlaceholder).fill(String(sentEarly.refId));
    const rows = page.locator('[data-testid="requests"] tbody tr');
    await expect(rows).toHaveCount(1);
    await rows.first().getByText('with_cropbox.pdf').click();
    await page.getByTestId('party-1').getByRole('button', { name: Messages.resendInvite }).click();
    await expect(page.getByText(Messages.sendingInvite)).toBeVisible();
    await expect(page.getByText(Messages.inviteSent)).toBeVisible();
    // It hides after 2 s.
    await expect(page.getByText(Messages.inviteSent)).toBeHidden({ timeout: 4000 });
  });
});
