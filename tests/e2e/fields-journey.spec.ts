import { FieldMessages, SignerTexts, en, fill } from '@esign/contract';
import type { APIRequestContext, Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO, expect, fixture, shot, test } from './fixtures';
import { verifySigned } from './support/face';
import { inviteLink, person, staffKey } from './support/recipient';

/** The signer app's own labels of the fields step: the English catalogue's (issue 22). */
const FieldTexts = en.fields;

/**
 * Issue 21's journey: a request on us_constitution.pdf with two signers and a copy-receiver. Signer 1 has initials on
 * every page, their name, the date signed, a required PAN, a checkbox, a dropdown and an attachment; signer 2 a text
 * field (typed in Devanagari) and a radio group. Both fill and sign in Chromium; the signed PDF carries each value
 * inside its box (pdftotext -bbox), the attachment (pdfdetach) and three valid, trusted signatures; a value changed
 * after signing is refused.
 */

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const PAGES = 19;

type Box = [number, number, number, number];
const BOX: Record<string, Box> = {
  pan: [60, 120, 260, 140],
  city: [300, 120, 460, 140],
  agree: [60, 160, 260, 180],
  cheque: [300, 160, 560, 180],
  name: [60, 60, 260, 80],
  date: [60, 90, 260, 110],
  initials: [540, 752, 600, 776],
  address: [60, 60, 420, 80],
  plan: [60, 100, 260, 150],
};

const SIGNER_ONE = [
  { id: 'pan', kind: 'text', label: 'PAN', page: 1, box: BOX.pan, required: true, pattern: 'PAN' },
  { id: 'city', kind: 'dropdown', label: 'City', page: 1, box: BOX.city, options: ['Mumbai', 'Pune'] },
  { id: 'agree', kind: 'checkbox', label: 'I agree', page: 1, box: BOX.agree, required: true },
  { id: 'cheque', kind: 'attachment', label: 'Cancelled cheque', page: 1, box: BOX.cheque },
  { id: 'name', kind: 'name', page: 1, box: BOX.name },
  { id: 'date', kind: 'date', page: 1, box: BOX.date },
  ...Array.from({ length: PAGES }, (_, i) => ({
    id: `init${i + 1}`,
    kind: 'initials',
    page: i + 1,
    box: BOX.initials,
  })),
];
const SIGNER_TWO = [
  { id: 'address', kind: 'text', label: 'Address', page: 3, box: BOX.address },
  { id: 'plan', kind: 'radio', label: 'Plan', page: 3, box: BOX.plan, options: ['Basic', 'Premium'] },
];

/** Every word pdftotext -bbox finds on `page`, with its box (points from the displayed page's top-left). */
function wordsOn(pdf: Buffer, page: number): { text: string; x: number; y: number }[] {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), '-', '-'], {
    input: pdf,
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)<\/word>/g)].map(
    (m) => ({
      text: m[5].replace(/&amp;/g, '&'),
      x: (Number(m[1]) + Number(m[3])) / 2,
      y: (Number(m[2]) + Number(m[4])) / 2,
    }),
  );
}

/** The words found inside `box` on `page`, joined. */
function textIn(pdf: Buffer, page: number, box: Box): string {
  const [x1, y1, x2, y2] = box;
  return wordsOn(pdf, page)
    .filter((w) => w.x >= x1 - 2 && w.x <= x2 + 2 && w.y >= y1 - 2 && w.y <= y2 + 2)
    .map((w) => w.text)
    .join(' ');
}

