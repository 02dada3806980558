import { Messages, RecipientMessages, SignerTexts, StaffRoutes } from '@esign/contract';
import type { APIRequestContext, Page } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO, expect, fixture, shot, test } from './fixtures';
// The same throwaway SoftHSMv2 token the API's DSC test makes.
import { SOFTHSM_MODULE, createTestToken } from '../../api/test/support/softhsm';

/**
 * The recipient's journeys through signer-web (spec section 4): the link from the invitation e-mail, OTP, the
 * document, accept or reject, the method, the signature pad, and the result and status pages.
 */

interface Person {
  name: string;
  email: string;
  phone: string;
}
const people: Person[] = [
  { name: 'Asha Rao', email: 'asha.signer@example.in', phone: '9876543210' },
  { name: 'Vikram Shah', email: 'vikram.signer@example.in', phone: '9123456789' },
  { name: 'Priya Menon', email: 'priya.signer@example.in', phone: '9988776655' },
];

let key = '';
/** A valid Aadhaar number for the sandbox ESP (Verhoeff check digit; not a real one: UIDAI's test number). */
const AADHAAR = '999999990019';

async function staffKey(api: APIRequestContext): Promise<string> {
  const auth = Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64');
  const res = await api.get(`/consumers/${DEMO.username}/key-auth`, { headers: { authorization: `Basic ${auth}` } });
  return (await res.json()).data[0].key as string;
}

/** A sent request (parallel) with these signers; answers its Ref ID. */
async function sendRequest(
  api: APIRequestContext,
  signers: Person[],
  options: { otp: boolean; file?: string; signatureType?: string },
): Promise<number> {
  const file = options.file ?? 'us_constitution.pdf';
  const up = await api.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify(
        signers.map((p) => ({
          name: p.name,
          email: p.email,
          phoneNumber: `+91 ${p.phone}`,
          observer: false,
          signature_type: options.signatureType ?? 'e-Signature',
        })),
      ),
      checkOrder: 'false',
      otpRequired: String(options.otp),
      orgId: DEMO.orgId,
      file: { name: file, mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', file)) },
    },
  });
  expect(up.status()).toBe(200);
  const refId = (await up.json()).refId as number;
  const done = await api.post('/v1/process', {
    headers: { apikey: key },
    data: { orgId: DEMO.orgId, data: [{ refId, order: 1, pageNo: [1] }] },
  });
  expect(done.status()).toBe(200);
  return refId;
}

interface OutboxMessage {
  kind: string;
  channel: string;
  text: string;
  refId: number | null;
}
const outbox = async (api: APIRequestContext, to: string): Promise<OutboxMessage[]> =>
  (await (await api.get(`/dev/outbox?to=${encodeURIComponent(to)}`)).json()) as OutboxMessage[];

/** The sign link of the invitation e-mail, as the recipient clicks it. */
async function inviteLink(api: APIRequestContext, to: string, refId: number): Promise<string> {
  const mail = (await outbox(api, to)).find(
    (m) => m.kind === 'invitation' && m.channel === 'email' && m.refId === refId,
  );
  const link = /https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? '')?.[0];
  expect(link).toBeTruthy();
  return new URL(link as string).pathname + new URL(link as string).search;
}

const latestOtp = async (api: APIRequestContext, to: string): Promise<string> =>
  /\b(\d{6})\b/.exec((await outbox(api, to)).find((m) => m.kind === 'otp' && m.channel === 'email')?.text ?? '')?.[1] ??
  '';

