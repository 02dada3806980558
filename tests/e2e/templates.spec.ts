import fs from 'node:fs';
import { Headers as ApiHeaders, Limits, Messages, RequestMessages, StaffRoutes } from '@esign/contract';
import type { TemplateFieldAnnotation, TemplateView } from '@esign/contract';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { apiKey, choose, signInAsDemo } from './console';
import { expect, fixture, shot, test } from './fixtures';

const SAMPLE_FORM = fixture('pdfs', 'sample_form.pdf');

/** sample_form.pdf has one US Letter page (612 x 792 points); the editor shows pages 800 CSS pixels high. */
const PAGE = { width: 612, height: 792 };
const SHOWN_HEIGHT_PX = 800;
const SCALE = SHOWN_HEIGHT_PX / PAGE.height;

const path = (pathname: string) => new RegExp(`^[^?#]*//[^/]+${pathname.replace(/[/.?]/g, '\\$&')}(\\?.*)?$`);

/** Signs in through the UI as demo; answers the headers that call the API as the same user. */
const signIn = async (page: Page): Promise<Record<string, string>> => {
  await signInAsDemo(page);
  const key = await apiKey(page);
  expect(key).toBeTruthy();
  return { [ApiHeaders.apiKey]: key };
};

const listTemplates = async (request: APIRequestContext, headers: Record<string, string>): Promise<TemplateView[]> => {
  const response = await request.get('/api/templates?range=[0,99]', { headers });
  expect(response.status()).toBe(200);
  return (await response.json()) as TemplateView[];
};

/** Journeys share one server: each starts from an organisation without templates. */
const removeAllTemplates = async (request: APIRequestContext, headers: Record<string, string>) => {
  for (const template of await listTemplates(request, headers)) {
    expect((await request.delete(`/api/templates/${template.id}`, { headers })).status()).toBe(200);
  }
};

const fileInput = (page: Page) => page.getByTestId('template-file-input');
const fileError = (page: Page) => page.getByTestId('template-file-error');
const nameField = (page: Page) => page.getByLabel(Messages.templateNameColumn);
const saveButton = (page: Page) => page.getByRole('button', { name: Messages.templateSave, exact: true });
const overlayField = (page: Page, name: string): Locator =>
  page.locator(`[data-testid="template-field"][data-field-name="${name}"]`);

/** A PDF user-space rectangle [x, y, w, h] (lower-left origin) where the editor should show it, in page pixels. */
const expectedPixels = ([x, y, w, h]: number[]) => ({
  left: x * SCALE,
  top: (PAGE.height - y - h) * SCALE,
  width: w * SCALE,
  height: h * SCALE,
});

const closeTo = (actual: number, expected: number, within: number) =>
  expect(Math.abs(actual - expected), `${actual} should be within ${within} of ${expected}`).toBeLessThanOrEqual(
    within,
  );

/** A widget as a comparable key: name, type, option, page and bbox. */
const fieldKey = (field: TemplateFieldAnnotation) =>
  JSON.stringify([
    field.formFieldName,
    field.customData.type,
    field.customData.option ?? null,
    field.pageIndex,
    ...field.bbox,
  ]);