async function send(api: APIRequestContext, key: string, people: ReturnType<typeof person>[]): Promise<number> {
  const up = await api.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify(
        people.map((p, i) => ({
          name: p.name,
          email: p.email,
          phoneNumber: `+91 ${p.phone}`,
          observer: i === 2,
          ...(i < 2 ? { signature_type: 'e-Signature' } : {}),
        })),
      ),
      checkOrder: 'false',
      otpRequired: 'false',
      orgId: DEMO.orgId,
      file: {
        name: 'us_constitution.pdf',
        mimeType: 'application/pdf',
        buffer: readFileSync(fixture('pdfs', 'us_constitution.pdf')),
      },
    },
  });
  expect(up.status(), await up.text()).toBe(200);
  const refId = (await up.json()).refId as number;
  const done = await api.post('/v1/process', {
    headers: { apikey: key },
    data: {
      orgId: DEMO.orgId,
      data: [
        { refId, order: 1, pageNo: [1], rectangle: '400,700,560,760', fields: SIGNER_ONE },
        { refId, order: 2, pageNo: [PAGES], rectangle: '400,700,560,760', fields: SIGNER_TWO },
      ],
    },
  });
  expect(done.status(), await done.text()).toBe(200);
  return refId;
}

/** Accept on the signer's page; the fields step opens. */
async function accept(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await expect(page.getByTestId('pdf-canvas')).toHaveAttribute('data-rendered', 'true');
  await page.getByRole('button', { name: SignerTexts.accept, exact: true }).click();
  await page.getByRole('button', { name: SignerTexts.yes }).click();
  await expect(page.getByTestId('fields-panel')).toBeVisible();
}

/** e-Signature, the name typed on the pad, and the success page. */
async function signTyped(page: Page): Promise<void> {
  const method = page.getByLabel(SignerTexts.methodESignature);
  await expect(method).toBeEnabled();
  await method.check();
  await page.getByLabel(SignerTexts.confirmDetails).check();
  await page.getByRole('button', { name: SignerTexts.proceed }).click();
  const pad = page.getByRole('dialog');
  await pad.getByRole('tab', { name: SignerTexts.padType }).click();
  await pad.getByRole('button', { name: SignerTexts.submit }).click();
  await expect(page.getByText(SignerTexts.successTitle)).toBeVisible({ timeout: 30_000 });
}

