import {
  FIELD_KIND_LABELS,
  FIELD_PATTERNS,
  FieldMessages,
  Headers as ApiHeaders,
  Limits,
  Messages,
  StaffRoutes,
  fill,
} from '@esign/contract';
import type { DraftReference, FieldDefinition, FieldKind, TemplateView, UploadResponse } from '@esign/contract';
import type { Locator, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { FieldTexts } from '../../admin/src/fields/texts';
import { apiKey, choose, fillRecipient, RECIPIENTS, signInAsDemo, storeUpload } from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';

/**
 * Fields beyond the signature box in the staff console (issue 21): placing them on /upload (palette, panel, keyboard,
 * copy to every page), SAVE and the draft read back; the template editor's role fields and form-field values; and a
 * template's values changed on the Initiate page.
 */

const SIGNERS = [
  {
    name: 'Asha Rao',
    email: 'asha@example.in',
    phoneNumber: '+91 98765 43210',
    observer: false,
    signature_type: 'e-Signature',
  },
  {
    name: 'Vikram Shah',
    email: 'vikram@example.in',
    phoneNumber: '+91 91234 56789',
    observer: false,
    signature_type: 'e-Signature',
  },
];
/** doc_2_3_pages.pdf: three US-letter pages, shown 840 px tall on /upload. */
const LETTER = { width: 612, height: 792 };
const UPLOAD_SCALE = Limits.pageHeightPoints / LETTER.height;

const withKey = async (page: Page) => ({ [ApiHeaders.apiKey]: await apiKey(page) });

async function uploadDraft(page: Page): Promise<UploadResponse> {
  const response = await page.request.post('/v1/upload', {
    headers: await withKey(page),
    multipart: {
      data: JSON.stringify(SIGNERS),
      checkOrder: 'false',
      otpRequired: 'true',
      orgId: DEMO.orgId,
      file: {
        name: 'doc_2_3_pages.pdf',
        mimeType: 'application/pdf',
        buffer: readFileSync(fixture('pdfs', 'doc_2_3_pages.pdf')),
      },
    },
  });
  expect(response.status()).toBe(200);
  return (await response.json()) as UploadResponse;
}

async function reference(page: Page, refId: number): Promise<DraftReference[]> {
  const response = await page.request.get(`/v1/reference/${DEMO.orgId}/${refId}`, { headers: await withKey(page) });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { data: DraftReference[] }).data;
}

const kindButton = (page: Page, kind: FieldKind): Locator =>
  page.getByRole('button', { name: FieldTexts.addKind(FIELD_KIND_LABELS[kind]), exact: true });
const boxes = (page: Page): Locator => page.getByTestId('field-box');
const boxesOf = (page: Page, kind: FieldKind): Locator =>
  page.locator(`[data-testid="field-box"][data-kind="${kind}"]`);
const panel = (page: Page): Locator => page.getByTestId('field-panel');
const canvas = (page: Page): Locator => page.getByTestId('pdf-page').locator('canvas');
const roleSelect = (page: Page): Locator => page.getByRole('combobox', { name: new RegExp(`^${FieldTexts.role}`) });
const saveButton = (page: Page): Locator => page.getByRole('button', { name: Messages.saveButton, exact: true });

async function rect(locator: Locator) {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found as { x: number; y: number; width: number; height: number };
}

/** A field box's place on the page, in points, read from the screen. */
async function shownBox(page: Page, box: Locator, scale: number): Promise<number[]> {
  const pageBox = await rect(canvas(page));
  const r = await rect(box);
  return [r.x - pageBox.x, r.y - pageBox.y, r.x + r.width - pageBox.x, r.y + r.height - pageBox.y].map(
    (v) => v / scale,
  );
}

const near = (actual: number[], expected: number[], within: number) =>
  actual.forEach((v, i) =>
    expect(Math.abs(v - expected[i]), `coordinate ${i}: ${v} vs ${expected[i]}`).toBeLessThan(within),
  );