/** The initial OTP steps: GET OTP, the code from the outbox, VERIFY, then the document. */
async function passOtp(page: Page, person: Person): Promise<void> {
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText(SignerTexts.otpRequestStep)).toBeVisible();
  await dialog.getByRole('button', { name: SignerTexts.getOtp }).click();
  await expect(page.getByText(Messages.otpSent)).toBeVisible();
  await expect(dialog.getByText(SignerTexts.otpVerifyStep)).toBeVisible();
  const code = await latestOtp(page.request, person.email);
  await dialog.getByPlaceholder(SignerTexts.otpPlaceholder).fill(code);
  await dialog.getByRole('button', { name: SignerTexts.verify }).click();
  await expect(dialog.getByText(Messages.otpVerified)).toBeVisible();
  await expect(dialog.getByText(Messages.redirectingToEsign)).toBeVisible();
}

/** Accept with its confirmation, then e-Signature with the confirmation ticked, then 'Proceed to eSign'. */
async function acceptAndProceed(page: Page): Promise<void> {
  await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
  await expect(page.getByText(SignerTexts.acceptPrompt)).toBeVisible();
  await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
  await expect(page.getByRole('dialog')).toContainText(SignerTexts.acceptConfirm);
  await page.getByRole('button', { name: SignerTexts.yes }).click();
  await expect(page.getByTestId('accepted')).toHaveText(SignerTexts.accepted);
  await expect(page.getByText(SignerTexts.selectMethod)).toBeVisible();
  const proceed = page.getByRole('button', { name: SignerTexts.proceed });
  await expect(proceed).toBeDisabled();
  await page.getByLabel(SignerTexts.methodESignature).check();
  await page.getByLabel(SignerTexts.confirmDetails).check();
  await expect(proceed).toBeEnabled();
  await proceed.click();
  await expect(page.getByRole('dialog')).toContainText(SignerTexts.padTitle);
}

/** Runs `body` with these organisation settings, putting the previous values back afterwards. */
async function withOrgSettings(
  page: Page,
  changes: Record<string, string | null>,
  body: () => Promise<void>,
): Promise<void> {
  const org = (await (
    await page.request.get(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key } })
  ).json()) as { settings: Record<string, string | null> };
  const before = Object.fromEntries(Object.keys(changes).map((name) => [name, org.settings[name] ?? null]));
  const put = async (data: Record<string, string | null>) =>
    expect(
      (await page.request.put(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key }, data })).status(),
    ).toBe(200);
  await put(changes);
  try {
    await body();
  } finally {
    await put(before);
  }
}

async function expectSuccess(page: Page): Promise<void> {
  await expect(page).toHaveURL(/\/success\/demo\/[0-9a-f-]{36}$/);
  await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(SignerTexts.closeWindow)).toBeVisible();
}