test.describe('fields from placement to the sealed PDF', () => {
  test.describe.configure({ timeout: 240_000 });

  test('two signers fill and sign on us_constitution.pdf; every value is in its box, the attachment inside, signatures valid', async ({
    page,
  }) => {
    const key = await staffKey(page.request);
    const people = [
      person('fields-j1', 'Asha Rao'),
      person('fields-j2', 'Vikram Shah'),
      person('fields-j3', 'Meera Iyer'),
    ];
    const refId = await send(page.request, key, people);
    const counter = page.getByTestId('fields-left');
    const required = PAGES + 5; // initials on every page, the name, PAN, the checkbox, the dropdown, the attachment

    // Signer 1: PAN (a wrong one first), city, the checkbox and the attachment; the initials and name come filled.
    const link1 = await inviteLink(page.request, people[0].email, refId);
    await accept(page, link1);
    await expect(counter).toHaveText(fill(FieldTexts.requiredLeft, { n: 4, m: required }));
    await expect(page.getByTestId('method-blocked')).toHaveText(fill(FieldMessages.requiredMissing, { count: 4 }));
    const pan = page.getByRole('textbox', { name: 'PAN', exact: true });
    await expect(pan).toBeFocused();
    await pan.fill('ABCDE12345');
    await pan.press('Enter');
    await expect(page.getByTestId('fields-panel').getByText(/Enter a valid PAN/)).toBeVisible();
    await pan.fill('ABCDE1234F');
    await pan.press('Enter');
    await expect(counter).toHaveText(fill(FieldTexts.requiredLeft, { n: 3, m: required }));
    await page.getByRole('combobox', { name: 'City' }).selectOption('Pune');
    await expect(counter).toHaveText(fill(FieldTexts.requiredLeft, { n: 2, m: required }));
    await page.getByRole('combobox', { name: 'City' }).press('Enter');
    // The box shows what the server kept (it is ticked once the value is saved).
    await page.getByRole('checkbox', { name: 'I agree' }).click();
    await expect(page.getByRole('checkbox', { name: 'I agree' })).toBeChecked();
    await expect(counter).toHaveText(fill(FieldTexts.requiredLeft, { n: 1, m: required }));
    await page.getByRole('checkbox', { name: 'I agree' }).press('Enter');
    const cheque = fixture('faces', 'coffee.png');
    await page.getByTestId('fields-panel').locator('input[type="file"]').setInputFiles(cheque);
    await expect(page.getByTestId('attachment-name')).toHaveText('coffee.png');
    await expect(counter).toHaveText(fill(FieldTexts.requiredLeft, { n: 0, m: required }));
    await shot(page, 'fields-journey-signer-1');
    await signTyped(page);

    // Signer 2: an address typed in Devanagari, and a plan.
    const link2 = await inviteLink(page.request, people[1].email, refId);
    await accept(page, link2);
    const address = page.getByRole('textbox', { name: 'Address', exact: true });
    await expect(address).toBeFocused();
    await address.fill('आशा वर्मा, Pune');
    await address.press('Enter');
    await page.getByRole('radio', { name: 'Premium' }).click();
    await expect(page.getByRole('radio', { name: 'Premium' })).toBeChecked();
    await expect(page.locator('[data-field="plan"]')).toHaveText('Premium');
    await expect(page.locator('[data-field="address"]')).toHaveText('आशा वर्मा, Pune');
    await signTyped(page);

    // The request completes (the seal job); the signed PDF as staff download it.
    let signedUrl = '';
    await expect
      .poll(
        async () => {
          const res = await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } });
          const body = (await res.json()) as { request_status: string; data: { downloadUrl?: string }[] };
          signedUrl = body.data[0]?.downloadUrl ?? '';
          return body.request_status;
        },
        { timeout: 60_000 },
      )
      .toBe('completed');
    const signed = Buffer.from(await (await page.request.get(signedUrl)).body());

    // Each value inside its box, on its page.
    const party = (await (await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } })).json()) as {
      data: { order: number; fields?: { id: string; value: string | null }[] }[];
    };
    const date = party.data[0].fields?.find((f) => f.id === 'date')?.value as string;
    expect(date).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(textIn(signed, 1, BOX.pan)).toContain('ABCDE1234F');
    expect(textIn(signed, 1, BOX.city)).toContain('Pune');
    expect(textIn(signed, 1, BOX.agree)).toContain('✓');
    expect(textIn(signed, 1, BOX.cheque)).toContain('coffee.png');
    expect(textIn(signed, 1, BOX.name)).toContain('Asha Rao');
    expect(textIn(signed, 1, BOX.date)).toContain(date);
    for (let p = 1; p <= PAGES; p++) expect(textIn(signed, p, BOX.initials)).toContain('AR');
    expect(textIn(signed, 3, BOX.address)).toContain('आशा वर्मा, Pune');
    expect(textIn(signed, 3, BOX.plan)).toContain('Premium');

    // The attachment, taken out of the PDF, is the file attached.
    const dir = mkdtempSync(path.join(tmpdir(), 'fields-journey-'));
    try {
      writeFileSync(path.join(dir, 'signed.pdf'), signed);
      execFileSync('pdfdetach', ['-saveall', '-o', dir, path.join(dir, 'signed.pdf')]);
      const files = readdirSync(dir).filter((f) => f !== 'signed.pdf');
      expect(files.map((f) => sha256(readFileSync(path.join(dir, f))))).toContain(sha256(readFileSync(cheque)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // Two signatures and the seal, each valid and trusted.
    const verified = verifySigned(signed);
    expect(verified.signatures).toHaveLength(3);
    expect(verified.signatures.every((s) => s.valid && s.trusted)).toBe(true);
    expect(verified.ok).toBe(true);

    // A value changed after signing is refused.
    const token = new URL(link1, 'http://x').searchParams.get('token') as string;
    const late = await page.request.post(`/v1/fields/${DEMO.orgId}/${refId}/1`, {
      headers: { 'x-sign-token': token },
      data: { values: { city: 'Mumbai' } },
    });
    expect(late.status()).toBeGreaterThanOrEqual(400);
    expect(late.status()).toBeLessThan(500);
  });
});
