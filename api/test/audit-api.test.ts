import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';
import { SIGNERS } from './support/requests';
import { drain, requestRow, sendForSigning, signAs } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

interface Trail {
  refId: number;
  events: { at: string; type: string; actor: string; ip: string | null; hash: string; prevHash?: string }[];
  chain: { intact: boolean; lastHash: string | null };
}

describe('GET /api/requests/:refId/audit', () => {
  let t: TestApp;
  let key: string;
  let session: string;
  let otherKey: string;
  let refId: number;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
    session = await signIn(t, 'alice', 'alice-password');
    const sent = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    refId = sent.refId;
    await signAs(t, { orgId: 'acme', refId, order: 1, token: sent.tokens[1], email: SIGNERS[0].email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
  });
  afterAll(() => t.close());

  it('answers the events in order with their hash chain, intact, to an organisation key and a session key', async () => {
    const res = await t.http.get(`/api/requests/${refId}/audit`).set('apikey', key).expect(200);
    const body = res.body as Trail;
    expect(body.refId).toBe(refId);
    expect(body.events.length).toBeGreaterThanOrEqual(4);
    expect(body.events.map((e) => e.type)).toEqual(expect.arrayContaining(['request.completed']));
    expect(body.events[0].prevHash).toBeUndefined();
    for (let i = 1; i < body.events.length; i++) expect(body.events[i].prevHash).toBe(body.events[i - 1].hash);
    for (const e of body.events) {
      expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(new Date(e.at).toISOString()).toBe(e.at);
      expect(typeof e.actor).toBe('string');
    }
    expect(body.chain).toEqual({ intact: true, lastHash: body.events[body.events.length - 1].hash });

    const bySession = await t.http.get(`/api/requests/${refId}/audit`).set('apikey', session).expect(200);
    expect(bySession.body).toEqual(body);
  });

  it('reports a broken chain when an event was edited in the database', async () => {
    const repo = t.db.getRepository(AuditEventEntity);
    const first = await repo.findOneOrFail({ where: { orgId: 'acme', refId }, order: { id: 'ASC' } });
    const actor = first.actor;
    await repo.update({ id: first.id }, { actor: 'user:someone-else' });
    try {
      const res = await t.http.get(`/api/requests/${refId}/audit`).set('apikey', key).expect(200);
      expect(res.body.chain.intact).toBe(false);
    } finally {
      await repo.update({ id: first.id }, { actor });
    }
    const again = await t.http.get(`/api/requests/${refId}/audit`).set('apikey', key).expect(200);
    expect(again.body.chain.intact).toBe(true);
  });

  it("answers 404 for another organisation's request, an unknown one and a malformed Ref ID; 401 without a key", async () => {
    const other = await t.http.get(`/api/requests/${refId}/audit`).set('apikey', otherKey).expect(404);
    expect(other.body.events).toBeUndefined();
    await t.http
      .get(`/api/requests/${refId + 999}/audit`)
      .set('apikey', key)
      .expect(404);
    await t.http.get('/api/requests/not-a-number/audit').set('apikey', key).expect(404);
    await t.http.get(`/api/requests/${refId}/audit`).expect(401);
  });
});