test.describe('fields on /upload', () => {
  test.use({ viewport: { width: 1600, height: 1100 } });
  test.describe.configure({ timeout: 120_000 });

  test('place text (PAN), initials on every page, a dropdown, a dropped checkbox; keyboard; SAVE; the draft reads them back', async ({
    page,
  }) => {
    await signInAsDemo(page);
    const upload = await uploadDraft(page);
    expect(upload['total-pages']).toBe(3);
    await storeUpload(page, upload);
    await page.goto(StaffRoutes.upload);
    await expect(page.getByTestId('current-signer')).toHaveText(SIGNERS[0].name);
    await expect(page.getByTestId('field-tools-heading')).toHaveText(FieldTexts.paletteFor(SIGNERS[0].name));
    await expect(kindButton(page, 'text')).toBeEnabled();
    await expect(boxes(page)).toHaveCount(0);
    const pageBox = await rect(canvas(page));
    expect(Math.round(pageBox.height)).toBe(Limits.pageHeightPoints);

    // A text field with the PAN pattern: added by a click, selected, its panel open.
    await kindButton(page, 'text').click();
    await expect(boxesOf(page, 'text')).toHaveCount(1);
    await expect(boxesOf(page, 'text')).toHaveAttribute('data-selected', 'true');
    await expect(boxesOf(page, 'text')).toBeFocused();
    await panel(page).getByTestId('field-label').fill('PAN');
    await expect(boxesOf(page, 'text')).toContainText('PAN');
    await panel(page)
      .getByRole('combobox', { name: new RegExp(`^${FieldTexts.pattern}`) })
      .click();
    await page.getByRole('option', { name: 'PAN', exact: true }).click();
    // A prefilled value the pattern refuses: the contract's message, before anything is sent.
    await panel(page).getByTestId('field-value').fill('ABC');
    await expect(panel(page).getByTestId('field-problem').first()).toContainText(FIELD_PATTERNS.PAN.message);
    await panel(page).getByTestId('field-value').fill('ABCDE1234F');
    await expect(panel(page).getByTestId('field-problem')).toHaveCount(0);
    const textBox = await shownBox(page, boxesOf(page, 'text'), UPLOAD_SCALE);
    near(textBox, [36, 36, 196, 58], 1);

    // Initials, copied to every page in one click (and a second click adds none).
    await kindButton(page, 'initials').click();
    await expect(boxesOf(page, 'initials')).toHaveCount(1);
    await panel(page).getByRole('button', { name: FieldTexts.copyToEveryPage }).click();
    await expect(page.getByTestId('field-notice')).toHaveText(FieldTexts.copied(2));
    await panel(page).getByRole('button', { name: FieldTexts.copyToEveryPage }).click();
    await expect(page.getByTestId('field-notice')).toHaveText(FieldTexts.copied(0));

    // A dropdown with its options; an empty list is refused by SAVE with the contract's message.
    await kindButton(page, 'dropdown').click();
    const options = panel(page).getByTestId('field-options');
    await options.fill('');
    const saves: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/save')) saves.push(request.postData() ?? '');
    });
    await saveButton(page).click();
    const optionsMessage = fill(FieldMessages.optionsRequired, {
      max: 30,
      length: 100,
    });
    await expect(page.getByText(optionsMessage, { exact: true }).first()).toBeVisible();
    expect(saves).toEqual([]);
    await options.fill('Basic\nPremium\nGold');
    await panel(page)
      .getByRole('combobox', { name: new RegExp(`^${FieldTexts.value}`) })
      .click();
    await page.getByRole('option', { name: 'Premium', exact: true }).click();

    // A number field moved with the keyboard (1 point a press, 10 with Shift), then removed with Delete.
    await kindButton(page, 'number').click();
    const number = boxesOf(page, 'number');
    await expect(number).toBeFocused();
    const before = await shownBox(page, number, UPLOAD_SCALE);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    const after = await shownBox(page, number, UPLOAD_SCALE);
    near(after, [before[0] + 2, before[1] + 10, before[2] + 2, before[3] + 10], 0.5);
    await page.keyboard.press('Delete');
    await expect(number).toHaveCount(0);
    await expect(panel(page)).toHaveCount(0);

    // A checkbox dragged from the palette and dropped on the page: centred where it was released.
    await canvas(page).scrollIntoViewIfNeeded();
    const shown = await rect(canvas(page));
    const source = await rect(kindButton(page, 'checkbox'));
    const drop = { x: shown.x + 400, y: shown.y + 500 };
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await page.mouse.down();
    await page.mouse.move(drop.x - 40, drop.y - 40, { steps: 6 });
    await page.mouse.move(drop.x, drop.y, { steps: 6 });
    await page.mouse.up();
    await expect(boxesOf(page, 'checkbox')).toHaveCount(1);
    const checkbox = await shownBox(page, boxesOf(page, 'checkbox'), UPLOAD_SCALE);
    near(checkbox, [400 / UPLOAD_SCALE - 7, 500 / UPLOAD_SCALE - 7, 400 / UPLOAD_SCALE + 7, 500 / UPLOAD_SCALE + 7], 1);

    // Resized by its corner handle: 30 px wider and 20 px taller.
    await boxesOf(page, 'text').click();
    const handle = page.getByTestId('field-resize');
    const h = await rect(handle);
    await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await page.mouse.down();
    await page.mouse.move(h.x + h.width / 2 + 30, h.y + h.height / 2 + 20, { steps: 5 });
    await page.mouse.up();
    const resized = await shownBox(page, boxesOf(page, 'text'), UPLOAD_SCALE);
    near(resized, [36, 36, 196 + 30 / UPLOAD_SCALE, 58 + 20 / UPLOAD_SCALE], 1);

    // Page 2 shows only its own fields: the initials' copy.
    await page.getByTestId('page-next').click();
    await expect(page.getByTestId('page-of-total')).toHaveText(fill(Messages.pageOfTotal, { page: 2, total: 3 }));
    await expect(boxes(page)).toHaveCount(1);
    await expect(boxesOf(page, 'initials')).toHaveAttribute('data-page', '2');
    await page.getByTestId('page-previous').click();
    await shot(page, 'fields-upload');

    // Signer 2: signer 1's fields stay, faded and out of reach; none of their own.
    await page.getByRole('button', { name: Messages.nextButton }).click();
    await expect(page.getByTestId('current-signer')).toHaveText(SIGNERS[1].name);
    await expect(boxes(page).first()).toHaveAttribute('data-active', 'false');
    await expect(page.locator('[data-testid="field-box"][data-active="true"]')).toHaveCount(0);

    // SAVE: each signer's fields in its entry; signer 2's none.
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/save'));
    await saveButton(page).click();
    const sent = (await request).postDataJSON() as {
      data: Array<{ order: number; fields?: Array<Partial<FieldDefinition>> }>;
    };
    await expect(page.getByText(Messages.requestSaved, { exact: true })).toBeVisible();
    const [first, second] = sent.data;
    expect(second.fields).toEqual([]);
    const sentFields = first.fields ?? [];
    expect(sentFields.map((f) => `${f.kind}@${f.page}`).sort()).toEqual(
      ['checkbox@1', 'dropdown@1', 'initials@1', 'initials@2', 'initials@3', 'text@1'].sort(),
    );
    expect(new Set(sentFields.map((f) => f.id)).size).toBe(sentFields.length);
    expect(sentFields.find((f) => f.kind === 'text')).toMatchObject({
      label: 'PAN',
      pattern: 'PAN',
      value: 'ABCDE1234F',
      required: true,
    });
    expect(sentFields.find((f) => f.kind === 'dropdown')).toMatchObject({
      options: ['Basic', 'Premium', 'Gold'],
      value: 'Premium',
    });
    expect(sentFields.find((f) => f.kind === 'checkbox')).toMatchObject({ required: false });

    // The server keeps them as sent (same ids, pages and boxes).
    const parties = await reference(page, upload.refId);
    const stored = parties.find((p) => p.order === 1)!.fields ?? [];
    expect(stored.map((f) => f.id).sort()).toEqual(sentFields.map((f) => f.id).sort());
    for (const field of sentFields) {
      const kept = stored.find((f) => f.id === field.id)!;
      expect(kept).toMatchObject({ kind: field.kind, page: field.page, signer: 1 });
      near(kept.box, field.box as number[], 0.02);
    }
    expect(stored.find((f) => f.kind === 'text')).toMatchObject({ pattern: 'PAN', value: 'ABCDE1234F' });
    expect(parties.find((p) => p.order === 2)!.fields ?? []).toEqual([]);

    // Opened again: the fields are back where they were.
    await page.reload();
    await expect(page.getByTestId('current-signer')).toHaveText(SIGNERS[0].name);
    await expect(boxesOf(page, 'text')).toHaveCount(1);
    await expect(boxes(page)).toHaveCount(4);
    near(await shownBox(page, boxesOf(page, 'text'), UPLOAD_SCALE), stored.find((f) => f.kind === 'text')!.box, 1);
    await boxesOf(page, 'dropdown').click();
    await expect(panel(page).getByTestId('field-options')).toHaveValue('Basic\nPremium\nGold');

    // A refusal of the API shows its message, as SAVE's other errors do.
    await page.route('**/v1/save', (route) =>
      route.fulfill({ status: 400, json: { code: 400, error: 'Bad Request', message: FieldMessages.tooManyFields } }),
    );
    await saveButton(page).click();
    await expect(page.getByText(FieldMessages.tooManyFields, { exact: true })).toBeVisible();
    await page.unroute('**/v1/save');

    // Removing every field and saving sends [] (the API then forgets them).
    for (let i = await boxes(page).count(); i > 0; i--) {
      await boxes(page).first().focus();
      await page.keyboard.press('Backspace');
    }
    await page.getByTestId('page-next').click();
    await boxes(page).first().focus();
    await page.keyboard.press('Delete');
    await page.getByTestId('page-next').click();
    await boxes(page).first().focus();
    await page.keyboard.press('Delete');
    await expect(boxes(page)).toHaveCount(0);
    const emptied = page.waitForRequest((r) => r.url().endsWith('/v1/save'));
    await saveButton(page).click();
    const emptiedBody = (await emptied).postDataJSON() as { data: Array<{ fields?: unknown[] }> };
    expect(emptiedBody.data.map((entry) => entry.fields)).toEqual([[], []]);
    await expect(page.getByText(Messages.requestSaved, { exact: true })).toBeVisible();
    expect((await reference(page, upload.refId)).map((p) => p.fields ?? [])).toEqual([[], []]);
  });
});

