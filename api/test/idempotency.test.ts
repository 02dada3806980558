import { RequestMessages, type UploadResponse } from '@esign/contract';
import { RequestEntity } from '../src/modules/requests/request.entity';
import { upload, uploadOk } from './support/requests';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

describe('POST /v1/upload with a client reference (idempotency)', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const requests = (orgId: string) => t.db.getRepository(RequestEntity).countBy({ orgId });

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
  });
  afterAll(() => t.close());

  it('creates one request for the same reference twice, and answers the draft, then the sent request', async () => {
    const before = await requests('acme');
    const first = await uploadOk(t, key, 'acme', { fields: { clientReference: '  invoice-42  ' } });
    expect(first.duplicate).toBeUndefined();
    const second = await uploadOk(t, key, 'acme', { fields: { clientReference: 'invoice-42' } });
    expect(second).toMatchObject({ code: 200, refId: first.refId, duplicate: true, status: 'draft' });
    expect(second.requests).toEqual(first.requests);
    expect(second['total-pages']).toBe(first['total-pages']);
    expect(await requests('acme')).toBe(before + 1);
    const stored = await t.db.getRepository(RequestEntity).findOneByOrFail({ refId: first.refId });
    expect(stored.clientReference).toBe('invoice-42');

    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ data: [{ refId: first.refId, order: 1 }] })
      .expect(200);
    const third = (await upload(t, key, 'acme').set('idempotency-key', 'invoice-42').expect(200))
      .body as UploadResponse;
    expect(third).toMatchObject({ refId: first.refId, duplicate: true, status: 'in-progress' });
    expect(await requests('acme')).toBe(before + 1);
  });

  it('lets different organisations use the same reference, and uploads without one are not constrained', async () => {
    const acme = await uploadOk(t, key, 'acme', { fields: { clientReference: 'shared-ref' } });
    const globex = await uploadOk(t, otherKey, 'globex', { fields: { clientReference: 'shared-ref' } });
    expect(globex.refId).not.toBe(acme.refId);
    expect(globex.duplicate).toBeUndefined();
    const before = await requests('acme');
    const a = await uploadOk(t, key, 'acme');
    const b = await uploadOk(t, key, 'acme');
    expect(a.refId).not.toBe(b.refId);
    expect(await requests('acme')).toBe(before + 2);
  });

  it('refuses a reference longer than 100 characters (or blank) with a clear message and stores nothing', async () => {
    const before = await requests('acme');
    for (const clientReference of ['x'.repeat(101), '   ']) {
      const res = await upload(t, key, 'acme', { fields: { clientReference } }).expect(400);
      expect(res.body.message).toBe(RequestMessages.clientReferenceInvalid);
    }
    await upload(t, key, 'acme').set('idempotency-key', 'y'.repeat(101)).expect(400);
    expect(await requests('acme')).toBe(before);
    const ok = await uploadOk(t, key, 'acme', { fields: { clientReference: 'z'.repeat(100) } });
    expect(ok.refId).toBeGreaterThan(0);
  });

  it('creates one request for concurrent uploads with the same reference', async () => {
    const before = await requests('acme');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => uploadOk(t, key, 'acme', { fields: { clientReference: 'race-1' } })),
    );
    expect(new Set(answers.map((a) => a.refId)).size).toBe(1);
    expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
    expect(await requests('acme')).toBe(before + 1);
  });
});
