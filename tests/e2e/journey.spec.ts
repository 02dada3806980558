import { Limits, Messages, SignerTexts, StaffRoutes } from '@esign/contract';
import type { RequestListItem } from '@esign/contract';
import type { Browser, Locator, Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RECIPIENTS, apiKey, chooseFile, fillRecipient, signInAsDemo } from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import { verifySigned } from './support/face';

/**
 * A signer in their own browser (a phone for the second): the sign link, the OTP from the dev outbox in the dialog,
 * the document, Accept, e-Signature, a drawing on the pad, Submit, then 'eSign successfully completed'.
 */
async function signInBrowser(browser: Browser, signUrl: string, email: string, phone: boolean): Promise<void> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    ...(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {}),
  });
  try {
    const page = await context.newPage();
    const url = new URL(signUrl);
    await page.goto(url.pathname + url.search);
    const otp = page.getByRole('dialog');
    await otp.getByRole('button', { name: SignerTexts.getOtp }).click();
    await expect(otp.getByPlaceholder(SignerTexts.otpPlaceholder)).toBeVisible();
    const outbox = (await (await page.request.get(`/dev/outbox?to=${encodeURIComponent(email)}`)).json()) as {
      kind: string;
      channel: string;
      text: string;
    }[];
    const code = /\b(\d{6})\b/.exec(outbox.find((m) => m.kind === 'otp' && m.channel === 'email')?.text ?? '')?.[1];
    await otp.getByPlaceholder(SignerTexts.otpPlaceholder).fill(code ?? '');
    await otp.getByRole('button', { name: SignerTexts.verify }).click();
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
    await page.getByRole('button', { name: SignerTexts.yes }).click();
    await page.getByLabel(SignerTexts.methodESignature).check();
    await page.getByLabel(SignerTexts.confirmDetails).check();
    await page.getByRole('button', { name: SignerTexts.proceed }).click();
    const pad = page.getByRole('dialog', { name: SignerTexts.padTitle }).locator('canvas');
    await expect(pad).toBeVisible();
    const box = (await pad.boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + box.height / 2);
    await page.mouse.down();
    for (let x = 20; x < box.width - 20; x += 10)
      await page.mouse.move(box.x + x, box.y + box.height / 2 + Math.sin(x / 18) * (box.height / 4));
    await page.mouse.up();
    await page.getByRole('button', { name: SignerTexts.submit }).click();
    await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
    await shot(page, `journey-signed-${phone ? 'phone' : 'desktop'}`);
  } finally {
    await context.close();
  }
}

