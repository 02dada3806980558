import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { AdminMessages, RecipientMessages, SignerTexts } from '@esign/contract';
import { AuditService } from '../src/modules/audit/audit.service';
import { JobsService } from '../src/modules/jobs/jobs.service';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { SEAL_JOB, SEAL_MAX_ATTEMPTS } from '../src/modules/requests/seal.queue';
import { inviteAndSignIn } from './support/admin';
import { SIGNERS, uploadOk } from './support/requests';
import { drain, partyRow, requestRow, sendForSigning, signAs } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * A request page's actions (issue 22), open to staff: cancel a request in progress (links stop, the parties who had
 * not finished are told, the webhook and the audit trail say who and why), and queue the seal again after it failed.
 */
describe('request actions: cancel and reseal', () => {
  let t: TestApp;
  let key: string;
  let staff: { id: string; key: string; password: string };
  let otherKey: string;

  const cancel = (k: string, refId: number | string, body: object = {}) =>
    t.http.post(`/api/requests/${refId}/cancel`).set('apikey', k).send(body);
  const reseal = (k: string, refId: number | string) => t.http.post(`/api/requests/${refId}/reseal`).set('apikey', k);
  const events = async (refId: number) =>
    (await t.app.get(AuditService).list(t.db.manager, 'acme', refId)).map((e) => ({
      type: e.type,
      actor: e.actor,
      data: e.data,
    }));

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'bob', 'bob-password');
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
    staff = await inviteAndSignIn(t, await signIn(t, 'alice', 'alice-password'), {
      username: 'sam',
      email: 'sam@example.in',
    });
  });
  afterAll(() => t.close());

  describe('cancel', () => {
    let refId: number;
    let tokens: Record<number, string>;

    beforeAll(async () => {
      // Two signers in parallel and a copy-receiver; the first signs before the request is cancelled.
      ({ refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        { recipients: SIGNERS, otpRequired: false, checkOrder: false },
        [
          { order: 1, pageNo: [1] },
          { order: 2, pageNo: [1] },
        ],
      ));
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      await drain(t);
      await t.http
        .post('/api/webhooks')
        .set('apikey', key)
        .send({ url: 'http://127.0.0.1:9/hook', events: ['request.cancelled'] })
        .expect(201);
    });

    it("shows each party's status, method and times on the request's page", async () => {
      const page = await t.http.get(`/api/requests/${refId}`).set('apikey', staff.key).expect(200);
      const [first, second, copy] = page.body.data;
      expect(first).toMatchObject({
        status: 'completed',
        sign_method: 2,
        invited_at: expect.any(String),
        opened_at: expect.any(String),
        signed_at: expect.any(String),
        rejected_at: null,
      });
      expect(second).toMatchObject({ status: 'in-progress', invited_at: expect.any(String), opened_at: null });
      expect(copy).toMatchObject({ status: 'waiting', invited_at: null, signed_at: null });
    });

    it('refuses another organisation (404, or 403 when it names this one) and changes nothing', async () => {
      await cancel(otherKey, refId).expect(404);
      await cancel(otherKey, refId).set('org-id', 'acme').expect(403);
      await reseal(otherKey, refId).expect(404);
      expect((await requestRow(t, refId)).status).toBe('in-progress');
      expect((await cancel(key, 'not-a-ref')).status).toBe(404);
      expect((await cancel(key, 9_999_999_999)).status).toBe(404);
      const long = await cancel(key, refId, { reason: 'x'.repeat(501) }).expect(400);
      expect(long.body.message).toBe('reason must be at most 500 characters');
      expect((await requestRow(t, refId)).status).toBe('in-progress');
    });

    it('cancels as a staff user: parties not done are cancelled, the pending signer is told, webhook and audit follow', async () => {
      const reason = 'Sent to the wrong person.';
      const res = await cancel(staff.key, refId, { reason }).expect(200);
      expect(res.body.message).toBe(AdminMessages.requestCancelled);
      expect(res.body.request).toMatchObject({ refId, request_status: 'cancelled', status_text: 'Cancelled' });
      expect(
        res.body.request.data.map((p: { status: string; sign_url: string | null }) => [p.status, p.sign_url]),
      ).toEqual([
        ['completed', null],
        ['cancelled', null],
        ['cancelled', null],
      ]);
      expect([(await partyRow(t, refId, 1)).status, (await partyRow(t, refId, 2)).status]).toEqual([
        'completed',
        'cancelled',
      ]);

      // Only the signer whose turn had come and who had not finished hears of it, by e-mail.
      const told = await t.db
        .getRepository(OutboxMessageEntity)
        .find({ where: { refId, kind: 'cancelled' }, order: { id: 'ASC' } });
      expect(told.map((m) => [m.channel, m.to])).toEqual([['email', SIGNERS[1].email]]);
      expect(told[0].subject).toBe('Cancelled: the signature request for "normal.pdf"');
      expect(told[0].text).toContain(`Reason: ${reason}`);

      const [delivery] = (await t.db.query(
        "SELECT body FROM webhook_deliveries WHERE event = 'request.cancelled'",
      )) as {
        body: string;
      }[];
      expect(JSON.parse(delivery.body).data).toMatchObject({ refId, status: 'cancelled', reason });
      const trail = await events(refId);
      expect(trail[trail.length - 1]).toEqual({
        type: 'request.cancelled',
        actor: `user:${staff.id}`,
        data: { reason, told: [2] },
      });
      expect(
        t.app.get(AuditService).verifyChain(await t.app.get(AuditService).list(t.db.manager, 'acme', refId)),
      ).toBeNull();
    });

    it("the pending signer's link tells the specification's cancelled text and allows nothing", async () => {
      const reference = await t.http.get(`/v1/reference/acme/${refId}/2`).set('x-sign-token', tokens[2]).expect(200);
      expect(reference.body.request).toMatchObject({ esignStatus: 'cancelled', uploadUrl: null });
      expect(SignerTexts.statusCancelled).toBe('Your eSign request has been cancelled.');
      const reject = await t.http
        .post(`/v1/esign/reject/acme/${refId}/2`)
        .set('x-sign-token', tokens[2])
        .send({ remark: 'too late' });
      expect([reject.status, reject.body.message]).toEqual([400, RecipientMessages.requestCancelled]);
      expect((await partyRow(t, refId, 2)).status).toBe('cancelled');
    });

    it('refuses a request that is not in progress: cancelled, a draft, completed (409)', async () => {
      const again = await cancel(key, refId).expect(409);
      expect([again.body.error, again.body.message]).toEqual(['CONFLICT', AdminMessages.requestNotCancellable]);
      const draft = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0]] });
      expect((await cancel(key, draft.refId).expect(409)).body.message).toBe(AdminMessages.requestNotCancellable);
      expect((await requestRow(t, draft.refId)).status).toBe('draft');
      const done = await sendForSigning(t, key, 'acme', { recipients: [SIGNERS[0]], otpRequired: false }, [
        { order: 1, pageNo: [1] },
      ]);
      await signAs(t, { orgId: 'acme', refId: done.refId, order: 1, token: done.tokens[1], email: SIGNERS[0].email });
      await drain(t);
      expect((await requestRow(t, done.refId)).status).toBe('completed');
      await cancel(key, done.refId).expect(409);
      expect((await requestRow(t, done.refId)).status).toBe('completed');
    });
  });

  describe('reseal', () => {
    it('refuses a request whose seal did not fail, queues the seal again after it failed, and the request completes', async () => {
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
        [{ order: 1, pageNo: [1] }],
      );
      // Nothing failed yet: nothing to reseal.
      const early = await reseal(staff.key, refId).expect(409);
      expect([early.body.error, early.body.message]).toEqual(['CONFLICT', AdminMessages.requestNotResealable]);

      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      // The stored signature image is out of reach (a storage outage): every attempt fails.
      const image = (await partyRow(t, refId, 1)).signatureKey!;
      const file = join(t.config.dataDir, 'files', image.slice(0, 2), image.slice(2, 4), image);
      renameSync(file, `${file}.away`);
      for (let attempt = 1; attempt <= SEAL_MAX_ATTEMPTS; attempt++) {
        await drain(t);
        t.clock.advance(3600);
      }
      const [job] = await t.app
        .get(JobsService)
        .list({ type: SEAL_JOB, orgId: 'acme' })
        .then((jobs) => jobs.filter((j) => j.payload.refId === refId));
      expect(job.status).toBe('failed');
      expect((await requestRow(t, refId)).sealError).toContain(`gave up after ${SEAL_MAX_ATTEMPTS} attempts`);

      // Even without the error on the request (a run that died with its process records none), the failed job counts.
      await t.db.query('UPDATE requests SET seal_error = NULL WHERE ref_id = ?', [refId]);
      staff.key = await signIn(t, 'sam', staff.password);
      renameSync(`${file}.away`, file);
      const queued = await reseal(staff.key, refId).expect(202);
      expect(queued.body).toMatchObject({
        message: AdminMessages.resealQueued,
        request: { refId, request_status: 'in-progress' },
      });
      const jobs = (await t.app.get(JobsService).list({ type: SEAL_JOB, orgId: 'acme' })).filter(
        (j) => j.payload.refId === refId,
      );
      expect(jobs.map((j) => [j.status, j.dedupeKey])).toEqual([
        ['failed', null],
        ['queued', `seal:${refId}:reseal`],
      ]);
      // Asking twice while it waits queues it once.
      await reseal(key, refId).expect(202);
      expect(
        (await t.app.get(JobsService).list({ type: SEAL_JOB, orgId: 'acme' })).filter((j) => j.payload.refId === refId),
      ).toHaveLength(2);
      const asked = (await events(refId)).filter((e) => e.type === 'request.reseal_requested');
      expect(asked.map((e) => e.actor)).toEqual([`user:${staff.id}`, expect.stringMatching(/^key:/)]);

      await drain(t);
      const done = await requestRow(t, refId);
      expect([done.status, done.sealError]).toEqual(['completed', null]);
      await reseal(key, refId).expect(409);
    });

    it('accepts a request whose seal error is set, while the job still retries', async () => {
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
        [{ order: 1, pageNo: [1] }],
      );
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      const image = (await partyRow(t, refId, 1)).signatureKey!;
      const file = join(t.config.dataDir, 'files', image.slice(0, 2), image.slice(2, 4), image);
      renameSync(file, `${file}.away`);
      await drain(t);
      expect((await requestRow(t, refId)).sealError).toBe('No such document.');
      renameSync(`${file}.away`, file);
      await reseal(key, refId).expect(202);
      await drain(t);
      expect((await requestRow(t, refId)).status).toBe('completed');
    });
  });
});
