import type { DraftListItem, RequestListItem, UploadResponse } from '@esign/contract';
import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';
import { JobEntity } from '../src/modules/jobs/job.entity';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { RequestEntity } from '../src/modules/requests/request.entity';
import { DRAFTS_CLEANUP_JOB, UnsavedDrafts } from '../src/modules/requests/unsaved-drafts';
import { saveDefault, SIGNERS, upload, uploadOk } from './support/requests';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 18, points 6 and 7: the console's lists show a draft once it is saved and a request by the time it was sent
 * (newest first), never the draft PROCEED uploads before the placement; Back discards that draft at once and the
 * cleanup job removes the ones left behind for a day. The CLI's upload → save → process, and its resume by client
 * reference, keep working.
 */
describe('listing by the time a request was saved or sent, and the drafts never saved', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const request = (refId: number) => t.db.getRepository(RequestEntity).findOneByOrFail({ refId });
  const page = async <T>(path: string): Promise<{ total: number; rows: T[] }> => {
    const res = await t.http
      .get(path)
      .set('apikey', key)
      .query({ sort: JSON.stringify(['timestamp', 'DESC']), range: JSON.stringify([0, 99]) })
      .expect(200);
    return { total: Number(String(res.headers['content-range']).split('/')[1]), rows: res.body as T[] };
  };
  const draftIds = async () => (await page<DraftListItem>('/api/drafts')).rows.map((d) => d.refId);
  const requestIds = async () => (await page<RequestListItem>('/api/requests')).rows.map((r) => r.refId);
  const process = (refId: number) =>
    t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId, order: 1 }] })
      .expect(200);
  const discard = (refId: number, withKey = key) =>
    t.http.delete(`/api/drafts/${refId}/unsaved`).set('apikey', withKey);

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    // Organisation keys: these tests move the clock by a day, past a session key's idle expiry.
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
  });
  afterAll(() => t.close());

  it('lists a draft from its SAVE on, by the time of its last save; the lists and totals never show it before', async () => {
    const before = await page<DraftListItem>('/api/drafts');
    const older = await uploadOk(t, key, 'acme', { filename: 'older-upload.pdf' });
    t.clock.advance(60);
    const newer = await uploadOk(t, key, 'acme', { filename: 'newer-upload.pdf' });
    // Uploaded, not saved: neither in the drafts (nor their total), nor under the drafts of /v1, nor found by Ref ID.
    expect((await page<DraftListItem>('/api/drafts')).total).toBe(before.total);
    expect(await draftIds()).not.toContain(older.refId);
    const v1 = await t.http.get('/v1/drafts/acme').set('apikey', key).expect(200);
    expect((v1.body.data as DraftListItem[]).map((d) => d.refId)).not.toContain(newer.refId);
    const byRef = await t.http
      .get('/api/drafts')
      .set('apikey', key)
      .query({ filter: JSON.stringify({ q: String(older.refId) }) })
      .expect(200);
    expect(byRef.body).toEqual([]);
    await t.http.get(`/api/drafts/${older.refId}`).set('apikey', key).expect(404);

    // Saved in the other order: the one saved last is first, whatever the upload order.
    t.clock.advance(60);
    await saveDefault(t, key, 'acme', newer);
    t.clock.advance(60);
    const savedAt = t.clock.now().toISOString();
    await saveDefault(t, key, 'acme', older);
    const after = await page<DraftListItem>('/api/drafts');
    expect(after.total).toBe(before.total + 2);
    expect(after.rows.slice(0, 2).map((d) => d.refId)).toEqual([older.refId, newer.refId]);
    expect(after.rows[0].timestamp).toBe(savedAt);
    await t.http.get(`/api/drafts/${older.refId}`).set('apikey', key).expect(200);
  });

  it('lists a request by the time it was sent: a draft submitted today is newer than one sent yesterday', async () => {
    const draftFirst = await uploadOk(t, key, 'acme', { filename: 'uploaded-first.pdf' });
    await saveDefault(t, key, 'acme', draftFirst);
    t.clock.advance(3600);
    const sentFirst = await uploadOk(t, key, 'acme', { filename: 'sent-first.pdf' });
    await process(sentFirst.refId);
    t.clock.advance(3600);
    const sentAt = t.clock.now().toISOString();
    await process(draftFirst.refId);

    const { rows } = await page<RequestListItem>('/api/requests');
    expect(rows.slice(0, 2).map((r) => r.refId)).toEqual([draftFirst.refId, sentFirst.refId]);
    expect(rows[0]).toMatchObject({ timestamp: sentAt, submitted_at: sentAt });
    const v1 = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
    expect((v1.body.data as RequestListItem[]).slice(0, 2).map((r) => r.refId)).toEqual([
      draftFirst.refId,
      sentFirst.refId,
    ]);
    // Oldest first is the exact reverse.
    const asc = await t.http
      .get('/api/requests')
      .set('apikey', key)
      .query({ sort: JSON.stringify(['timestamp', 'ASC']), range: JSON.stringify([0, 99]) })
      .expect(200);
    expect((asc.body as RequestListItem[]).map((r) => r.refId)).toEqual((await requestIds()).reverse());
    // A request sent without a SAVE (the CLI with a template's boxes) is listed by its submission as well.
    const direct = await uploadOk(t, key, 'acme', { filename: 'never-saved.pdf' });
    t.clock.advance(60);
    await process(direct.refId);
    expect((await requestIds())[0]).toBe(direct.refId);
  });

  it('shows a rejected party its remark and the time of the rejection in the lists', async () => {
    const up = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0]], otpRequired: false });
    await process(up.refId);
    const listed = await t.http.get(`/api/requests/${up.refId}`).set('apikey', key).expect(200);
    const party = (listed.body as RequestListItem).data[0];
    expect(party).toMatchObject({ rejected_at: null, remark: null });
    const token = new URL(party.sign_url as string).searchParams.get('token') as string;
    t.clock.advance(120);
    const rejectedAt = t.clock.now().toISOString();
    await t.http
      .post(`/v1/esign/reject/acme/${up.refId}/1`)
      .set('x-sign-token', token)
      .send({ remark: 'The fee in clause 4 is wrong.' })
      .expect(200);
    const one = (await t.http.get(`/api/requests/${up.refId}`).set('apikey', key).expect(200)).body as RequestListItem;
    expect(one.request_status).toBe('rejected');
    expect(one.data[0]).toMatchObject({
      status: 'rejected',
      rejected_at: rejectedAt,
      remark: 'The fee in clause 4 is wrong.',
    });
    const inList = (await page<RequestListItem>('/api/requests')).rows.find((r) => r.refId === up.refId);
    expect(inList?.data[0]).toMatchObject({ rejected_at: rejectedAt, remark: 'The fee in clause 4 is wrong.' });
  });

  it('Back discards the unsaved draft at once, keeps a saved draft or a sent request, and only for its organisation', async () => {
    const before = await page<DraftListItem>('/api/drafts');
    const unsaved = await uploadOk(t, key, 'acme');
    expect((await discard(unsaved.refId, otherKey)).status).toBe(404);
    expect((await discard(unsaved.refId).expect(200)).body).toEqual({ id: unsaved.refId, kept: false });
    const row = await request(unsaved.refId);
    expect(row.deletedAt).not.toBeNull();
    expect(row.listedAt).toBeNull();
    // Asked again (a second click): gone already, still answered.
    expect((await discard(unsaved.refId).expect(200)).body).toEqual({ id: unsaved.refId, kept: false });
    // Its audit trail stays, and says why it went.
    const events = await t.db.getRepository(AuditEventEntity).find({ where: { refId: unsaved.refId } });
    expect(events.map((e) => e.type)).toEqual(['request.created', 'request.discarded']);

    // Editing a saved draft (Edit/Submit → PROCEED → Back) keeps it, listed as before.
    const saved = await uploadOk(t, key, 'acme');
    await saveDefault(t, key, 'acme', saved);
    await upload(t, key, 'acme', { fields: { refId: String(saved.refId) } }).expect(200);
    expect((await discard(saved.refId).expect(200)).body).toEqual({ id: saved.refId, kept: true });
    expect(await draftIds()).toContain(saved.refId);
    // A request sent is never discarded.
    const sent = await uploadOk(t, key, 'acme');
    await process(sent.refId);
    expect((await discard(sent.refId).expect(200)).body).toEqual({ id: sent.refId, kept: true });
    expect((await request(sent.refId)).deletedAt).toBeNull();
    await discard(1).expect(404);
    await t.http.delete('/api/drafts/not-a-number/unsaved').set('apikey', key).expect(404);
    expect((await page<DraftListItem>('/api/drafts')).total).toBe(before.total + 1);
  });

  it('the cleanup job removes unsaved drafts untouched for 24 h, keeps the rest, and runs again every hour', async () => {
    await t.app.get(UnsavedDrafts).schedule();
    // Scheduled once, however many nodes ask.
    await t.app.get(UnsavedDrafts).schedule();
    const jobs = () => t.db.getRepository(JobEntity).find({ where: { type: DRAFTS_CLEANUP_JOB } });
    expect(await jobs()).toHaveLength(1);

    const abandoned = await uploadOk(t, key, 'acme', { filename: 'abandoned.pdf' });
    const saved = await uploadOk(t, key, 'acme', { filename: 'saved.pdf' });
    await saveDefault(t, key, 'acme', saved);
    const sent = await uploadOk(t, key, 'acme', { filename: 'sent.pdf' });
    await process(sent.refId);
    // A run now removes nothing: nothing is a day old yet.
    await t.app.get(JobsRunner).drain();
    expect((await request(abandoned.refId)).deletedAt).toBeNull();

    t.clock.advance(23 * 3600);
    // Edited (PROCEED again) an hour before the day is over: untouched for less than 24 h when the job runs.
    const edited = await uploadOk(t, key, 'acme', { filename: 'edited.pdf' });
    t.clock.advance(3600 + 60);
    await upload(t, key, 'acme', { fields: { refId: String(edited.refId) } }).expect(200);
    const fresh = await uploadOk(t, key, 'acme', { filename: 'fresh.pdf' });
    await t.app.get(JobsRunner).drain();

    expect((await request(abandoned.refId)).deletedAt).not.toBeNull();
    for (const kept of [saved.refId, sent.refId, edited.refId, fresh.refId])
      expect((await request(kept)).deletedAt).toBeNull();
    expect(await draftIds()).toContain(saved.refId);
    const [job] = await jobs();
    expect(job).toMatchObject({ status: 'queued' });
    expect(job.runAt.getTime()).toBe(t.clock.now().getTime() + 3_600_000);
    const events = await t.db.getRepository(AuditEventEntity).find({ where: { refId: abandoned.refId } });
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['request.created', expect.any(String)],
      ['request.discarded', 'system'],
    ]);

    // It runs again by itself (hourly) and removes what has become a day old meanwhile.
    t.clock.advance(24 * 3600 + 60);
    await t.app.get(JobsRunner).drain();
    expect((await request(edited.refId)).deletedAt).not.toBeNull();
    expect((await request(fresh.refId)).deletedAt).not.toBeNull();
    expect((await request(saved.refId)).deletedAt).toBeNull();
  });

  it('keeps the CLI flow: upload → save → process, and a resumed run finds its unsaved draft by its reference', async () => {
    const reference = 'bulk-row-7';
    const first = await uploadOk(t, key, 'acme', { fields: { clientReference: reference } });
    // The run stopped after the upload; resumed, the same reference answers the same draft, still to be saved.
    const again = await uploadOk(t, key, 'acme', { fields: { clientReference: reference } });
    expect(again).toMatchObject({ refId: first.refId, duplicate: true, status: 'draft' });
    await saveDefault(t, key, 'acme', again);
    await process(again.refId);
    expect((await request(first.refId)).status).toBe('in-progress');
    expect(await requestIds()).toContain(first.refId);
    const third = await uploadOk(t, key, 'acme', { fields: { clientReference: reference } });
    expect(third).toMatchObject({ refId: first.refId, duplicate: true, status: 'in-progress' });

    // A run that stopped after the upload and came back days later: the cleanup freed its reference, so the row is
    // sent afresh instead of being told its draft was deleted.
    const stale = await uploadOk(t, key, 'acme', { fields: { clientReference: 'bulk-row-8' } });
    t.clock.advance(25 * 3600);
    await t.app.get(UnsavedDrafts).removeAbandoned();
    const resumed: UploadResponse = await uploadOk(t, key, 'acme', { fields: { clientReference: 'bulk-row-8' } });
    expect(resumed.refId).not.toBe(stale.refId);
    expect(resumed.duplicate).toBeUndefined();
    // Duplicating a request made with a reference gives a draft without it (the reference stays the original's).
    const dup = await t.http.get(`/v1/duplicateRef/acme/${first.refId}`).set('apikey', key).expect(200);
    expect((await request(dup.body.refId as number)).clientReference).toBeNull();
    expect(await draftIds()).toContain(dup.body.refId);
  });
});
