import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIELD_PATTERNS, FieldMessages, fill, type SignerFieldsView, type TemplateAnnotation } from '@esign/contract';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';
import { readFormFields } from '../src/modules/documents/pdf/forms';
import { readFixture } from './support/fixtures';
import { SIGNERS, uploadOk } from './support/requests';
import { drain, fixtureJpeg, latestOtp, partyRow, signedPdf, tokensOf, verifyPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** Every word pdftotext -bbox finds, by page: its text and box in points from the displayed page's top-left. */
function wordsOf(pdf: Buffer): Map<number, { text: string; x1: number; y1: number; x2: number; y2: number }[]> {
  const html = execFileSync('pdftotext', ['-bbox', '-', '-'], { input: pdf, maxBuffer: 64 * 1024 * 1024 }).toString();
  const pages = new Map<number, { text: string; x1: number; y1: number; x2: number; y2: number }[]>();
  let page = 0;
  for (const line of html.split('\n')) {
    if (/<page /.test(line)) {
      page++;
      pages.set(page, []);
      continue;
    }
    const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (m)
      pages.get(page)?.push({
        text: m[5]
          .replace(/&amp;/g, '&')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"'),
        x1: Number(m[1]),
        y1: Number(m[2]),
        x2: Number(m[3]),
        y2: Number(m[4]),
      });
  }
  return pages;
}

/** Whether every word of `value` is on `page` with its centre inside `box` (2 points of slack). */
function foundInBox(
  words: ReturnType<typeof wordsOf>,
  page: number,
  box: [number, number, number, number],
  value: string,
): boolean {
  const [x1, y1, x2, y2] = box;
  const inside = (words.get(page) ?? []).filter((w) => {
    const cx = (w.x1 + w.x2) / 2;
    const cy = (w.y1 + w.y2) / 2;
    return cx >= x1 - 2 && cx <= x2 + 2 && cy >= y1 - 2 && cy <= y2 + 2;
  });
  const text = inside.map((w) => w.text).join(' ');
  return value.split(/\s+/).every((word) => text.includes(word));
}

const PAN_BOX: [number, number, number, number] = [60, 120, 260, 140];

/** Signer 1's fields: initials on every page, name, date signed, PAN, a checkbox, a dropdown, an attachment. */
function signerOneFields(pages: number) {
  return [
    ...Array.from({ length: pages }, (_, i) => ({
      id: `init${i + 1}`,
      kind: 'initials',
      page: i + 1,
      box: [540, 752, 600, 776],
    })),
    { id: 'name', kind: 'name', page: 1, box: [60, 60, 260, 80] },
    { id: 'date', kind: 'date', page: 1, box: [60, 90, 260, 110] },
    { id: 'pan', kind: 'text', label: 'PAN', page: 1, box: PAN_BOX, required: true, pattern: 'PAN' },
    { id: 'agree', kind: 'checkbox', label: 'I agree', page: 2, box: [60, 60, 260, 80], required: true },
    { id: 'city', kind: 'dropdown', label: 'City', page: 2, box: [60, 100, 260, 120], options: ['Mumbai', 'Pune'] },
    { id: 'cheque', kind: 'attachment', label: 'Cancelled cheque', page: 2, box: [60, 140, 360, 160] },
  ];
}

describe('fields beyond the signature box (issue 21)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  /** A template of a fixture, its own form fields read (POST /v1/templates as staff). */
  async function createTemplate(fixture: string, name: string) {
    const res = await t.http
      .post('/v1/templates')
      .set('apikey', await signIn(t, 'alice', 'alice-password'))
      .field('template_name', name)
      .attach('file', readFixture('pdfs', fixture), { filename: fixture, contentType: 'application/pdf' })
      .expect(201);
    return res.body.data as { template_id: string; template_annotation: TemplateAnnotation };
  }

  /** The signer's e-signature, typed, once their fields are filled (the seal job runs it on drain). */
  async function signTyped(s: { h: Record<string, string>; requestId: string }) {
    await t.http.get(`/v1/init/acme/${s.requestId}?method=2`).set(s.h).expect(200);
    await t.http
      .post(`/v1/esignature/acme/${s.requestId}`)
      .set(s.h)
      .send({ kind: 'typed', style: 'normal' })
      .expect(200);
  }

  /** A signer through OTP, opened and accepted; answers the headers their later calls carry. */
  async function accept(refId: number, order: number, token: string, email: string) {
    const h: Record<string, string> = { 'x-sign-token': token };
    const base = `acme/${refId}/${order}`;
    const ref = await t.http.get(`/v1/reference/${base}`).set(h).expect(200);
    const sent = await t.http.get(`/v1/sendotp/${base}`).set(h).expect(200);
    const verified = await t.http
      .post(`/v1/verifyotp/${sent.body.userId}`)
      .set(h)
      .send({ otp: await latestOtp(t, email) })
      .expect(200);
    h['x-signer-session'] = verified.body.session_token as string;
    await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'opened' }).expect(200);
    await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }).expect(200);
    return { h, base, requestId: ref.body.request.requestId as string };
  }

  it('a two-signer request on us_constitution.pdf: placed, filled, refused where wrong, drawn, attached and signed', async () => {
    const recipients = [
      { ...SIGNERS[0], signature_type: 'e-Signature' },
      { ...SIGNERS[1], name: 'आशा वर्मा', signature_type: 'e-Signature' },
      SIGNERS[2],
    ];
    const up = await uploadOk(t, key, 'acme', {
      fixture: 'us_constitution.pdf',
      recipients,
      otpRequired: true,
      checkOrder: true,
    });
    const pages = up['total-pages'];
    expect(pages).toBe(19);

    // A field off the page, a second field with one id, and a field for the copy-receiver are refused; nothing kept.
    const offPage = await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({
        orgId: 'acme',
        data: [{ refId: up.refId, order: 1, fields: [{ kind: 'text', page: 1, box: [500, 700, 700, 720] }] }],
      })
      .expect(400);
    expect(offPage.body.message).toBe(
      fill(FieldMessages.boxOffPage, { label: 'Text', page: 1, width: 612, height: 792 }),
    );
    const twice = await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({
        orgId: 'acme',
        data: [
          { refId: up.refId, order: 1, fields: [{ id: 'x', kind: 'text', page: 1, box: [10, 10, 100, 30] }] },
          { refId: up.refId, order: 2, fields: [{ id: 'x', kind: 'text', page: 1, box: [10, 40, 100, 60] }] },
        ],
      })
      .expect(400);
    expect(twice.body.message).toBe(fill(FieldMessages.idDuplicate, { id: 'x' }));
    const observer = await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({
        orgId: 'acme',
        data: [{ refId: up.refId, order: 3, fields: [{ kind: 'text', page: 1, box: [10, 10, 100, 30] }] }],
      })
      .expect(400);
    expect(observer.body.message).toBe(FieldMessages.signerInvalid);
    const badPattern = await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({
        orgId: 'acme',
        data: [
          { refId: up.refId, order: 1, fields: [{ kind: 'text', page: 1, box: [10, 10, 100, 30], pattern: '([' }] },
        ],
      })
      .expect(400);
    expect(badPattern.body.message).toBe(FieldMessages.patternInvalid);
    expect((await partyRow(t, up.refId, 1)).fields).toBeNull();

    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({
        orgId: 'acme',
        data: [
          { refId: up.refId, order: 1, pageNo: [1], rectangle: '400,700,560,760', fields: signerOneFields(pages) },
          {
            refId: up.refId,
            order: 2,
            pageNo: [19],
            rectangle: '400,700,560,760',
            fields: [
              { id: 'address', kind: 'text', label: 'Address', page: 3, box: [60, 60, 400, 80] },
              {
                id: 'plan',
                kind: 'radio',
                label: 'Plan',
                page: 3,
                box: [60, 100, 260, 160],
                options: ['Basic', 'Premium'],
              },
            ],
          },
        ],
      })
      .expect(200);

    // Staff see the fields on the request's page; the name is prefilled from the party.
    const shown = await t.http.get(`/api/requests/${up.refId}`).set('apikey', key).expect(200);
    const one = shown.body.data.find((p: { order: number }) => p.order === 1);
    expect(one.fields).toHaveLength(pages + 6);
    expect(one.fields.find((f: { id: string }) => f.id === 'name').value).toBe('Asha Rao');
    expect(one.fields.find((f: { id: string }) => f.id === 'init1').value).toBe('AR');
    expect(shown.body.data.find((p: { order: number }) => p.order === 3).fields).toBeUndefined();

    const tokens = await tokensOf(t, key, 'acme', up.refId);
    const s1 = await accept(up.refId, 1, tokens[1], SIGNERS[0].email);
    const fields = (body: unknown) => body as SignerFieldsView;

    let view = fields((await t.http.get(`/v1/fields/${s1.base}`).set(s1.h).expect(200)).body);
    expect(view.requiredTotal).toBe(pages + 5); // initials × 19, name, PAN, the checkbox, the dropdown, the attachment
    expect(view.requiredLeft).toBe(4); // initials and name are prefilled; PAN, checkbox, dropdown, attachment left
    // Signing before the required fields are filled is refused.
    const early = await t.http.get(`/v1/init/acme/${s1.requestId}?method=2`).set(s1.h).expect(400);
    expect(early.body.message).toBe(fill(FieldMessages.requiredMissing, { count: 4 }));

    // A wrong PAN, with a right value beside it in the same call: refused, and neither is kept.
    const wrong = await t.http
      .post(`/v1/fields/${s1.base}`)
      .set(s1.h)
      .send({ values: { city: 'Pune', pan: 'ABCDE12345' } })
      .expect(400);
    expect(wrong.body.message).toBe(FIELD_PATTERNS.PAN.message);
    view = fields((await t.http.get(`/v1/fields/${s1.base}`).set(s1.h).expect(200)).body);
    expect(view.fields.find((f) => f.id === 'city')?.value).toBeNull();
    // Another signer's field, a name that is not editable, a date, an option not offered.
    expect(
      (
        await t.http
          .post(`/v1/fields/${s1.base}`)
          .set(s1.h)
          .send({ values: { plan: 'Basic' } })
          .expect(403)
      ).body.message,
    ).toBe(FieldMessages.notYours);
    expect(
      (
        await t.http
          .post(`/v1/fields/${s1.base}`)
          .set(s1.h)
          .send({ values: { name: 'Someone' } })
          .expect(400)
      ).body.message,
    ).toBe(fill(FieldMessages.notEditable, { label: 'Name' }));
    expect(
      (
        await t.http
          .post(`/v1/fields/${s1.base}`)
          .set(s1.h)
          .send({ values: { city: 'Delhi' } })
          .expect(400)
      ).body.message,
    ).toBe(fill(FieldMessages.notAnOption, { label: 'City' }));
    // Attachments: over 5 MB, and a GIF renamed .png, are refused by size and by content.
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(6 * 1024 * 1024 - 9, 0x20)]);
    const tooBig = await t.http
      .post(`/v1/fields/${s1.base}/cheque/attachment`)
      .set(s1.h)
      .attach('file', big, { filename: 'big.pdf', contentType: 'application/pdf' });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.message).toBe(FieldMessages.attachmentTooLarge);
    const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=', 'base64');
    const renamed = await t.http
      .post(`/v1/fields/${s1.base}/cheque/attachment`)
      .set(s1.h)
      .attach('file', gif, { filename: 'cheque.png', contentType: 'image/png' })
      .expect(415);
    expect(renamed.body.message).toBe(FieldMessages.attachmentType);
    expect((await partyRow(t, up.refId, 1)).fields?.find((f) => f.id === 'cheque')?.attachment).toBeNull();
    // The second signer has no link before the first signed (sequential order): nothing to fill with.
    expect(tokens[2]).toBeUndefined();

    // The right values, kept as the signer goes.
    view = fields(
      (
        await t.http
          .post(`/v1/fields/${s1.base}`)
          .set(s1.h)
          .send({ values: { pan: 'ABCDE1234F', agree: true, city: 'Pune' } })
          .expect(200)
      ).body,
    );
    expect(view.requiredLeft).toBe(1);
    const jpeg = fixtureJpeg();
    view = fields(
      (
        await t.http
          .post(`/v1/fields/${s1.base}/cheque/attachment`)
          .set(s1.h)
          .attach('file', jpeg, { filename: 'cheque.jpg', contentType: 'image/jpeg' })
          .expect(200)
      ).body,
    );
    expect(view.requiredLeft).toBe(0);
    expect(view.fields.find((f) => f.id === 'cheque')).toMatchObject({
      value: 'cheque.jpg',
      sha256: sha256(jpeg),
      attachment: { name: 'cheque.jpg', type: 'image/jpeg', size: jpeg.length },
    });
    // The audit trail records each value's SHA-256.
    const filled = await t.db
      .getRepository(AuditEventEntity)
      .find({ where: { refId: up.refId, type: 'party.fields_filled' } });
    expect(JSON.stringify(filled.map((e) => e.data))).toContain(sha256('ABCDE1234F'));

    await t.http.get(`/v1/init/acme/${s1.requestId}?method=2`).set(s1.h).expect(200);
    await t.http
      .post(`/v1/esignature/acme/${s1.requestId}`)
      .set(s1.h)
      .send({ kind: 'typed', style: 'italic' })
      .expect(200);
    await drain(t);
    expect((await partyRow(t, up.refId, 1)).status).toBe('completed');
    // After signing, a value cannot change.
    const late = await t.http
      .post(`/v1/fields/${s1.base}`)
      .set(s1.h)
      .send({ values: { city: 'Mumbai' } });
    expect(late.status).toBe(409);
    expect(late.body.message).toBe(FieldMessages.alreadySigned);

    const s2 = await accept(up.refId, 2, (await tokensOf(t, key, 'acme', up.refId))[2], SIGNERS[1].email);
    await t.http
      .post(`/v1/fields/${s2.base}`)
      .set(s2.h)
      .send({ values: { address: 'आशा वर्मा, Pune', plan: 'Premium' } })
      .expect(200);
    await t.http.get(`/v1/init/acme/${s2.requestId}?method=2`).set(s2.h).expect(200);
    await t.http
      .post(`/v1/esignature/acme/${s2.requestId}`)
      .set(s2.h)
      .send({ kind: 'typed', style: 'normal' })
      .expect(200);
    await drain(t);

    const pdf = await signedPdf(t, up.refId);
    const verified = await verifyPdf(t, pdf);
    expect(verified.signatures.length).toBeGreaterThanOrEqual(3);
    for (const s of verified.signatures) expect(s).toMatchObject({ valid: true, trusted: true });

    // Each value inside its box on its page (pdftotext -bbox), the Devanagari given back as typed.
    const words = wordsOf(pdf);
    const today = (await partyRow(t, up.refId, 1)).fields?.find((f) => f.id === 'date')?.value as string;
    expect(today).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(foundInBox(words, 1, [60, 60, 260, 80], 'Asha Rao')).toBe(true);
    expect(foundInBox(words, 1, [60, 90, 260, 110], today)).toBe(true);
    expect(foundInBox(words, 1, PAN_BOX, 'ABCDE1234F')).toBe(true);
    expect(foundInBox(words, 2, [60, 100, 260, 120], 'Pune')).toBe(true);
    expect(foundInBox(words, 2, [60, 140, 360, 160], 'cheque.jpg')).toBe(true);
    for (let p = 1; p <= pages; p++) expect(foundInBox(words, p, [540, 752, 600, 776], 'AR')).toBe(true);
    expect(foundInBox(words, 3, [60, 60, 400, 80], 'आशा वर्मा, Pune')).toBe(true);
    expect(foundInBox(words, 3, [60, 100, 260, 160], 'Premium')).toBe(true);
    // The certificate of completion lists the values with their SHA-256.
    const text = execFileSync('pdftotext', ['-', '-'], { input: pdf, maxBuffer: 64 * 1024 * 1024 }).toString();
    expect(text).toContain('ABCDE1234F');
    expect(text).toContain(sha256(jpeg));

    // The attachment comes out of the document as it went in.
    const dir = mkdtempSync(join(tmpdir(), 'esign-detach-'));
    try {
      writeFileSync(join(dir, 'signed.pdf'), pdf);
      execFileSync('pdfdetach', ['-saveall', '-o', dir, join(dir, 'signed.pdf')]);
      const out = readdirSync(dir).filter((f) => f !== 'signed.pdf');
      expect(out.map((f) => sha256(readFileSync(join(dir, f))))).toContain(sha256(jpeg));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // /v1/download carries the filled values, and the party's row keeps them.
    const download = await t.http.get(`/v1/download/acme/${s2.requestId}`).set(s2.h).expect(200);
    expect(download.body.fields.find((f: { id: string }) => f.id === 'pan')).toMatchObject({
      value: 'ABCDE1234F',
      signerName: 'Asha Rao',
    });
    const row = await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up.refId, order: 2 });
    expect(row.fields?.find((f) => f.id === 'plan')?.value).toBe('Premium');
  });

  it("a template's fields for roles and its PDF's own form values, set before sending, are in the signed PDF", async () => {
    const staff = await signIn(t, 'alice', 'alice-password');
    const template = await createTemplate('sample_form.pdf', 'HR form');
    // The console's editor: the PDF's own fields get values, and fields are placed for Signer 1 and Signer 2.
    const annotation = {
      ...template.template_annotation,
      formFieldValues: { ...template.template_annotation.formFieldValues, City: 'Pune Camp', Sex: 'FEMALE', PHD: true },
      fields: [
        { id: 'emp', signer: 1, kind: 'text', label: 'Employee ID', page: 1, box: [300, 40, 500, 60], value: 'E-100' },
        {
          id: 'dept',
          signer: 2,
          kind: 'dropdown',
          label: 'Department',
          page: 1,
          box: [300, 70, 500, 90],
          options: ['Legal', 'Finance'],
        },
      ],
    };
    const saved = await t.http
      .put(`/v1/templates/${template.template_id}`)
      .set('apikey', staff)
      .send({ template_annotation: annotation })
      .expect(200);
    expect(saved.body.data.template_annotation.fields).toHaveLength(2);
    // A field off the template's page is refused.
    const off = await t.http
      .put(`/v1/templates/${template.template_id}`)
      .set('apikey', staff)
      .send({
        template_annotation: { ...annotation, fields: [{ signer: 1, kind: 'text', page: 1, box: [300, 40, 900, 60] }] },
      })
      .expect(400);
    expect(off.body.message).toMatch(/does not fit on page 1/);

    // /request-initiate: the template picked, its prefilled values edited before sending.
    const recipients = [
      { ...SIGNERS[0], signature_type: 'e-Signature' },
      { ...SIGNERS[1], signature_type: 'e-Signature' },
    ];
    const badValue = await t.http
      .post('/v1/upload')
      .set('apikey', key)
      .field('data', JSON.stringify(recipients))
      .field('orgId', 'acme')
      .field('template_id', template.template_id)
      .field('fieldValues', JSON.stringify({ dept: 'Sales' }));
    expect(badValue.status).toBe(400);
    const up = await uploadOk(t, key, 'acme', {
      file: null as unknown as Buffer,
      recipients,
      otpRequired: true,
      fields: {
        template_id: template.template_id,
        formFieldValues: JSON.stringify({ ZIP: '411001' }),
        fieldValues: JSON.stringify({ emp: 'E-200' }),
      },
    });
    expect(up.requests[0].fields?.map((f) => [f.id, f.value])).toEqual([['emp', 'E-200']]);
    expect(up.requests[1].fields?.map((f) => f.id)).toEqual(['dept']);
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 2, pageNo: [1], rectangle: '400,700,560,760' }] })
      .expect(200);
    const tokens = await tokensOf(t, key, 'acme', up.refId);
    for (const order of [1, 2]) {
      const s = await accept(up.refId, order, tokens[order], SIGNERS[order - 1].email);
      if (order === 2)
        await t.http
          .post(`/v1/fields/${s.base}`)
          .set(s.h)
          .send({ values: { dept: 'Finance' } })
          .expect(200);
      await signTyped(s);
    }
    await drain(t);
    const pdf = await signedPdf(t, up.refId);
    // The form's own EMPLOYEE SIGNATURE field stays an empty signature field; every signature made is valid.
    const made = (await verifyPdf(t, pdf)).signatures.filter((s) => s.field !== 'EMPLOYEE SIGNATURE');
    expect(made.map((s) => s.field)).toEqual(['esign_party_1', 'esign_party_2', 'esign_seal']);
    for (const s of made) expect(s).toMatchObject({ valid: true, trusted: true });
    const form = await readFormFields(pdf);
    expect(form.formFieldValues).toMatchObject({ City: 'Pune Camp', Sex: 'FEMALE', PHD: true, ZIP: '411001' });
    const words = wordsOf(pdf);
    expect(foundInBox(words, 1, [300, 40, 500, 60], 'E-200')).toBe(true);
    expect(foundInBox(words, 1, [300, 70, 500, 90], 'Finance')).toBe(true);
  });

  it("fancy_fields.pdf as a template: its dropdown and text values set before sending are the signed PDF's", async () => {
    const template = await createTemplate('fancy_fields.pdf', 'Fancy');
    const gundam = 'Choose A Gundam 🤖';
    expect(template.template_annotation.annotations.find((a) => a.formFieldName === gundam)?.customData).toEqual({
      type: 'dropdown-field',
      options: ['Exia', 'Kyrios', 'Virtue', 'Dynames'],
    });
    const wrong = await t.http
      .post('/v1/upload')
      .set('apikey', key)
      .field('data', JSON.stringify([{ ...SIGNERS[0], signature_type: 'e-Signature' }]))
      .field('orgId', 'acme')
      .field('template_id', template.template_id)
      .field('formFieldValues', JSON.stringify({ [gundam]: 'Zaku' }));
    expect(wrong.status).toBe(400);
    const up = await uploadOk(t, key, 'acme', {
      file: null as unknown as Buffer,
      recipients: [{ ...SIGNERS[0], signature_type: 'e-Signature' }],
      otpRequired: true,
      fields: {
        template_id: template.template_id,
        formFieldValues: JSON.stringify({ [gundam]: 'Exia', 'First Name 🚀': 'Asha' }),
      },
    });
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1, pageNo: [1], rectangle: '400,700,560,760' }] })
      .expect(200);
    const s = await accept(up.refId, 1, (await tokensOf(t, key, 'acme', up.refId))[1], SIGNERS[0].email);
    await signTyped(s);
    await drain(t);
    const pdf = await signedPdf(t, up.refId);
    for (const sig of (await verifyPdf(t, pdf)).signatures) expect(sig).toMatchObject({ valid: true, trusted: true });
    expect((await readFormFields(pdf)).formFieldValues).toMatchObject({ [gundam]: 'Exia', 'First Name 🚀': 'Asha' });
  });
});
