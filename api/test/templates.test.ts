import { Messages, type TemplateAnnotation } from '@esign/contract';
import { readFormFields } from '../src/modules/documents/pdf/forms';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { readFixture } from './support/fixtures';
import { SIGNERS, uploadOk } from './support/requests';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

interface TemplateView {
  template_id: string;
  template_name: string;
  template_link: string;
  template_annotation: TemplateAnnotation;
}

describe('templates: a PDF plus its form-field annotation', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;

  const create = (fixture: string, name: string, annotation?: unknown) => {
    let req = t.http
      .post('/v1/templates')
      .set('apikey', key)
      .field('template_name', name)
      .attach('file', readFixture('pdfs', fixture), { filename: fixture, contentType: 'application/pdf' });
    if (annotation !== undefined) req = req.field('template_annotation', JSON.stringify(annotation));
    return req;
  };
  const fetchLink = async (link: string) => {
    const url = new URL(link);
    const res = await t.http
      .get(url.pathname + url.search)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    return res.body as Buffer;
  };

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await signIn(t, 'alice', 'alice-password');
    otherKey = await signIn(t, 'gina', 'gina-password');
  });
  afterAll(() => t.close());

  it("answers 'Templates not found' while there are none", async () => {
    const res = await t.http.get('/v1/templates').set('apikey', key).set('org-id', 'acme').expect(200);
    expect(res.body).toMatchObject({ data: [], message: Messages.templatesNotFound });
    await t.http.get('/v1/templates').set('apikey', key).set('org-id', 'globex').expect(403);
  });

  let form: TemplateView;
  it('creates a template from a PDF with AcroForm fields, reading its fields and values', async () => {
    const res = await create('prefilled_f1040.pdf', 'Form 1040').expect(201);
    form = res.body.data;
    expect(form.template_name).toBe('Form 1040');
    expect(form.template_annotation.annotations.length).toBeGreaterThan(50);
    const filled = Object.entries(form.template_annotation.formFieldValues).filter(([, v]) => v !== '' && v !== false);
    expect(filled.length).toBeGreaterThan(0);
    const pdf = await fetchLink(form.template_link);
    expect(Buffer.compare(pdf, readFixture('pdfs', 'prefilled_f1040.pdf'))).toBe(0);

    const list = await t.http.get('/v1/templates').set('apikey', key).set('org-id', 'acme').expect(200);
    expect(list.body.data.map((x: TemplateView) => x.template_id)).toEqual([form.template_id]);
    const rest = await t.http.get('/api/templates').query({ range: '[0,9]' }).set('apikey', key).expect(200);
    expect(rest.headers['content-range']).toBe('templates 0-0/1');
  });

  it('refuses a template without a name, with a bad annotation or a non-PDF, storing nothing', async () => {
    expect((await create('sample_form.pdf', ' ')).status).toBe(400);
    const bad = await create('sample_form.pdf', 'Bad', {
      annotations: [{ formFieldName: 'x', bbox: [0, 0, 10], pageIndex: 0, customData: { type: 'text-field' } }],
      formFieldValues: {},
    });
    expect(bad.status).toBe(400);
    const beyond = await create('sample_form.pdf', 'Beyond', {
      annotations: [{ formFieldName: 'x', bbox: [0, 0, 10, 10], pageIndex: 7, customData: { type: 'text-field' } }],
      formFieldValues: {},
    });
    expect(beyond.status).toBe(400);
    const png = await t.http
      .post('/v1/templates')
      .set('apikey', key)
      .field('template_name', 'Photo')
      .attach('file', readFixture('faces', 'coffee.png'), { filename: 'photo.pdf', contentType: 'application/pdf' });
    expect(png.status).toBe(415);
    expect(png.body.message).toBe(Messages.invalidPdf);
    const list = await t.http.get('/v1/templates').set('apikey', key).expect(200);
    expect(list.body.data).toHaveLength(1);
  });

  it('renames and re-annotates a template; another organisation cannot see or change it', async () => {
    const res = await t.http
      .put(`/v1/templates/${form.template_id}`)
      .set('apikey', key)
      .send({ template_name: 'Form 1040 (2026)' })
      .expect(200);
    expect(res.body.data.template_name).toBe('Form 1040 (2026)');
    await t.http.get(`/v1/templates/${form.template_id}`).set('apikey', otherKey).expect(404);
    await t.http
      .put(`/v1/templates/${form.template_id}`)
      .set('apikey', otherKey)
      .send({ template_name: 'Mine' })
      .expect(404);
    await t.http.delete(`/v1/templates/${form.template_id}`).set('apikey', otherKey).expect(404);
    const other = await t.http.get('/v1/templates').set('apikey', otherKey).expect(200);
    expect(other.body.data).toEqual([]);
  });

  it("starts a request from a template: its signature field becomes the signer's box, form values filled in", async () => {
    const created = await create('with_signature.pdf', 'Signature form').expect(201);
    const tpl: TemplateView = created.body.data;
    const sig = tpl.template_annotation.annotations.find((a) => a.customData.type === 'signature-field');
    expect(sig).toBeDefined();
    const up = await uploadOk(t, key, 'acme', {
      file: null as unknown as Buffer,
      fields: { template_id: tpl.template_id },
      recipients: [SIGNERS[0]],
    });
    const party = await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up.refId, order: 1 });
    const [x, y, w, h] = sig!.bbox;
    expect(party.boxes).toEqual([{ pages: String(sig!.pageIndex + 1), x, y, width: w, height: h }]);
    expect(up.requests[0].pageNo).toEqual([sig!.pageIndex + 1]);

    const sample = await create('sample_form.pdf', 'Sample').expect(201);
    const sampleTpl: TemplateView = sample.body.data;
    const text = sampleTpl.template_annotation.annotations.find((a) => a.customData.type === 'text-field');
    expect(text).toBeDefined();
    const up2 = await uploadOk(t, key, 'acme', {
      file: null as unknown as Buffer,
      fields: { template_id: sampleTpl.template_id, formFieldValues: JSON.stringify({ [text!.formFieldName]: 'MH' }) },
      recipients: [SIGNERS[0]],
    });
    const stored = await fetchLink(up2['file-url']);
    const fields = await readFormFields(stored);
    expect(fields.formFieldValues[text!.formFieldName]).toBe('MH');

    const unknown = await t.http
      .post('/v1/upload')
      .set('apikey', key)
      .field('data', JSON.stringify([SIGNERS[0]]))
      .field('orgId', 'acme')
      .field('template_id', sampleTpl.template_id)
      .field('formFieldValues', JSON.stringify({ 'no such field': 'x' }));
    expect(unknown.status).toBe(400);
  });

  it('deletes a template', async () => {
    await t.http.delete(`/v1/templates/${form.template_id}`).set('apikey', key).expect(200);
    await t.http.get(`/v1/templates/${form.template_id}`).set('apikey', key).expect(404);
  });
});