test.describe('fields in templates', () => {
  test.use({ viewport: { width: 1600, height: 1300 } });
  test.describe.configure({ timeout: 120_000 });

  test('the editor places role fields and sets form values; the Initiate page changes them for one request', async ({
    page,
  }) => {
    await signInAsDemo(page);
    const headers = await withKey(page);
    await page.goto(StaffRoutes.templateCreate);
    await page.getByTestId('template-file-input').setInputFiles(fixture('pdfs', 'sample_form.pdf'));
    await expect(page.locator('[data-testid="template-field"][data-field-name="Name_Last"]')).toBeVisible();
    const templateName = `Fields form ${Date.now()}`;
    await page.getByLabel(Messages.templateNameColumn).fill(templateName);

    // The PDF's own form fields take values.
    await page.getByLabel(FieldTexts.formFieldValue('Name_Last'), { exact: true }).fill('Rao');
    await page.getByLabel(FieldTexts.formFieldValue('HIGH SCHOOL DIPLOMA'), { exact: true }).check();

    // A text field for Signer 2 with a prefilled value, and initials for Signer 1.
    await roleSelect(page).click();
    await page.getByRole('option', { name: FieldTexts.roleName(2), exact: true }).click();
    await kindButton(page, 'text').click();
    await expect(boxesOf(page, 'text')).toHaveAttribute('data-signer', '2');
    await panel(page).getByTestId('field-label').fill('Employer');
    await panel(page).getByTestId('field-value').fill('Acme');
    await roleSelect(page).click();
    await page.getByRole('option', { name: FieldTexts.roleName(1), exact: true }).click();
    await kindButton(page, 'initials').click();
    await expect(boxesOf(page, 'initials')).toHaveAttribute('data-signer', '1');
    await expect(boxesOf(page, 'text')).toHaveAttribute('data-active', 'false');
    await shot(page, 'fields-template');

    const created = page.waitForResponse((r) => r.url().endsWith('/api/templates') && r.request().method() === 'POST');
    await page.getByRole('button', { name: Messages.templateSave, exact: true }).click();
    expect((await created).status()).toBe(201);
    await expect(page).toHaveURL(/\/templates$/);
    const listed = await page.request.get('/api/templates?range=[0,99]', { headers });
    const template = ((await listed.json()) as TemplateView[]).find((t) => t.template_name === templateName)!;
    expect(template.template_annotation.formFieldValues).toEqual({ Name_Last: 'Rao', 'HIGH SCHOOL DIPLOMA': true });
    const fields = template.template_annotation.fields ?? [];
    expect(fields.map((f) => `${f.kind}:${f.signer}`).sort()).toEqual(['initials:1', 'text:2']);
    const employer = fields.find((f) => f.kind === 'text')!;
    expect(employer).toMatchObject({ label: 'Employer', value: 'Acme', page: 1 });

    // Editing the template: its fields come back, and a change is saved (PUT).
    await page.getByRole('button', { name: `Edit template ${templateName}` }).click();
    await expect(boxesOf(page, 'text')).toHaveCount(1);
    await expect(page.getByLabel(FieldTexts.formFieldValue('Name_Last'), { exact: true })).toHaveValue('Rao');
    await roleSelect(page).click();
    await page.getByRole('option', { name: FieldTexts.roleName(2), exact: true }).click();
    await boxesOf(page, 'text').focus();
    await page.keyboard.press('Shift+ArrowRight');
    const updated = page.waitForResponse((r) => r.request().method() === 'PUT');
    await page.getByRole('button', { name: Messages.templateSave, exact: true }).click();
    expect((await updated).status()).toBe(200);
    const again = (await (await page.request.get(`/api/templates/${template.id}`, { headers })).json()) as TemplateView;
    const moved = (again.template_annotation.fields ?? []).find((f) => f.id === employer.id)!;
    expect(moved.box[0]).toBeCloseTo(employer.box[0] + 10, 1);

    // The Initiate page: the template's values shown and changed for this request.
    await page.goto(StaffRoutes.requestInitiate);
    await choose(page, page, Messages.selectFileUploadType, Messages.chooseTemplate);
    const dialog = page.getByRole('dialog', { name: Messages.pickTemplate });
    await dialog
      .waitFor({ timeout: 2000 })
      .catch(() => page.getByRole('button', { name: Messages.pickTemplate }).click());
    await dialog.getByPlaceholder(Messages.searchPlaceholder).fill(templateName);
    await dialog.getByRole('radio', { name: templateName }).click();
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    const values = page.getByTestId('template-values');
    await expect(values.getByLabel(FieldTexts.formFieldValue('Name_Last'), { exact: true })).toHaveValue('Rao');
    const prefilled = values.getByLabel(`${FieldTexts.roleName(2)}: Employer`, { exact: true });
    await expect(prefilled).toHaveValue('Acme');
    await values.getByLabel(FieldTexts.formFieldValue('Name_Last'), { exact: true }).fill('Iyer');
    await prefilled.fill('Globex');
    await page.getByRole('button', { name: Messages.addMoreSignatories }).click();
    await fillRecipient(page, 0, RECIPIENTS[0]);
    await fillRecipient(page, 1, RECIPIENTS[1]);
    const uploading = page.waitForRequest((r) => r.url().endsWith('/v1/upload'));
    await page.getByRole('button', { name: Messages.proceed }).click();
    const body = (await uploading).postData() ?? '';
    expect(body).toContain(JSON.stringify({ Name_Last: 'Iyer' }));
    expect(body).toContain(JSON.stringify({ [employer.id]: 'Globex' }));
    await expect(page).toHaveURL(/\/upload$/);

    // The request's signers got the template's fields by role, Signer 2's with the value given here.
    const refId = Number(await page.evaluate(() => localStorage.getItem('refId')));
    const parties = await reference(page, refId);
    const second = parties.find((p) => p.order === 2)!.fields ?? [];
    expect(second.find((f) => f.kind === 'text')).toMatchObject({ label: 'Employer', value: 'Globex' });
    expect((parties.find((p) => p.order === 1)!.fields ?? []).map((f) => f.kind)).toEqual(['initials']);
    await expect(boxesOf(page, 'initials')).toHaveAttribute('data-active', 'true');
    await expect(boxesOf(page, 'text')).toHaveAttribute('data-active', 'false');

    await page.request.delete(`/api/templates/${template.id}`, { headers });
  });
});
