import { Messages, StaffRoutes } from '@esign/contract';
import { en } from '../../admin/src/i18n/en';
import { apiKey, processDraft, signInAsDemo, uploadDraft } from './console';
import { expect, shot, test } from './fixtures';
import { completedRequest } from './support/requests';

/** The console's English texts of the request page, as the catalogue gives them (%{…} filled by the test). */
const T = en.console.request;
const EVENTS = en.console.events;
const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/%\{(\w+)\}/g, (_, name: string) => String(values[name]));

test.describe("a request's page", () => {
  test('a completed request: parties, documents, its audit trail as a timeline and the verification report', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await signInAsDemo(page);
    const refId = await completedRequest(page.request, await apiKey(page), 'Kavya Nair');

    // From the dashboard's row: the expanded row links to the request's page (the row itself is unchanged).
    await page.getByPlaceholder(Messages.searchPlaceholder).fill(String(refId));
    const row = page.locator('[data-testid="requests"] tbody tr', { hasText: String(refId) }).first();
    await row.getByText('us_constitution.pdf').click();
    await page.getByTestId('request-page-link').click();
    await expect(page).toHaveURL(new RegExp(`/requests/${refId}/show$`));
    await expect(page.getByRole('heading', { level: 1, name: fill(T.title, { refId }) })).toBeVisible();

    // Parties: status, method and when.
    const party = page.getByTestId('request-party-1');
    await expect(party.getByTestId('party-status')).toHaveText('COMPLETED');
    await expect(party.getByTestId('party-method')).toHaveText(en.console.methods['2']);
    await expect(party.getByTestId('signed-at')).toBeVisible();

    // Documents: the original, the signed document and its certificate of completion, the report's page.
    const documents = page.getByTestId('request-documents');
    await expect(documents.getByRole('link', { name: T.originalDocument })).toHaveAttribute('href', /original\.pdf/);
    await expect(documents.getByRole('link', { name: T.signedDocument })).toHaveAttribute('href', /signed\.pdf/);
    await expect(documents.getByRole('link', { name: T.certificate })).toHaveAttribute('href', /signed\.pdf/);
    await expect(documents.getByRole('link', { name: T.verificationPage })).toHaveAttribute(
      'href',
      /verification\.html/,
    );

    // The timeline: who, what, when and from where, in order, with the chain's verdict.
    const trail = page.getByTestId('audit-trail');
    await expect(trail.getByTestId('chain-verdict')).toHaveAttribute('data-intact', 'true');
    await expect(trail.getByTestId('chain-verdict')).toContainText(T.chainIntact);
    const whats = await trail.getByTestId('audit-what').allTextContents();
    for (const type of [
      'request.created',
      'request.submitted',
      'party.invited',
      'party.signed',
      'request.completed',
    ] as const)
      expect(whats).toContain(EVENTS[type]);
    expect(whats.indexOf(EVENTS['request.created'])).toBeLessThan(whats.indexOf(EVENTS['party.signed']));
    expect(whats.indexOf(EVENTS['party.signed'])).toBeLessThan(whats.indexOf(EVENTS['request.completed']));
    const opened = trail.locator('[data-testid="audit-event"][data-type="party.opened"]');
    await expect(opened.getByTestId('audit-who')).toContainText('Kavya Nair');
    await expect(opened.getByTestId('audit-from')).toHaveText(/127\.0\.0\.1/);
    await expect(opened.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);

    // The verification report: the verdict and one valid row per signature (the signer's and the seal).
    const report = page.getByTestId('verification');
    await expect(report.getByTestId('verification-verdict')).toHaveAttribute('data-ok', 'true');
    await expect(report.getByTestId('verification-verdict')).toContainText(T.verificationOk);
    const signatures = report.getByTestId('signature-row');
    expect(await signatures.count()).toBeGreaterThanOrEqual(2);
    for (const valid of await report.getByTestId('signature-valid').allTextContents()) expect(valid).toBe(T.valid);
    await expect(signatures.filter({ hasText: 'Kavya Nair' }).first()).toContainText(en.console.methods['2']);
    await shot(page, 'request-page-completed');
  });

  test('a request in progress: nothing signed yet, the actions, and a delete goes back to the dashboard', async ({
    page,
  }) => {
    await signInAsDemo(page);
    const draft = await uploadDraft(page);
    await processDraft(page, draft.refId);
    await page.goto(StaffRoutes.requestShow.replace(':id', String(draft.refId)));
    await expect(page.getByTestId('verification')).toContainText(T.verificationNone);
    await expect(
      page.getByTestId('request-party-1').getByRole('button', { name: Messages.resendInvite }),
    ).toBeVisible();
    await expect(page.getByTestId('audit-trail').getByTestId('chain-verdict')).toHaveAttribute('data-intact', 'true');

    // Duplicate as the dashboard does it: the spec's question, then where the copy is.
    await page.getByRole('button', { name: en.console.common.duplicate }).click();
    await expect(page.getByRole('dialog')).toContainText(Messages.duplicateConfirm);
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page.getByTestId('duplicated-toast')).toBeVisible();

    // Delete: the spec's question, then the dashboard without the request.
    await page.getByRole('button', { name: T.delete, exact: true }).click();
    await expect(page.getByRole('dialog')).toContainText(Messages.deleteConfirm);
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByText(fill(en.esign.deletedRows, { count: 1 }))).toBeVisible();
  });

  test('an unknown Ref ID leads back to the dashboard', async ({ page }) => {
    await signInAsDemo(page);
    await page.goto(StaffRoutes.requestShow.replace(':id', '999999999'));
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