test.describe('the recipient app', () => {
  test.describe.configure({ timeout: 90_000 });

  test.beforeAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
    key = await staffKey(api);
    await api.dispose();
  });

  test.describe('on a phone', () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

    test('a signer with OTP opens the e-mailed link, verifies, accepts, draws and completes', async ({ page }) => {
      const refId = await sendRequest(page.request, [people[0], people[1], people[2]], { otp: true });
      await page.goto(await inviteLink(page.request, people[0].email, refId));
      await passOtp(page, people[0]);
      await expect(page.getByTestId('signer-name')).toHaveText(people[0].name);
      await expect(page.getByText('+919876543210')).toBeVisible();
      await expect(page.getByTestId('page-of-total')).toHaveText('Page 1/19');
      await page.getByRole('button', { name: SignerTexts.next }).click();
      await expect(page.getByTestId('page-of-total')).toHaveText('Page 2/19');
      await expect(page.getByRole('link', { name: SignerTexts.troubleViewing })).toHaveAttribute(
        'href',
        new RegExp(`/docs/files/demo/${refId}/original\\.pdf\\?exp=`),
      );
      await shot(page, 'signer-phone-document');
      await acceptAndProceed(page);

      // Draw on the pad (touch or mouse), then Submit.
      const pad = page.getByRole('dialog').locator('canvas');
      await expect(pad).toBeVisible();
      const box = (await pad.boundingBox())!;
      await page.mouse.move(box.x + 20, box.y + box.height / 2);
      await page.mouse.down();
      for (let x = 20; x < box.width - 20; x += 12)
        await page.mouse.move(box.x + x, box.y + box.height / 2 + Math.sin(x / 15) * 20);
      await page.mouse.up();
      await shot(page, 'signer-phone-pad');
      await page.getByRole('button', { name: SignerTexts.submit }).click();
      await expectSuccess(page);
      await shot(page, 'signer-phone-success');
    });
  });

  test('a long document is drawn from its start read before the app has loaded: two ranges, the rest as pages turn', async ({
    page,
  }) => {
    // freeculture.pdf: 352 pages, 2,598,727 bytes; pdf.js reads it in 256 KB chunks (signer-web/src/esign/pdf-early.ts).
    const size = readFileSync(fixture('pdfs', 'freeculture.pdf')).length;
    const reader: Person = { name: 'Meera Iyer', email: 'meera.long@example.in', phone: '9845012345' };
    const refId = await sendRequest(page.request, [reader], { otp: false, file: 'freeculture.pdf' });
    const asked: { range: string | null; status: number }[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/v1/document/'))
        asked.push({ range: response.request().headers().range ?? null, status: response.status() });
    });
    await page.goto(await inviteLink(page.request, reader.email, refId));
    const drawn = page.locator('[data-testid="pdf-canvas"][data-rendered="true"]');
    await expect(drawn).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('page-of-total')).toHaveText('Page 1/352');
    // The first two chunks in one range and the last chunk (where the cross-reference data is), each answered 206;
    // nothing asked without a range, nothing more for the first page.
    const last = Math.floor((size - 1) / (256 * 1024)) * 256 * 1024;
    expect(asked).toEqual([
      { range: `bytes=0-${512 * 1024 - 1}`, status: 206 },
      { range: `bytes=${last}-${size - 1}`, status: 206 },
    ]);
    // Further pages come through the same transport, range by range, and are drawn.
    for (const shown of [2, 3, 4]) {
      const before = await drawn.getAttribute('data-rendered-at');
      await page.getByRole('button', { name: SignerTexts.next }).click();
      await expect(page.getByTestId('page-of-total')).toHaveText(`Page ${shown}/352`);
      await expect(drawn).not.toHaveAttribute('data-rendered-at', before ?? '');
    }
    expect(asked.every((a) => a.range !== null && a.status === 206)).toBe(true);
    // The document shown is the one the link gives: the signer can go on to sign it.
    await acceptAndProceed(page);
  });

  test('a second signer types the name in italic; the empty pad says so first', async ({ page }) => {
    const refId = await sendRequest(page.request, [people[1]], { otp: false });
    await page.goto(await inviteLink(page.request, people[1].email, refId));
    await acceptAndProceed(page);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: SignerTexts.submit }).click();
    await expect(dialog.getByText(Messages.emptySignaturePad)).toBeVisible();
    await dialog.getByRole('tab', { name: SignerTexts.padType }).click();
    await dialog.getByLabel(SignerTexts.padItalic).check();
    await expect(dialog.getByText(people[1].name)).toHaveCSS('font-style', 'italic');
    await dialog.getByRole('button', { name: SignerTexts.submit }).click();
    await expectSuccess(page);
  });

  test('a signer uploads a PNG (and a wrong file first)', async ({ page }) => {
    const refId = await sendRequest(page.request, [people[2]], { otp: false });
    await page.goto(await inviteLink(page.request, people[2].email, refId));
    await acceptAndProceed(page);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab', { name: SignerTexts.padUpload }).click();
    await dialog.locator('input[type="file"]').setInputFiles(fixture('pdfs', 'normal.pdf'));
    await expect(dialog.getByText(Messages.invalidSignatureImage)).toBeVisible();
    await dialog.locator('input[type="file"]').setInputFiles(fixture('faces', 'coffee.png'));
    await dialog.getByRole('button', { name: SignerTexts.submit }).click();
    await expectSuccess(page);
  });

  test('a signer rejects with a remark; the link then shows the rejected status', async ({ page }) => {
    const refId = await sendRequest(page.request, [people[0]], { otp: false });
    const link = await inviteLink(page.request, people[0].email, refId);
    await page.goto(link);
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await page.getByRole('button', { name: SignerTexts.reject, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText(SignerTexts.rejectConfirm);
    await expect(dialog.getByText(SignerTexts.remarkNote)).toBeVisible();
    const reject = dialog.getByRole('button', { name: SignerTexts.reject });
    await expect(reject).toBeDisabled();
    await dialog.getByLabel(SignerTexts.remarkLabel).fill('   ');
    await expect(reject).toBeDisabled();
    await dialog.getByLabel(SignerTexts.remarkLabel).fill('Clause 4 names the wrong party.');
    await reject.click();
    await expect(page.getByText(SignerTexts.rejectedTitle)).toBeVisible();
    await expect(page.getByText(SignerTexts.closeWindow)).toBeVisible();
    await shot(page, 'signer-rejected');
    await page.goto(link);
    await expect(page.getByText(SignerTexts.statusRejected)).toBeVisible();
    await expect(page.getByTestId('pdf-canvas')).toHaveCount(0);
  });

  test("the failed page: Aadhaar cancelled at the sandbox ESP, 'Retry Signing' until the attempts are exhausted", async ({
    page,
  }) => {
    const refId = await sendRequest(page.request, [people[1]], { otp: false, signatureType: 'Dual' });
    await page.goto(await inviteLink(page.request, people[1].email, refId));
    await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
    await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
    await page.getByRole('button', { name: SignerTexts.yes }).click();
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(page.getByTestId('accepted')).toBeVisible();
      await page.getByLabel(SignerTexts.methodAadhaar).check();
      await expect(page.getByTestId('aadhaar-hint')).toContainText(SignerTexts.aadhaarHint);
      await page.getByLabel(SignerTexts.confirmDetails).check();
      await page.getByRole('button', { name: SignerTexts.proceed }).click();
      // The ESP's page (the built-in sandbox): the signer cancels there.
      await expect(page).toHaveURL(/\/esp-sandbox\/esign$/);
      await expect(page.getByRole('heading', { name: 'Aadhaar eSign' })).toBeVisible();
      if (attempt === 1) await shot(page, 'signer-sandbox-esp');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect(page).toHaveURL(new RegExp(`/failed/demo/[0-9a-f-]{36}\\?errorCode=944&`));
      await expect(page.getByText('Your attempt to Aadhaar based Esign has failed!')).toBeVisible({ timeout: 10_000 });
      await expect(page.getByText('Failure Reason: 944')).toBeVisible();
      await expect(page.getByText(new RegExp(`^Ref\\. ID ${refId} Request ID [0-9a-f-]{36}$`))).toBeVisible();
      if (attempt < 3) {
        await page.getByRole('button', { name: SignerTexts.retrySigning }).click();
        await expect(page).toHaveURL(new RegExp(`/esign/demo/${refId}/1\\?token=`));
      }
    }
    await expect(page.getByTestId('exhausted')).toHaveText(SignerTexts.attemptsExhausted);
    await expect(page.getByRole('button', { name: SignerTexts.retrySigning })).toHaveCount(0);
    await shot(page, 'signer-failed-exhausted');
    await page.goto(`/esign/demo/${refId}/1`);
    await expect(page.getByText(SignerTexts.statusSigning)).toBeVisible();
  });

  for (const mismatch of [false, true])
    test(
      mismatch
        ? "Aadhaar with a name on Aadhaar that differs: 'eSign rejected' with the server's message"
        : "Aadhaar through the sandbox ESP: consent, Aadhaar number, the OTP sent to the phone, 'eSign successfully completed'",
      async ({ page }) => {
        const person = mismatch ? people[2] : people[0];
        const refId = await sendRequest(page.request, [person], { otp: false, signatureType: 'Aadhaar' });
        await page.goto(await inviteLink(page.request, person.email, refId));
        await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
        await page.getByRole('button', { name: SignerTexts.yes }).click();
        // A single type offers only itself.
        await expect(page.getByLabel(SignerTexts.methodESignature)).toHaveCount(0);
        await page.getByLabel(SignerTexts.methodAadhaar).check();
        await page.getByLabel(SignerTexts.confirmDetails).check();
        await page.getByRole('button', { name: SignerTexts.proceed }).click();
        await expect(page).toHaveURL(/\/esp-sandbox\/esign$/);
        await page.getByLabel(/I hereby authorise/).check();
        await page.getByRole('textbox', { name: 'Aadhaar number' }).fill(AADHAAR);
        if (mismatch) await page.getByLabel(/Name as on Aadhaar/).fill('Priya Raghavan');
        await page.getByRole('button', { name: 'Get OTP' }).click();
        await expect(page.getByRole('heading', { name: 'Enter the OTP' })).toBeVisible();
        const sms = (await outbox(page.request, `+91${person.phone}`)).find((m) => m.kind === 'esp-otp');
        const code = /\b(\d{6})\b/.exec(sms?.text ?? '')?.[1];
        expect(code).toBeTruthy();
        await page.getByRole('textbox', { name: 'OTP' }).fill(code as string);
        await page.getByRole('button', { name: 'Verify and sign' }).click();
        await expect(page).toHaveURL(/\/success\/demo\/[0-9a-f-]{36}$/);
        if (mismatch) {
          const rejected = page.getByTestId('discrepancy');
          await expect(rejected).toContainText(SignerTexts.esignRejected);
          await expect(rejected).toContainText(
            `The name in your Aadhaar eSign certificate (Priya Raghavan) does not match the signer's name (${person.name}).`,
          );
          await shot(page, 'signer-aadhaar-discrepancy');
        } else {
          await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
          await shot(page, 'signer-aadhaar-success');
        }
      },
    );

  test('a link opened again after completion shows the completed page with the date; a tampered token shows an error', async ({
    page,
  }) => {
    const refId = await sendRequest(page.request, [people[2]], { otp: false });
    const link = await inviteLink(page.request, people[2].email, refId);
    await page.goto(link);
    await acceptAndProceed(page);
    await page.getByRole('dialog').getByRole('tab', { name: SignerTexts.padType }).click();
    await page.getByRole('button', { name: SignerTexts.submit }).click();
    await expectSuccess(page);
    await page.goto(link);
    await expect(page.getByTestId('status-completed')).toContainText(
      /This document has been already signed successfully on \d{1,2} \w{3} \d{4}/,
    );
    await shot(page, 'signer-completed-status');

    const tampered = link.replace(/token=([A-Za-z0-9_-])/, (_m, c: string) => `token=${c === 'A' ? 'B' : 'A'}`);
    await page.goto(tampered);
    await expect(page.getByTestId('link-error')).toContainText(RecipientMessages.invalidLink);
    await expect(page.getByTestId('pdf-canvas')).toHaveCount(0);
  });

  test('the DSC panel: its four steps, the token password with show/hide, and Proceed only with the password', async ({
    page,
  }) => {
    // DSC is offered only when the organisation has a signer-app download link.
    await withOrgSettings(page, { dsc_download_url: 'https://downloads.example.org/esign-signer' }, async () => {
      const refId = await sendRequest(page.request, [people[0]], { otp: false, signatureType: 'All' });
      await page.goto(await inviteLink(page.request, people[0].email, refId));
      await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
      await page.getByRole('button', { name: SignerTexts.yes }).click();
      // 'All' offers the three methods; the first DSC step links the signer app.
      for (const label of [SignerTexts.methodAadhaar, SignerTexts.methodDsc, SignerTexts.methodESignature])
        await expect(page.getByLabel(label)).toBeVisible();
      await page.getByLabel(SignerTexts.methodDsc).check();
      const panel = page.getByTestId('dsc-panel');
      await expect(panel.getByRole('listitem')).toHaveCount(4);
      for (const step of SignerTexts.dscSteps) await expect(panel).toContainText(step);
      const password = panel.getByPlaceholder(SignerTexts.dscPasswordPlaceholder);
      await expect(password).toHaveAttribute('type', 'password');
      await password.fill('token-pin-1234');
      await panel.getByRole('button', { name: SignerTexts.showPassword }).click();
      await expect(password).toHaveAttribute('type', 'text');
      await panel.getByRole('button', { name: SignerTexts.hidePassword }).click();
      await expect(password).toHaveAttribute('type', 'password');
      const proceed = page.getByRole('button', { name: SignerTexts.proceed });
      await page.getByLabel(SignerTexts.confirmDetails).check();
      await expect(proceed).toBeEnabled();
      await password.fill('');
      await expect(proceed).toBeDisabled();
      await password.fill('token-pin-1234');
      await expect(proceed).toBeEnabled();
      await expect(page.getByTestId('dsc-panel').getByRole('link', { name: SignerTexts.dscDownload })).toHaveAttribute(
        'href',
        'https://downloads.example.org/esign-signer',
      );
      await shot(page, 'signer-dsc-panel');
      // Another method clears the confirmation.
      await page.getByLabel(SignerTexts.methodESignature).check();
      await expect(page.getByLabel(SignerTexts.confirmDetails)).not.toBeChecked();
      await expect(proceed).toBeDisabled();
    });
  });

  test('DSC with the signer agent and a USB token (SoftHSMv2): a wrong password is the hold-on page, the right one signs', async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const person = people[1];
    const token = createTestToken(person.name, 'E2E-DSC', '2468-1357');
    const cli = path.join(__dirname, '..', '..', 'cli', 'dist', 'index.js');
    let agent: ChildProcessWithoutNullStreams | null = null;
    try {
      await withOrgSettings(page, { dsc_download_url: 'https://downloads.example.org/esign-signer' }, async () => {
        const refId = await sendRequest(page.request, [person], { otp: false, signatureType: 'DSC' });
        const link = await inviteLink(page.request, person.email, refId);
        // The signer starts the agent on their computer and logs in with the request's e-mail and the OTP.
        agent = spawn(
          process.execPath,
          [
            cli,
            'dsc-agent',
            '--server',
            baseURL as string,
            '--identifier',
            person.email,
            '--module',
            SOFTHSM_MODULE,
            '--token',
            token.label,
          ],
          { env: token.env },
        );
        let printed = '';
        agent.stdout.on('data', (d: Buffer) => (printed += d.toString()));
        agent.stderr.on('data', (d: Buffer) => (printed += d.toString()));
        await expect.poll(() => printed, { timeout: 20_000 }).toContain('One-time code sent to');
        const otp = (await outbox(page.request, person.email)).find((m) => /signer app/.test(m.text));
        agent.stdin.write(`${/\b(\d{6})\b/.exec(otp?.text ?? '')?.[1]}\n`);
        await expect.poll(() => printed, { timeout: 20_000 }).toMatch(/[Cc]onnected/);

        await page.goto(link);
        await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
        await page.getByRole('button', { name: SignerTexts.yes }).click();
        await page.getByLabel(SignerTexts.methodDsc).check();
        await page.getByTestId('dsc-panel').getByPlaceholder(SignerTexts.dscPasswordPlaceholder).fill('0000-0000');
        await page.getByLabel(SignerTexts.confirmDetails).check();
        await page.getByRole('button', { name: SignerTexts.proceed }).click();
        await expect(page.getByTestId('hold-on')).toContainText('The USB token password is wrong.');
        await shot(page, 'signer-dsc-wrong-password');

        await page.goto(link);
        await page.getByLabel(SignerTexts.methodDsc).check();
        await page.getByTestId('dsc-panel').getByPlaceholder(SignerTexts.dscPasswordPlaceholder).fill(token.pin);
        await page.getByLabel(SignerTexts.confirmDetails).check();
        await page.getByRole('button', { name: SignerTexts.proceed }).click();
        await expectSuccess(page);
        await shot(page, 'signer-dsc-success');
        expect(printed).not.toContain(token.pin);
      });
    } finally {
      (agent as ChildProcessWithoutNullStreams | null)?.kill('SIGINT');
      token.cleanup();
    }
  });

  test('a second tab submitting after the first has signed gets the hold-on page with the server message', async ({
    page,
    context,
  }) => {
    // Two signers, so the request is still open once the first has signed.
    const refId = await sendRequest(page.request, [people[1], people[2]], { otp: false });
    const link = await inviteLink(page.request, people[1].email, refId);
    await page.goto(link);
    await acceptAndProceed(page);
    const other = await context.newPage();
    await other.goto(link);
    await expect(other.getByTestId('accepted')).toBeVisible();
    await other.getByLabel(SignerTexts.methodESignature).check();
    await other.getByLabel(SignerTexts.confirmDetails).check();
    await other.getByRole('button', { name: SignerTexts.proceed }).click();
    await other.getByRole('dialog').getByRole('tab', { name: SignerTexts.padType }).click();

    await page.getByRole('dialog').getByRole('tab', { name: SignerTexts.padType }).click();
    await page.getByRole('button', { name: SignerTexts.submit }).click();
    await expectSuccess(page);

    await other.getByRole('button', { name: SignerTexts.submit }).click();
    const holdOn = other.getByTestId('hold-on');
    await expect(holdOn).toContainText(RecipientMessages.alreadySigned);
    await expect(holdOn.getByRole('img')).toBeVisible();
    await expect(other.getByRole('dialog')).toHaveCount(0);
    await shot(other, 'signer-hold-on');
  });

  test("after a reject the browser goes to the organisation's return_url 2 s later, with https:// added", async ({
    page,
  }) => {
    await withOrgSettings(page, { return_url: 'crm.example.org/after-signing' }, async () => {
      await page.route('https://crm.example.org/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<h1>Back in the CRM</h1>' }),
      );
      const refId = await sendRequest(page.request, [people[2]], { otp: false });
      await page.goto(await inviteLink(page.request, people[2].email, refId));
      await page.getByRole('button', { name: SignerTexts.reject, exact: true }).click();
      await page.getByRole('dialog').getByLabel(SignerTexts.remarkLabel).fill('Not my document.');
      await page.getByRole('dialog').getByRole('button', { name: SignerTexts.reject }).click();
      await expect(page.getByText(SignerTexts.rejectedTitle)).toBeVisible();
      const shownAt = Date.now();
      await page.waitForURL('https://crm.example.org/after-signing', { timeout: 10_000 });
      expect(Date.now() - shownAt).toBeGreaterThanOrEqual(1_500);
      await expect(page.getByText('Back in the CRM')).toBeVisible();
    });
  });

  test('a cancelled request tells the signer so, with the support line', async ({ page }) => {
    const refId = await sendRequest(page.request, [people[0]], { otp: true });
    const link = await inviteLink(page.request, people[0].email, refId);
    await page.request.get(`/v1/deleteRef/demo/${refId}`, { headers: { apikey: key } });
    await page.goto(link);
    await expect(page.getByText(SignerTexts.statusCancelled)).toBeVisible();
    await expect(page.getByText(SignerTexts.supportLine)).toBeVisible();
  });

  test('/retry-mail-sent and an unknown page', async ({ page }) => {
    await page.goto('/retry-mail-sent');
    await expect(page.getByText(Messages.mailSent)).toBeVisible();
    await page.goto('/esign');
    await expect(page).toHaveURL(new RegExp(`${StaffRoutes.notFound}$`));
  });
});