/** Mean grey-level change between two renderings of a page inside a box of the 840-unit console convention. */
function inkIn(
  original: Buffer,
  signed: Buffer,
  page: number,
  box: { x1: number; y1: number; x2: number; y2: number },
) {
  const dir = mkdtempSync(path.join(tmpdir(), 'journey-'));
  try {
    const render = (pdf: Buffer, name: string) => {
      writeFileSync(path.join(dir, `${name}.pdf`), pdf);
      execFileSync('pdftoppm', [
        '-gray',
        '-r',
        '40',
        '-f',
        String(page),
        '-l',
        String(page),
        '-singlefile',
        path.join(dir, `${name}.pdf`),
        path.join(dir, name),
      ]);
      const pgm = readFileSync(path.join(dir, `${name}.pgm`));
      const head = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.toString('latin1', 0, 64)) as RegExpExecArray;
      return { width: Number(head[1]), height: Number(head[2]), pixels: pgm.subarray(head[0].length) };
    };
    const a = render(original, 'a');
    const b = render(signed, 'b');
    const s = a.height / Limits.pageHeightPoints;
    let sum = 0;
    let count = 0;
    for (let y = Math.floor(box.y1 * s); y < Math.ceil(box.y2 * s); y++)
      for (let x = Math.floor(box.x1 * s); x < Math.ceil(box.x2 * s); x++) {
        sum += Math.abs(a.pixels[y * a.width + x] - b.pixels[y * b.width + x]);
        count++;
      }
    return sum / count;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const canvas = (page: Page): Locator => page.getByTestId('pdf-page').locator('canvas');
const signatureBox = (page: Page, order: number): Locator =>
  page.locator(`[data-testid="signature-box"][data-order="${order}"]`);

test.describe('a request from start to signed document', () => {
  // Tall enough for the whole 840-px page under the placement controls: a drag needs both ends on screen.
  test.use({ viewport: { width: 1600, height: 1500 } });
  test.describe.configure({ timeout: 120_000 });

  test('initiate (3 recipients, tracemonkey.pdf), place, save, submit, sign in the signer app; the stamp lands where it was dropped and pdfsig trusts every signature', async ({
    page,
    browser,
  }) => {
    await signInAsDemo(page);
    await page.getByRole('button', { name: Messages.initiateContract }).click();
    await chooseFile(page, 'tracemonkey.pdf');
    for (let i = 1; i < RECIPIENTS.length; i++)
      await page.getByRole('button', { name: Messages.addMoreSignatories }).click();
    for (const [i, r] of RECIPIENTS.entries()) await fillRecipient(page, i, r);
    await shot(page, 'journey-initiate');
    await page.getByRole('button', { name: Messages.proceed }).click();
    await expect(page).toHaveURL(/\/upload$/);

    // Signer 1: pages 1 and 3, the box dragged to the middle right of the page.
    await expect(signatureBox(page, 1)).toBeVisible();
    await page.getByRole('combobox', { name: Messages.selectPages }).click();
    await page.getByRole('option', { name: '3', exact: true }).click();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('listbox')).toBeHidden();
    await canvas(page).evaluate((element) => element.scrollIntoView({ block: 'end' }));
    const shown = (await canvas(page).boundingBox())!;
    const from = (await signatureBox(page, 1).boundingBox())!;
    const k = shown.height / Limits.pageHeightPoints;
    const drop = { x: 360, y: 420 }; // where the box's top-left goes, in the 840-unit convention
    // hover() waits until nothing covers the box (the page menu's backdrop fades out after Escape).
    await signatureBox(page, 1).hover();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(shown.x + drop.x * k + from.width / 2, shown.y + drop.y * k + from.height / 2, { steps: 12 });
    await page.mouse.up();
    await expect
      .poll(async () => Math.round(((await signatureBox(page, 1).boundingBox())!.x - shown.x) / k))
      .toBe(drop.x);
    await shot(page, 'journey-placement');

    // Signer 2: every page.
    await page.getByRole('button', { name: Messages.nextButton }).click();
    await page.getByLabel(Messages.applyAllPages).check();
    await page.getByRole('button', { name: Messages.saveButton, exact: true }).click();
    await expect(page.getByText(Messages.requestSaved)).toBeVisible();
    await page.getByRole('button', { name: Messages.submitRequest }).click();
    await expect(page.getByRole('heading', { name: Messages.mailSent })).toBeVisible();
    await page.getByRole('link', { name: Messages.goToDashboard }).click();
    await expect(page).toHaveURL(/\/dashboard$/);

    const row = page.locator('[data-testid="requests"] tbody tr').first();
    await expect(row).toContainText('tracemonkey.pdf');
    await expect(row.getByTestId('progress')).toContainText('0 of 2 signed');
    await row.getByText('tracemonkey.pdf').click();
    await expect(page.getByTestId('party-table')).toContainText('IN-PROGRESS');
    await expect(page.getByTestId('party-3')).toContainText('WAITING');

    // Both signers sign in the signer app, in turn (the second on a phone); the job runner applies and seals.
    const key = await apiKey(page);
    const list = await page.request.get(`/v1/request_all/${DEMO.orgId}`, { headers: { apikey: key } });
    const item = ((await list.json()).data as RequestListItem[]).find((r) => r.filename === 'tracemonkey.pdf')!;
    for (const [i, party] of item.data.filter((p) => !p.observer).entries()) {
      // The second signer's link works once the first signature is applied.
      await expect
        .poll(
          async () =>
            (
              (await (
                await page.request.get(`/api/requests/${item.refId}`, { headers: { apikey: key } })
              ).json()) as RequestListItem
            ).data[i].status,
          { timeout: 60_000 },
        )
        .toBe('in-progress');
      await signInBrowser(browser, party.sign_url as string, RECIPIENTS[i].email, i === 1);
    }
    await expect
      .poll(
        async () =>
          (
            (await (
              await page.request.get(`/api/requests/${item.refId}`, { headers: { apikey: key } })
            ).json()) as RequestListItem
          ).request_status,
        { timeout: 60_000 },
      )
      .toBe('completed');

    await page.goto(StaffRoutes.dashboard);
    const done = page.locator('[data-testid="requests"] tbody tr').first();
    await expect(done.getByTestId('progress')).toContainText('Completed');
    await done.getByText('tracemonkey.pdf').click();
    const signedLink = page.getByTestId('party-1').getByRole('link', { name: 'Signed document' });
    await expect(signedLink).toBeVisible();
    await shot(page, 'journey-completed');

    // The signed PDF: signer 1's stamp inside the dropped box on pages 1 and 3, not on page 2.
    const signed = Buffer.from(
      await (await page.request.get((await signedLink.getAttribute('href')) as string)).body(),
    );
    const original = readFileSync(fixture('pdfs', 'tracemonkey.pdf'));
    const box = { x1: drop.x, y1: drop.y, x2: drop.x + Limits.defaultBoxWidth, y2: drop.y + Limits.defaultBoxHeight };
    expect(inkIn(original, signed, 1, box)).toBeGreaterThan(4);
    expect(inkIn(original, signed, 3, box)).toBeGreaterThan(4);
    expect(inkIn(original, signed, 2, box)).toBeLessThan(1);
    // Two signatures and the organisation's seal, each valid and trusted by pdfsig; the archive timestamp after them
    // (B-LTA, the default), checked by pdf-verify with OpenSSL.
    const verified = verifySigned(signed);
    expect(verified.signatures).toHaveLength(3);
    expect(verified.archives).toHaveLength(1);
    expect(verified.signatures.every((sig) => sig.valid && sig.trusted)).toBe(true);
    expect(verified.ok).toBe(true);
  });
});
