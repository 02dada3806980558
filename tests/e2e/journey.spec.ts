import { Limits, Messages, StaffRoutes } from '@esign/contract';
import type { RequestListItem } from '@esign/contract';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { RECIPIENTS, apiKey, chooseFile, fillRecipient, signInAsDemo } from './console';
import { DEMO, expect, fixture, shot, test } from './fixtures';

/** A drawn signature as the signature pad would send it: a dark wave on a transparent background. */
function signaturePng(): Buffer {
  const [w, h] = [300, 100];
  const raw = Buffer.alloc((w * 4 + 1) * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      raw.set(
        Math.abs(y - 50 - 30 * Math.sin(x / 20)) < 8 ? [10, 10, 90, 255] : [255, 255, 255, 0],
        y * (w * 4 + 1) + 1 + x * 4,
      );
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The recipient's calls of a whole e-Signature, as the signer app makes them (OTP from the dev outbox). */
async function signAsRecipient(api: APIRequestContext, signUrl: string, email: string): Promise<void> {
  const url = new URL(signUrl);
  const headers = { 'x-sign-token': url.searchParams.get('token') as string };
  const [, , org, refId, order] = url.pathname.split('/');
  const base = `${org}/${refId}/${order}`;
  const ref = await (await api.get(`/v1/reference/${base}`, { headers })).json();
  const sent = await (await api.get(`/v1/sendotp/${base}`, { headers })).json();
  const outbox = (await (await api.get(`/dev/outbox?to=${encodeURIComponent(email)}`)).json()) as {
    kind: string;
    channel: string;
    text: string;
  }[];
  const code = /\b(\d{6})\b/.exec(outbox.find((m) => m.kind === 'otp' && m.channel === 'email')?.text ?? '')?.[1];
  expect((await (await api.post(`/v1/verifyotp/${sent.userId}`, { headers, data: { otp: code } })).json()).verify).toBe(
    true,
  );
  for (const status of ['opened', 'signing'])
    expect((await api.post(`/v1/signer_details/${base}`, { headers, data: { status } })).status()).toBe(200);
  const requestId = ref.request.requestId as string;
  expect((await api.get(`/v1/init/${org}/${requestId}?method=2`, { headers })).status()).toBe(200);
  const signed = await api.post(`/v1/esignature/${org}/${requestId}`, {
    headers,
    data: { file: `data:image/png;base64,${signaturePng().toString('base64')}` },
  });
  expect(signed.status()).toBe(200);
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

  test('initiate (3 recipients, tracemonkey.pdf), place, save, submit, sign; the stamp lands where it was dropped', async ({
    page,
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

    // Both signers sign through the recipient calls; the server's job runner applies and seals.
    const key = await apiKey(page);
    const list = await page.request.get(`/v1/request_all/${DEMO.orgId}`, { headers: { apikey: key } });
    const item = ((await list.json()).data as RequestListItem[]).find((r) => r.filename === 'tracemonkey.pdf')!;
    for (const [i, party] of item.data.filter((p) => !p.observer).entries())
      await signAsRecipient(page.request, party.sign_url as string, RECIPIENTS[i].email);
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
  });
});