test.describe('templates', () => {
  // The whole 800-pixel page in view, so drags land where they are aimed.
  test.use({ viewport: { width: 1440, height: 1400 } });
  // pdf.js renders and reads each page in the browser; on a busy machine a journey takes longer than the default.
  test.describe.configure({ timeout: 60_000 });

  test('the editor checks the file and the name before anything is sent', async ({ page }) => {
    const headers = await signIn(page);
    await removeAllTemplates(page.request, headers);
    const posts: string[] = [];
    const checks: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST') return;
      const pathname = new URL(request.url()).pathname;
      if (pathname === '/api/templates') posts.push(request.url());
      if (pathname === '/v1/onboard/checkDocument') checks.push(request.postData() ?? '');
    });

    await page.goto(StaffRoutes.templateCreate);
    await expect(page.getByRole('heading', { name: Messages.templateEditorHeading })).toBeVisible();
    await expect(page.getByText(Messages.fileNoteOnlyPdf)).toBeVisible();
    await expect(page.getByText(Messages.fileNoteMaxSize)).toBeVisible();

    // Save with nothing: both are asked for.
    await saveButton(page).click();
    await expect(page.getByText(RequestMessages.templateNameRequired)).toBeVisible();
    await expect(fileError(page)).toHaveText(RequestMessages.fileRequired);

    const pdf = fs.readFileSync(SAMPLE_FORM);
    // Two dots in the name: told the rule it breaks (issue 18, point 11).
    await fileInput(page).setInputFiles({ name: 'sample.form.pdf', mimeType: 'application/pdf', buffer: pdf });
    await expect(fileError(page)).toHaveText(Messages.pdfFileNameDots);
    await expect(page.getByTestId('pdf-page')).toHaveCount(0);
    // Not a PDF.
    await fileInput(page).setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(fileError(page)).toHaveText(Messages.invalidPdf);
    // A PDF name with another type.
    await fileInput(page).setInputFiles({ name: 'image.pdf', mimeType: 'image/png', buffer: Buffer.from('x') });
    await expect(fileError(page)).toHaveText(Messages.invalidPdf);
    // Too large (the limit itself is refused: "less than 5MB").
    const big = Buffer.concat([pdf, Buffer.alloc(Limits.maxFileBytes - pdf.length)]);
    await fileInput(page).setInputFiles({ name: 'big.pdf', mimeType: 'application/pdf', buffer: big });
    await expect(fileError(page)).toHaveText(Messages.fileTooLarge);
    // A .pdf that pdf.js cannot read: the server's check gives the reason.
    await fileInput(page).setInputFiles({
      name: 'fake.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('this is not a PDF at all'),
    });
    await expect(fileError(page)).toHaveText(Messages.invalidPdf);
    expect(checks).toHaveLength(1);

    // A good file clears the message; the name is still required. pdf.js reads it, so the server is not asked: the
    // last file's failure must not send this one to the check (whose answer once came back as 'damaged').
    await fileInput(page).setInputFiles(SAMPLE_FORM);
    await expect(fileError(page)).toHaveText('');
    await expect(page.getByTestId('template-file-name')).toHaveText('sample_form.pdf');
    await expect(overlayField(page, 'Name_Last')).toBeVisible();
    await expect(fileError(page)).toHaveText('');
    expect(checks).toHaveLength(1);
    await nameField(page).fill('   ');
    await saveButton(page).click();
    await expect(page.getByText(RequestMessages.templateNameRequired)).toBeVisible();
    await expect(page).toHaveURL(path(StaffRoutes.templateCreate));
    expect(posts).toEqual([]);
  });

  test('create a template from sample_form.pdf: its fields, a drawn signature field, Save, the list and the API', async ({
    page,
  }) => {
    const headers = await signIn(page);
    await removeAllTemplates(page.request, headers);

    await page.goto(StaffRoutes.templates);
    await expect(page.getByRole('heading', { name: Messages.templatesHeading })).toBeVisible();
    await expect(page.getByTestId('templates-empty')).toHaveText(Messages.noTemplatesAvailable);
    await page.getByRole('button', { name: Messages.createTemplate }).click();
    await expect(page).toHaveURL(path(StaffRoutes.templateCreate));

    await fileInput(page).setInputFiles(SAMPLE_FORM);
    const pdfPage = page.getByTestId('pdf-page');
    await expect(pdfPage).toBeVisible();
    await expect(page.getByTestId('template-page-number')).toHaveText(
      Messages.pageOfTotal.replace('{page}', '1').replace('{total}', '1'),
    );

    // The PDF's own fields, outlined and labelled with name and type.
    await expect(overlayField(page, 'Name_Last')).toHaveAttribute('data-field-type', 'text-field');
    await expect(overlayField(page, 'Name_Last')).toContainText('Name_Last');
    await expect(overlayField(page, 'Name_Last')).toContainText('text-field');
    await expect(overlayField(page, 'HIGH SCHOOL DIPLOMA')).toHaveAttribute('data-field-type', 'checkbox-field');
    await expect(overlayField(page, 'Sex')).toHaveCount(2);
    await expect(overlayField(page, 'Sex').first()).toHaveAttribute('data-field-type', 'radiobutton-field');
    await expect(overlayField(page, 'EMPLOYEE SIGNATURE')).toHaveAttribute('data-field-type', 'signature-field');
    await expect(overlayField(page, 'Print')).toHaveCount(0); // a push button is not a template field

    // Each outline sits where the field is: /Rect [30.12 400.92 272.76 419.64] of Name_Last.
    await pdfPage.scrollIntoViewIfNeeded();
    const pageBox = (await pdfPage.boundingBox())!;
    closeTo(pageBox.height, SHOWN_HEIGHT_PX, 1);
    closeTo(pageBox.width, PAGE.width * SCALE, 1);
    const nameBox = (await overlayField(page, 'Name_Last').boundingBox())!;
    const want = expectedPixels([30.12, 400.92, 272.76 - 30.12, 419.64 - 400.92]);
    closeTo(nameBox.x - pageBox.x, want.left, 1.5);
    closeTo(nameBox.y - pageBox.y, want.top, 1.5);
    closeTo(nameBox.width, want.width, 1.5);
    closeTo(nameBox.height, want.height, 1.5);

    const fieldCount = await page.getByTestId('template-field').count();
    expect(fieldCount).toBeGreaterThan(20);

    // Remove one field.
    await page.getByRole('button', { name: 'Name_Suffix' }).click();
    await expect(overlayField(page, 'Name_Suffix')).toHaveCount(0);
    await expect(page.getByTestId('template-field')).toHaveCount(fieldCount - 1);

    // A click is not a field; a drag is a new signature field.
    const surface = page.getByTestId('template-draw-surface');
    await surface.click({ position: { x: 400, y: 640 } });
    await expect(page.getByTestId('template-field')).toHaveCount(fieldCount - 1);
    const from = { x: pageBox.x + 360, y: pageBox.y + 610 };
    const to = { x: pageBox.x + 540, y: pageBox.y + 660 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await expect(page.getByTestId('template-draw-box')).toBeVisible();
    await page.mouse.up();
    await expect(page.getByTestId('template-draw-box')).toHaveCount(0);
    const drawn = page.locator('[data-testid="template-field"][data-field-type="signature-field"]').last();
    await expect(drawn).toHaveAttribute('data-field-name', 'Signature 1');
    await expect(page.getByTestId('template-field')).toHaveCount(fieldCount);
    const drawnBox = (await drawn.boundingBox())!;
    closeTo(drawnBox.x - pageBox.x, 360, 1.5);
    closeTo(drawnBox.y - pageBox.y, 610, 1.5);
    closeTo(drawnBox.width, 180, 1.5);
    closeTo(drawnBox.height, 50, 1.5);
    await shot(page, 'template-create');

    // The name is required; then Save lands on the list.
    await saveButton(page).click();
    await expect(page.getByText(RequestMessages.templateNameRequired)).toBeVisible();
    await nameField(page).fill('Employee form');
    await saveButton(page).click();
    await expect(page).toHaveURL(path(StaffRoutes.templates));
    const row = page.getByTestId('template-row');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-template-name', 'Employee form');
    await expect(row).toContainText('sample_form.pdf');
    await expect(row).toContainText(String(fieldCount));
    await shot(page, 'templates');

    // The list's search is the server's (GET /api/templates?filter={"q":…}): a name not there says so; cleared, the
    // row is back; the name's case does not matter.
    const search = page.getByPlaceholder(Messages.searchPlaceholder);
    await search.fill('no such template');
    await expect(page.getByTestId('templates-empty')).toHaveText(Messages.noRecordsFound);
    await search.fill('EMPLOYEE');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-template-name', 'Employee form');

    // Through the API: the annotation the editor built.
    const [template] = await listTemplates(page.request, headers);
    expect(template).toMatchObject({ template_name: 'Employee form', filename: 'sample_form.pdf', total_pages: 1 });
    expect(template.id).toBe(template.template_id);
    await expect(row).toHaveAttribute('data-template-id', template.template_id);
    const { annotations, formFieldValues } = template.template_annotation;
    expect(formFieldValues).toEqual({});
    expect(annotations).toHaveLength(fieldCount);
    expect(template.field_count).toBe(fieldCount);
    const named = (name: string) => annotations.filter((a) => a.formFieldName === name);
    expect(named('Name_Suffix')).toEqual([]);
    expect(named('Name_Last')).toEqual([
      {
        formFieldName: 'Name_Last',
        bbox: [30.12, 400.92, 242.64, 18.72],
        pageIndex: 0,
        customData: { type: 'text-field' },
      },
    ]);
    expect(named('Sex').map((a) => a.customData)).toEqual([
      { type: 'radiobutton-field', option: 'MALE' },
      { type: 'radiobutton-field', option: 'FEMALE' },
    ]);
    expect(named('EMPLOYEE SIGNATURE')[0].customData.type).toBe('signature-field');
    const [signature] = named('Signature 1');
    expect(signature).toMatchObject({ pageIndex: 0, customData: { type: 'signature-field' } });
    // Dragged from (360, 610) to (540, 660) pixels of an 800-pixel-high page: PDF user space, lower-left origin.
    const [x, y, w, h] = signature.bbox;
    closeTo(x, 360 / SCALE, 1.5);
    closeTo(y, PAGE.height - 660 / SCALE, 1.5);
    closeTo(w, 180 / SCALE, 1.5);
    closeTo(h, 50 / SCALE, 1.5);
    expect(annotations[annotations.length - 1].formFieldName).toBe('Signature 1');

    // The browser's reading of the form (pdf.js) is the server's own (@libpdf/core) for every field it kept.
    const serverRead = await page.request.post('/api/templates', {
      headers,
      multipart: {
        file: { name: 'sample_form.pdf', mimeType: 'application/pdf', buffer: fs.readFileSync(SAMPLE_FORM) },
        template_name: 'Read by the server',
      },
    });
    expect(serverRead.status()).toBe(201);
    const serverTemplate = (await serverRead.json()) as TemplateView;
    const theirs = serverTemplate.template_annotation.annotations
      .filter((a) => a.formFieldName !== 'Name_Suffix')
      .map(fieldKey)
      .sort();
    const ours = annotations
      .filter((a) => a.formFieldName !== 'Signature 1')
      .map(fieldKey)
      .sort();
    expect(ours).toEqual(theirs);
    expect((await page.request.delete(`/api/templates/${serverTemplate.id}`, { headers })).status()).toBe(200);
  });

  test('delete asks first; Cancel and Save return to ?from=', async ({ page }) => {
    const headers = await signIn(page);
    await removeAllTemplates(page.request, headers);

    // Cancel with a return path, and Cancel without one (back).
    await page.goto(`${StaffRoutes.templateCreate}?from=${StaffRoutes.dashboard}`);
    await page.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(page).toHaveURL(path(StaffRoutes.dashboard));
    await page.goto(StaffRoutes.templates);
    await page.getByRole('button', { name: Messages.createTemplate }).click();
    await expect(page).toHaveURL(path(StaffRoutes.templateCreate));
    await page.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(page).toHaveURL(path(StaffRoutes.templates));
    // Another site is never a return path.
    await page.goto(`${StaffRoutes.templateCreate}?from=//example.com/`);
    await page.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(page).toHaveURL(path(StaffRoutes.templates));

    // Save with from= (the Initiate page's '+ Create Template') goes back there.
    await page.goto(`${StaffRoutes.templateCreate}?from=${StaffRoutes.requestInitiate}`);
    await fileInput(page).setInputFiles(SAMPLE_FORM);
    await expect(overlayField(page, 'Name_Last')).toBeVisible();
    await nameField(page).fill('Back to initiate');
    await saveButton(page).click();
    await expect(page).toHaveURL(path(StaffRoutes.requestInitiate));
    const [created] = await listTemplates(page.request, headers);
    expect(created.template_name).toBe('Back to initiate');

    // Delete: the confirmation can be cancelled; confirmed, the row goes.
    await page.goto(StaffRoutes.templates);
    const row = page.getByTestId('template-row');
    await expect(row).toHaveCount(1);
    const remove = page.getByRole('button', { name: `Delete template ${created.template_name}` });
    await remove.click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText(Messages.deleteConfirm);
    await dialog.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row).toHaveCount(1);
    await remove.click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByTestId('templates-empty')).toHaveText(Messages.noTemplatesAvailable);
    expect(await listTemplates(page.request, headers)).toEqual([]);
    expect((await page.request.get(`/api/templates/${created.id}`, { headers })).status()).toBe(404);
  });
  test("the Initiate page's picker: sorting, 5 and 10 rows, search, the warning toast, Select, '+ Create Template'", async ({
    page,
  }) => {
    const headers = await signIn(page);
    await removeAllTemplates(page.request, headers);
    const pdf = fs.readFileSync(SAMPLE_FORM);
    const names = ['Gamma lease', 'alpha NDA', 'Delta offer', 'beta invoice', 'Epsilon form', 'Zeta consent'];
    for (const name of names) {
      const response = await page.request.post('/api/templates', {
        headers,
        multipart: { file: { name: 'sample_form.pdf', mimeType: 'application/pdf', buffer: pdf }, template_name: name },
      });
      expect(response.status()).toBe(201);
    }

    const dialog = page.getByRole('dialog', { name: Messages.pickTemplate });
    const pickButton = page.getByRole('button', { name: Messages.pickTemplate });
    /** Choosing 'Choose template' opens the picker on the Initiate page; its 'Pick Template' button opens it again. */
    const openPicker = async (chooseType: boolean) => {
      if (chooseType) {
        await choose(page, page, Messages.selectFileUploadType, Messages.chooseTemplate);
        await dialog.waitFor({ timeout: 2000 }).catch(() => pickButton.click());
      } else {
        await pickButton.click();
      }
      await expect(dialog).toBeVisible();
    };
    await page.goto(StaffRoutes.requestInitiate);
    await openPicker(true);
    const rows = dialog.getByTestId('template-picker-row');
    await expect(rows).toHaveCount(5);
    await expect(dialog.getByRole('columnheader', { name: Messages.templateNameColumn })).toBeVisible();
    await expect(dialog.getByRole('columnheader', { name: Messages.templateIdColumn })).toBeVisible();
    await expect(dialog.getByRole('link', { name: Messages.createTemplate })).toHaveAttribute(
      'href',
      `${StaffRoutes.templateCreate}?from=${StaffRoutes.requestInitiate}`,
    );

    // Select with nothing picked: the warning, gone after 1.5 s.
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    const warning = page.getByText(Messages.pleasePickTemplate);
    await expect(warning).toBeVisible();
    await expect(warning).toBeHidden({ timeout: Limits.templateWarningToastMs + 1500 });
    await expect(dialog).toBeVisible();

    // Sort by name (case-insensitive), both ways; by id.
    const shownNames = () => rows.evaluateAll((list) => list.map((row) => row.getAttribute('data-template-name')));
    const byName = [...names].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }));
    await dialog.getByRole('button', { name: Messages.templateNameColumn }).click();
    await expect.poll(shownNames).toEqual(byName.slice(0, 5));
    await dialog.getByRole('button', { name: Messages.templateNameColumn }).click();
    await expect.poll(shownNames).toEqual([...byName].reverse().slice(0, 5));
    await dialog.getByRole('button', { name: Messages.templateIdColumn }).click();
    const shownIds = () => rows.evaluateAll((list) => list.map((row) => row.getAttribute('data-template-id') ?? ''));
    const allIds = (await listTemplates(page.request, headers)).map((t) => t.template_id).sort();
    await expect.poll(shownIds).toEqual(allIds.slice(0, 5));

    // 10 rows a page shows all six.
    await dialog.getByRole('combobox').click();
    await page.getByRole('option', { name: '10', exact: true }).click();
    await expect(rows).toHaveCount(6);
    await shot(page, 'template-picker');

    // Search by name, on the server: the name contains the text, case aside; nothing found says so.
    const search = dialog.getByPlaceholder(Messages.searchPlaceholder);
    await search.fill('OFFER');
    await expect.poll(shownNames).toEqual(['Delta offer']);
    await search.fill('no such template');
    await expect(dialog.getByTestId('template-picker-empty')).toHaveText(Messages.noRecordsFound);
    await search.fill('');
    await expect(rows).toHaveCount(6);

    // Pick by clicking a row; Select hands it to the page.
    await dialog.getByRole('button', { name: Messages.templateNameColumn }).click();
    const row = rows.filter({ hasText: 'Delta offer' });
    await row.click();
    await expect(row).toHaveAttribute('aria-selected', 'true');
    await expect(dialog.getByRole('radio', { name: 'Delta offer' })).toBeChecked();
    const id = await row.getAttribute('data-template-id');
    await dialog.getByRole('button', { name: Messages.selectButton }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('document')).toContainText('Delta offer');
    await expect(page.getByTestId('document')).toContainText(id!);
    await shot(page, 'template-picker-selected');

    // Cancel closes; '+ Create Template' goes to the editor and Cancel comes back.
    await openPicker(false);
    await dialog.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await openPicker(false);
    await dialog.getByRole('link', { name: Messages.createTemplate }).click();
    await expect(page).toHaveURL(path(StaffRoutes.templateCreate));
    await page.getByRole('button', { name: Messages.cancelButton }).click();
    await expect(page).toHaveURL(path(StaffRoutes.requestInitiate));

    // No templates: the empty text.
    await removeAllTemplates(page.request, headers);
    await openPicker(true);
    await expect(dialog.getByTestId('template-picker-empty')).toHaveText(Messages.noTemplatesAvailable);
    await shot(page, 'template-picker-empty');
  });
});
