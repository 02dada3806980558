import {
  Messages,
  RecipientMessages,
  RequestMessages,
  type RequestListItem,
  type UploadResponse,
} from '@esign/contract';
import { createHash } from 'node:crypto';
import type { FindOptionsWhere } from 'typeorm';
import { join } from 'node:path';
import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';
import { AuditService } from '../src/modules/audit/audit.service';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { containsPattern, LIKE_ESCAPE } from '../src/common/rest-query';
import { RequestCounts } from '../src/modules/requests/request-counts';
import { RequestEntity } from '../src/modules/requests/request.entity';
import { MYSQL_LIST_INDEX, RequestListsService } from '../src/modules/requests/request-lists.service';
import { WebhookDeliveryEntity } from '../src/modules/webhooks/webhook-delivery.entity';
import { readFixture } from './support/fixtures';
import { filesUnder, saveDefault, SIGNERS, tokenOf, upload, uploadOk } from './support/requests';
import { createOrgWithUser, engine, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('the staff side of /v1: check, upload, save, process, lists, resend, duplicate, delete', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const files = () => filesUnder(join(t.config.dataDir, 'files'));
  const count = (entity: typeof RequestEntity | typeof PartyEntity) => t.db.getRepository(entity).count();
  const drain = () => t.app.get(JobsRunner).drain();
  const outbox = (where: FindOptionsWhere<OutboxMessageEntity> = {}) =>
    t.db.getRepository(OutboxMessageEntity).find({ where, order: { id: 'ASC' } });
  const party = (refId: number, order: number) => t.db.getRepository(PartyEntity).findOneByOrFail({ refId, order });
  /** A link of a request that ended tells its status (for the signer page) and nothing else; it changes nothing. */
  const expectLinkOnlyTells = async (token: string, refId: number, status: string, message: string) => {
    const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set('x-sign-token', token).expect(200);
    expect(ref.body.request).toMatchObject({
      esignStatus: status,
      uploadUrl: null,
      name: '',
      email: '',
      phoneNumber: '',
    });
    const reject = await t.http
      .post(`/v1/esign/reject/acme/${refId}/1`)
      .set('x-sign-token', token)
      .send({ remark: 'no' })
      .expect(400);
    expect(reject.body.message).toBe(message);
    expect((await party(refId, 1)).status).toBe(status);
  };
  const request = (refId: number) => t.db.getRepository(RequestEntity).findOneByOrFail({ refId });

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    // An organisation key: these tests move the clock by days, past a session key's idle expiry.
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
    await signIn(t, 'alice', 'alice-password');
  });
  afterAll(() => t.close());

  describe('POST /v1/onboard/checkDocument', () => {
    const check = (bytes: Buffer, filename: string, contentType = 'application/pdf') =>
      t.http.post('/v1/onboard/checkDocument').set('apikey', key).attach('file', bytes, { filename, contentType });

    it('accepts a real PDF with 201 and stores nothing', async () => {
      const before = files();
      const res = await check(readFixture('pdfs', 'us_constitution.pdf'), 'us_constitution.pdf').expect(201);
      expect(res.body).toMatchObject({ code: 201, 'total-pages': 19 });
      expect(files()).toEqual(before);
    });

    it.each([
      [
        'a PNG renamed .pdf',
        () => readFixture('faces', 'coffee.png'),
        'photo.pdf',
        'application/pdf',
        415,
        Messages.invalidPdf,
      ],
      [
        'a name with two dots',
        () => readFixture('pdfs', 'normal.pdf'),
        'normal.final.pdf',
        'application/pdf',
        415,
        Messages.pdfFileNameDots,
      ],
      [
        'an image MIME type',
        () => readFixture('pdfs', 'normal.pdf'),
        'normal.pdf',
        'image/png',
        415,
        Messages.invalidPdf,
      ],
      [
        'a 6 MB file',
        () => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(6 * 1024 * 1024, 32)]),
        'big.pdf',
        'application/pdf',
        413,
        Messages.fileTooLarge,
      ],
      [
        'an encrypted PDF',
        () => readFixture('pdfs', 'encrypted_new.pdf'),
        'encrypted_new.pdf',
        'application/pdf',
        422,
        /password/i,
      ],
      [
        'a PDF with no trailer',
        () => readFixture('pdfs', 'missing_xref_trailer_dict.pdf'),
        'missing.pdf',
        'application/pdf',
        422,
        /damaged/i,
      ],
      [
        'a PDF with invalid objects',
        () => readFixture('pdfs', 'with_invalid_objects.pdf'),
        'invalid.pdf',
        'application/pdf',
        422,
        /damaged/i,
      ],
    ])('refuses %s with a 4xx and its message, storing nothing', async (_what, bytes, name, type, status, message) => {
      const before = files();
      const res = await check(bytes(), name, type);
      expect(res.status).toBe(status);
      if (typeof message === 'string') expect(res.body.message).toBe(message);
      else expect(res.body.message).toMatch(message);
      expect(files()).toEqual(before);
    });

    it('asks for a file when none is sent', async () => {
      const res = await t.http.post('/v1/onboard/checkDocument').set('apikey', key).field('x', '1').expect(400);
      expect(res.body.message).toBe(RequestMessages.fileRequired);
    });
  });

  describe('POST /v1/upload validation: 4xx with the message, nothing stored', () => {
    const seven = Array.from({ length: 7 }, (_, i) => ({ ...SIGNERS[0], email: `p${i}@example.in` }));
    const cases: Array<[string, Parameters<typeof upload>[3], number, string | RegExp]> = [
      ['7 recipients', { recipients: seven }, 400, RequestMessages.tooManyRecipients],
      ['no recipients', { recipients: [] }, 400, RequestMessages.noRecipients],
      ['data that is not JSON', { recipients: '{oops' }, 400, RequestMessages.dataInvalid],
      ['a missing name', { recipients: [{ ...SIGNERS[0], name: ' ' }] }, 400, RequestMessages.nameRequired],
      ['a bad email', { recipients: [{ ...SIGNERS[0], email: 'asha@' }] }, 400, Messages.invalidEmail],
      [
        'a US phone number',
        { recipients: [{ ...SIGNERS[0], phoneNumber: '+1 415 555 0100' }] },
        400,
        RequestMessages.phoneInvalid,
      ],
      [
        'a 3-character phone',
        { recipients: [{ ...SIGNERS[0], phoneNumber: '987' }] },
        400,
        RequestMessages.phoneInvalid,
      ],
      [
        'a signer without signature type',
        { recipients: [{ ...SIGNERS[0], signature_type: '' }] },
        400,
        Messages.selectSignatureType,
      ],
      [
        'an unknown signature type',
        { recipients: [{ ...SIGNERS[0], signature_type: 'Wet ink' }] },
        400,
        Messages.selectSignatureType,
      ],
      [
        'no recipient type',
        { recipients: [{ name: 'A', email: 'a@example.in', phoneNumber: '9876543210', signature_type: 'DSC' }] },
        400,
        RequestMessages.recipientTypeRequired,
      ],
      ['only copy-receivers', { recipients: [SIGNERS[2]] }, 400, RequestMessages.noSigner],
      ['a reminder without duration', { reminder: true }, 400, Messages.selectDuration],
      ['a reminder of 36 hours', { reminder: true, reminderDuration: 36 }, 400, RequestMessages.durationInvalid],
      ['checkOrder that is not a boolean', { checkOrder: 'maybe' }, 400, /checkOrder/],
      [
        'a PNG renamed .pdf',
        { file: readFixture('faces', 'coffee.png'), filename: 'scan.pdf' },
        415,
        Messages.invalidPdf,
      ],
      ['an encrypted PDF', { fixture: 'encrypted_new.pdf' }, 422, /password/i],
      ['a damaged PDF', { fixture: 'missing_xref_trailer_dict.pdf' }, 422, /damaged/i],
      ['a PDF with invalid objects', { fixture: 'with_invalid_objects.pdf' }, 422, /damaged/i],
      [
        'a 6 MB file',
        { file: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(6 * 1024 * 1024, 32)]), filename: 'big.pdf' },
        413,
        Messages.fileTooLarge,
      ],
    ];
    it.each(cases)('%s', async (_what, options, status, message) => {
      const [requests, parties, before] = [await count(RequestEntity), await count(PartyEntity), files()];
      const res = await upload(t, key, 'acme', options);
      expect(res.status).toBe(status);
      if (typeof message === 'string') expect(res.body.message).toContain(message);
      else expect(res.body.message).toMatch(message);
      expect(await count(RequestEntity)).toBe(requests);
      expect(await count(PartyEntity)).toBe(parties);
      expect(files()).toEqual(before);
    });

    it('asks for the file when it is missing', async () => {
      const res = await upload(t, key, 'acme', { file: null as unknown as Buffer });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(RequestMessages.fileRequired);
    });

    it('creates nothing when a write fails half-way (one transaction)', async () => {
      const [requests, parties] = [await count(RequestEntity), await count(PartyEntity)];
      const spy = jest.spyOn(AuditService.prototype, 'record').mockRejectedValueOnce(new Error('disk full'));
      const res = await upload(t, key, 'acme');
      spy.mockRestore();
      expect(res.status).toBe(500);
      expect(await count(RequestEntity)).toBe(requests);
      expect(await count(PartyEntity)).toBe(parties);
    });
  });

  describe('a sequential request from upload to invitation', () => {
    let up: UploadResponse;

    it('uploads a draft with parties SAVED and answers requests, file-url, pdfheight, total-pages', async () => {
      up = await uploadOk(t, key, 'acme', { checkOrder: true, reminder: true, reminderDuration: 12 });
      expect(up.code).toBe(200);
      expect(up['total-pages']).toBe(2);
      expect(up.pdfheight).toBe(792);
      expect(up.requests).toHaveLength(3);
      expect(up.requests[0]).toMatchObject({
        refId: up.refId,
        order: 1,
        name: 'Asha Rao',
        email: 'asha@example.in',
        phoneNumber: '+919876543210',
        observer: false,
        signature_type: 'e-Signature',
        rectangle: '0,790,150,840',
        apply_all: false,
      });
      expect(up.requests[2]).toMatchObject({ observer: true, signature_type: null });
      expect(String(up.refId)).toMatch(/^\d{10}$/);
      // The file link works without the apikey (it opens in a new tab) and gives back the very bytes uploaded.
      const url = new URL(up['file-url']);
      const file = await t.http
        .get(url.pathname + url.search)
        .set('Accept-Encoding', 'gzip')
        .buffer(true)
        .expect(200)
        .expect('Content-Type', 'application/pdf');
      expect(Buffer.compare(file.body as Buffer, readFixture('pdfs', 'normal.pdf'))).toBe(0);
      // PDFs are compressed already: sent as they are.
      expect(file.headers['content-encoding']).toBeUndefined();
      // Readable by the viewer from another origin (the link is the permission; no credentials are involved).
      expect(file.headers['access-control-allow-origin']).toBe('*');
      expect(file.headers['access-control-allow-credentials']).toBeUndefined();
      await t.http.get(url.pathname + url.search.replace(/sig=[^&]+/, 'sig=forged')).expect(403);
    });

    it('lists it nowhere before its placement is saved (no stray draft from PROCEED)', async () => {
      const drafts = await t.http.get('/v1/drafts/acme').set('apikey', key).expect(200);
      expect(drafts.body.data.some((d: { refId: number }) => d.refId === up.refId)).toBe(false);
      await t.http.get(`/api/drafts/${up.refId}`).set('apikey', key).expect(404);
      const all = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
      expect(all.body.data.some((r: RequestListItem) => r.refId === up.refId)).toBe(false);
      expect((await request(up.refId)).listedAt).toBeNull();
    });

    it("gives a draft's parties for editing", async () => {
      const res = await t.http.get(`/v1/reference/acme/${up.refId}`).set('apikey', key).expect(200);
      expect(res.body.data).toHaveLength(3);
      expect(res.body.data[1]).toMatchObject({
        refId: up.refId,
        order: 2,
        name: 'Vikram Shah',
        filename: 'normal.pdf',
        reminder: true,
        reminder_duration: 12,
        checkOrder: true,
        otpRequired: true,
        signature_type: 'Aadhaar',
      });
    });

    it('saves placements on the real pages', async () => {
      const res = await t.http
        .post('/v1/save')
        .set('apikey', key)
        .send({
          orgId: 'acme',
          data: [
            {
              refId: up.refId,
              order: 1,
              pageNo: [2],
              apply_all: false,
              rectangle: '0,0,150,50',
              drag_coord: { x: 0, y: 0 },
            },
            { refId: up.refId, order: 2, pageNo: [], apply_all: true, rectangle: '0,790,150,840' },
          ],
        })
        .expect(200);
      expect(res.body.message).toBe('success');
      const p1 = await party(up.refId, 1);
      // Letter (612 x 792): the page is shown 840 points tall, so 150 x 50 there is 141.43 x 47.14 on the page.
      const s = 792 / 840;
      expect(p1.boxes).toHaveLength(1);
      expect(p1.boxes?.[0].pages).toBe('2');
      expect(p1.boxes?.[0].x).toBeCloseTo(0, 3);
      expect(p1.boxes?.[0].y).toBeCloseTo(792 - 50 * s, 2);
      expect(p1.boxes?.[0].width).toBeCloseTo(150 * s, 2);
      expect(p1.dragCoord).toEqual({ x: 0, y: 0 });
      const p2 = await party(up.refId, 2);
      expect(p2.applyAll).toBe(true);
      expect(p2.boxes?.[0]).toMatchObject({ pages: '1-2' });
      expect(p2.boxes?.[0].y).toBeCloseTo(0, 2);

      // Saved: now a draft listed with SAVED parties, by the time of the save, and not among the requests.
      const drafts = await t.http.get('/v1/drafts/acme').set('apikey', key).expect(200);
      const draft = drafts.body.data.find((d: { refId: number }) => d.refId === up.refId);
      expect(draft).toMatchObject({ filename: 'normal.pdf', timestamp: t.clock.now().toISOString() });
      expect(draft.data.map((p: { status: string }) => p.status)).toEqual(['SAVED', 'SAVED', 'SAVED']);
      const all = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
      expect(all.body.data.some((r: RequestListItem) => r.refId === up.refId)).toBe(false);
    });

    it('refuses a page that does not exist and bad rectangle text', async () => {
      for (const entry of [
        { refId: up.refId, order: 1, pageNo: [3], rectangle: '0,0,150,50' },
        { refId: up.refId, order: 1, pageNo: [1], rectangle: 'left,top' },
      ]) {
        const res = await t.http
          .post('/v1/save')
          .set('apikey', key)
          .send({ orgId: 'acme', data: [entry] });
        expect(res.status).toBe(400);
      }
      const res = await t.http
        .post('/v1/save')
        .set('apikey', key)
        .send({ orgId: 'acme', data: [{ order: 1 }] });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(RequestMessages.saveDataInvalid);
    });

    it('processes: invites the first signer only, by email and SMS, and answers success', async () => {
      const res = await t.http
        .post('/v1/process')
        .set('apikey', key)
        .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
        .expect(200);
      expect(res.body.message).toBe('success');
      const req = await request(up.refId);
      expect(req.status).toBe('in-progress');
      expect((await party(up.refId, 1)).status).toBe('in-progress');
      expect((await party(up.refId, 2)).status).toBe('waiting');
      expect((await party(up.refId, 3)).status).toBe('waiting');

      const all = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
      const item = all.body.data.find((r: RequestListItem) => r.refId === up.refId) as RequestListItem;
      expect(item).toMatchObject({ filename: 'normal.pdf', status: 0, 'max-status': 2, request_status: 'in-progress' });
      const [p1, p2] = item.data;
      expect(p1).toMatchObject({ status: 'in-progress', orgId: 'acme', order: 1, observer: false });
      expect(p1.sign_url).toMatch(new RegExp(`/esign/acme/${up.refId}/1\\?token=[A-Za-z0-9_-]{43}$`));
      expect(p2.sign_url).toBeNull();
      expect(p1.downloadUrl).toBeUndefined();
      // The link's token is stored only as its hash.
      expect((await party(up.refId, 1)).tokenHash).toBe(sha256(tokenOf(p1.sign_url as string)));

      const messages = await outbox({ refId: up.refId });
      expect(messages.map((m) => [m.channel, m.kind, m.to])).toEqual([
        ['email', 'invitation', 'asha@example.in'],
        ['sms', 'invitation', '+919876543210'],
      ]);
      expect(messages[0].text).toContain(p1.sign_url);
      expect(messages[0].html).toContain(p1.sign_url?.replace(/&/g, '&amp;'));

      const drafts = await t.http.get('/v1/drafts/acme').set('apikey', key).expect(200);
      expect(drafts.body.data.some((d: { refId: number }) => d.refId === up.refId)).toBe(false);
    });

    it('processing again (a double click) sends nothing more', async () => {
      const before = (await outbox({ refId: up.refId })).length;
      await t.http
        .post('/v1/process')
        .set('apikey', key)
        .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
        .expect(200);
      expect((await outbox({ refId: up.refId })).length).toBe(before);
      const res = await t.http
        .post('/v1/save')
        .set('apikey', key)
        .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1, pageNo: [1] }] });
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(RequestMessages.notADraft);
    });

    it('resends an invite only to a party in progress, with a new link that kills the old one', async () => {
      const before = (await party(up.refId, 1)).tokenHash;
      let res = await t.http.get(`/v1/resend_invite/acme/${up.refId}/1`).set('apikey', key);
      expect(res.status).toBe(429);
      t.clock.advance(61);
      res = await t.http.get(`/v1/resend_invite/acme/${up.refId}/1`).set('apikey', key).expect(200);
      expect(res.body.message).toBe(Messages.inviteSent);
      const after = await party(up.refId, 1);
      expect(after.tokenHash).not.toBe(before);
      const mails = await outbox({ refId: up.refId, channel: 'email', kind: 'invitation' });
      expect(mails).toHaveLength(2);
      expect(mails[1].text).not.toBe(mails[0].text);
      res = await t.http.get(`/v1/resend_invite/acme/${up.refId}/2`).set('apikey', key);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(RequestMessages.notInProgress);
      res = await t.http.get(`/v1/resend_invite/acme/${up.refId}/9`).set('apikey', key);
      expect(res.status).toBe(404);
    });

    it('reminds pending parties every 12 hours with a controllable clock', async () => {
      await drain();
      const reminders = () => outbox({ refId: up.refId, channel: 'email', kind: 'reminder' });
      expect(await reminders()).toHaveLength(0);
      t.clock.advance(11 * 3600);
      await drain();
      expect(await reminders()).toHaveLength(0);
      t.clock.advance(3600 + 1);
      await drain();
      expect((await reminders()).map((m) => m.to)).toEqual(['asha@example.in']);
      t.clock.advance(12 * 3600 + 1);
      await drain();
      expect(await reminders()).toHaveLength(2);
      expect((await party(up.refId, 1)).remindedAt).not.toBeNull();
    });

    it('does not remind a party whose signature is submitted and waits for its seal', async () => {
      const reminders = () => outbox({ refId: up.refId, channel: 'email', kind: 'reminder' });
      const asha = await party(up.refId, 1);
      const sent = (await reminders()).length;
      await t.db
        .getRepository(PartyEntity)
        .update({ id: asha.id }, { status: 'signing', signatureSubmittedAt: t.clock.now() });
      try {
        t.clock.advance(12 * 3600 + 1);
        await drain();
        expect(await reminders()).toHaveLength(sent);
      } finally {
        await t.db
          .getRepository(PartyEntity)
          .update({ id: asha.id }, { status: asha.status, signatureSubmittedAt: asha.signatureSubmittedAt });
      }
    });

    it('keeps an audit trail whose hash chain verifies', async () => {
      const events = await t.db
        .getRepository(AuditEventEntity)
        .find({ where: { refId: up.refId }, order: { id: 'ASC' } });
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining([
          'request.created',
          'request.saved',
          'request.submitted',
          'party.invited',
          'party.reinvited',
          'party.reminded',
        ]),
      );
      const audit = t.app.get(AuditService);
      expect(audit.verifyChain(events)).toBeNull();
      events[1].data = { tampered: true };
      expect(audit.verifyChain(events)).toBe(events[1].id);
    });

    it('duplicates it into a new draft and deletes (cancels) the original', async () => {
      const dup = await t.http.get(`/v1/duplicateRef/acme/${up.refId}`).set('apikey', key).expect(200);
      const copy = dup.body.refId as number;
      expect(copy).not.toBe(up.refId);
      const copied = await t.http.get(`/v1/reference/acme/${copy}`).set('apikey', key).expect(200);
      expect(copied.body.data.map((p: { name: string }) => p.name)).toEqual(SIGNERS.map((s) => s.name));
      expect((await party(copy, 1)).boxes).toEqual((await party(up.refId, 1)).boxes);
      expect((await party(copy, 1)).status).toBe('saved');

      const live = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
      const signUrl = live.body.data.find((r: RequestListItem) => r.refId === up.refId).data[0].sign_url as string;
      await t.http.get(`/v1/deleteRef/acme/${up.refId}`).set('apikey', key).expect(200);
      const req = await request(up.refId);
      expect(req.status).toBe('cancelled');
      await expectLinkOnlyTells(tokenOf(signUrl), up.refId, 'cancelled', RecipientMessages.requestCancelled);
      const all = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
      expect(all.body.data.some((r: RequestListItem) => r.refId === up.refId)).toBe(false);
      await t.http.get(`/v1/deleteRef/acme/${up.refId}`).set('apikey', key).expect(404);

      // Reminders stop once the request is cancelled.
      const before = (await outbox({ refId: up.refId, kind: 'reminder' })).length;
      t.clock.advance(48 * 3600);
      await drain();
      expect((await outbox({ refId: up.refId, kind: 'reminder' })).length).toBe(before);

      // The copy is a draft that can be edited and submitted through process.
      await t.http
        .post('/v1/process')
        .set('apikey', key)
        .send({ orgId: 'acme', data: [{ refId: copy, order: 1, pageNo: [1], rectangle: '100,100,250,150' }] })
        .expect(200);
      expect((await request(copy)).status).toBe('in-progress');
      expect((await party(copy, 1)).rectangle).toBe('100,100,250,150');
    });
  });

  it('edits a draft through upload with its refId: same Ref ID, recipients replaced, placement kept unless the file changes', async () => {
    const up = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0], SIGNERS[1]] });
    await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1, pageNo: [2], rectangle: '100,100,250,150' }] })
      .expect(200);
    const boxes = (await party(up.refId, 1)).boxes;
    const renamed = { ...SIGNERS[0], name: 'Asha R. Rao' };
    // The answer describes each party as stored, apply_all included, whatever order the ids come in.
    const four = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0], SIGNERS[1], SIGNERS[0], SIGNERS[1]] });
    await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [2, 4].map((order) => ({ refId: four.refId, order, apply_all: true })) })
      .expect(200);
    const again = await uploadOk(t, key, 'acme', {
      recipients: [SIGNERS[0], SIGNERS[1], SIGNERS[0], SIGNERS[1]],
      file: null as unknown as Buffer,
      fields: { refId: String(four.refId) },
    });
    expect(again.requests.map((r) => [r.order, r.apply_all])).toEqual([
      [1, false],
      [2, true],
      [3, false],
      [4, true],
    ]);
    const edited = await uploadOk(t, key, 'acme', {
      recipients: [renamed, SIGNERS[2]],
      file: null as unknown as Buffer,
      fields: { refId: String(up.refId) },
    });
    expect(edited.refId).toBe(up.refId);
    expect(edited.requests.map((r) => [r.name, r.observer])).toEqual([
      ['Asha R. Rao', false],
      [SIGNERS[2].name, true],
    ]);
    expect((await party(up.refId, 1)).boxes).toEqual(boxes);
    expect((await request(up.refId)).signersTotal).toBe(1);

    const newFile = await uploadOk(t, key, 'acme', {
      recipients: [renamed],
      fixture: 'us_constitution.pdf',
      fields: { refId: String(up.refId) },
    });
    expect([newFile.refId, newFile['total-pages']]).toEqual([up.refId, 19]);
    expect((await party(up.refId, 1)).boxes).toBeNull();
    expect((await request(up.refId)).filename).toBe('us_constitution.pdf');
    const events = await t.db
      .getRepository(AuditEventEntity)
      .find({ where: { refId: up.refId, type: 'request.edited' } });
    expect(events).toHaveLength(2);

    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
      .expect(200);
    const late = await upload(t, key, 'acme', {
      recipients: [renamed],
      file: null as unknown as Buffer,
      fields: { refId: String(up.refId) },
    });
    expect([late.status, late.body.message]).toEqual([409, RequestMessages.notADraft]);
    const other = await upload(t, otherKey, 'globex', { recipients: [renamed], fields: { refId: String(up.refId) } });
    expect(other.status).toBe(404);
  });

  it('invites every signer at once in a parallel request (not copy-receivers)', async () => {
    const up = await uploadOk(t, key, 'acme', { checkOrder: false });
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
      .expect(200);
    expect((await party(up.refId, 1)).status).toBe('in-progress');
    expect((await party(up.refId, 2)).status).toBe('in-progress');
    expect((await party(up.refId, 3)).status).toBe('waiting');
    const mails = await outbox({ refId: up.refId, channel: 'email' });
    expect(mails.map((m) => m.to).sort()).toEqual(['asha@example.in', 'vikram@example.in']);
  });

  it('expires a request after 30 days and tells the parties still pending', async () => {
    const up = await uploadOk(t, key, 'acme');
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
      .expect(200);
    const listed = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
    const token = tokenOf(listed.body.data.find((r: RequestListItem) => r.refId === up.refId).data[0].sign_url);
    t.clock.advance(29 * 86400);
    await drain();
    expect((await request(up.refId)).status).toBe('in-progress');
    t.clock.advance(86400 + 1);
    await drain();
    expect((await request(up.refId)).status).toBe('expired');
    expect((await party(up.refId, 1)).status).toBe('expired');
    await expectLinkOnlyTells(token, up.refId, 'expired', RecipientMessages.requestExpired);
    const expired = await outbox({ refId: up.refId, kind: 'expired', channel: 'email' });
    expect(expired.map((m) => m.to).sort()).toEqual(['asha@example.in', 'vikram@example.in']);
  });

  it("never shows or changes another organisation's requests", async () => {
    const up = await uploadOk(t, key, 'acme');
    await t.http.get('/v1/request_all/acme').set('apikey', otherKey).expect(403);
    await t.http.get(`/v1/reference/globex/${up.refId}`).set('apikey', otherKey).expect(404);
    await t.http.get(`/v1/deleteRef/globex/${up.refId}`).set('apikey', otherKey).expect(404);
    await t.http.get(`/v1/duplicateRef/globex/${up.refId}`).set('apikey', otherKey).expect(404);
    await t.http.get(`/api/drafts/${up.refId}`).set('apikey', otherKey).expect(404);
    const res = await t.http
      .post('/v1/save')
      .set('apikey', otherKey)
      .send({ orgId: 'globex', data: [{ refId: up.refId, order: 1, pageNo: [1] }] });
    expect(res.status).toBe(404);
    await t.http
      .post('/v1/process')
      .set('apikey', otherKey)
      .send({ orgId: 'globex', data: [{ refId: up.refId, order: 1 }] })
      .expect(404);
    expect((await request(up.refId)).status).toBe('draft');
    const list = await t.http.get('/api/drafts').set('apikey', otherKey).expect(200);
    expect(list.body).toEqual([]);
    // Upload with another organisation's orgId is refused before anything is read.
    await upload(t, key, 'acme', { orgId: 'globex' }).expect(403);
  });

  it('records a webhook delivery for party and request events', async () => {
    await t.http
      .post('/api/webhooks')
      .set('apikey', key)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['*'] })
      .expect(201);
    const up = await uploadOk(t, key, 'acme');
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
      .expect(200);
    const deliveries = await t.db.getRepository(WebhookDeliveryEntity).find({ where: { orgId: 'acme' } });
    const events = deliveries.map((d) => JSON.parse(d.body)).filter((b) => b.data?.refId === up.refId);
    expect(events.map((e) => e.event).sort()).toEqual(['party.invited', 'party.invited', 'request.submitted']);
  });
});

describe('the console resources under /api (ra-data-simple-rest)', () => {
  let t: TestApp;
  let key: string;
  const names = ['Lease Agreement.pdf', 'lease-renewal.pdf', 'NDA.pdf', 'Offer letter.pdf', 'Invoice 2026.pdf'];
  const refIds: number[] = [];

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await signIn(t, 'alice', 'alice-password');
    for (let i = 0; i < 12; i++) {
      t.clock.advance(60);
      const up = await uploadOk(t, key, 'acme', { filename: names[i % names.length] });
      refIds.push(up.refId);
      if (i % 3 !== 0)
        await t.http
          .post('/v1/process')
          .set('apikey', key)
          .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
          .expect(200);
      else await saveDefault(t, key, 'acme', up);
    }
  });
  afterAll(() => t.close());

  const get = (path: string, query: Record<string, unknown>) =>
    t.http
      .get(path)
      .set('apikey', key)
      .query(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, JSON.stringify(v)])));

  it('pages newest first with Content-Range', async () => {
    const sent = refIds.filter((_, i) => i % 3 !== 0).reverse();
    const page1 = await get('/api/requests', { sort: ['timestamp', 'DESC'], range: [0, 4] }).expect(200);
    expect(page1.headers['content-range']).toBe('requests 0-4/8');
    expect(page1.body.map((r: RequestListItem) => r.refId)).toEqual(sent.slice(0, 5));
    expect(page1.body[0]).toMatchObject({ id: sent[0], 'max-status': 2, status: 0 });
    const page2 = await get('/api/requests', { sort: ['timestamp', 'DESC'], range: [5, 9] }).expect(200);
    expect(page2.headers['content-range']).toBe('requests 5-7/8');
    expect(page2.body.map((r: RequestListItem) => r.refId)).toEqual(sent.slice(5));
    const asc = await get('/api/requests', { sort: ['timestamp', 'ASC'], range: [0, 0] }).expect(200);
    expect(asc.body[0].refId).toBe(sent[sent.length - 1]);
    const drafts = await get('/api/drafts', { range: [0, 9] }).expect(200);
    expect(drafts.headers['content-range']).toBe('drafts 0-3/4');
    expect(drafts.body[0].data[0].status).toBe('SAVED');
  });

  it('searches: digits match a Ref ID exactly, text matches file names case-insensitively', async () => {
    const target = refIds[1];
    const exact = await get('/api/requests', { filter: { q: String(target) }, range: [0, 9] }).expect(200);
    expect(exact.body.map((r: RequestListItem) => r.refId)).toEqual([target]);
    const prefix = await get('/api/requests', { filter: { q: String(target).slice(0, 5) }, range: [0, 9] }).expect(200);
    expect(prefix.body).toEqual([]);
    const lease = await get('/api/requests', { filter: { q: 'LEASE' }, range: [0, 9] }).expect(200);
    expect(lease.body.length).toBeGreaterThan(0);
    expect(lease.body.every((r: RequestListItem) => /lease/i.test(r.filename))).toBe(true);
    const literal = await get('/api/requests', { filter: { q: '100%' }, range: [0, 9] }).expect(200);
    expect(literal.body).toEqual([]);
    const none = await get('/api/drafts', { filter: { q: 'zzz' }, range: [0, 9] }).expect(200);
    expect(none.headers['content-range']).toBe('drafts 0-0/0');
    // Mid-name, any case: 'lease-renewal.pdf' (4 sent of 12, round-robin over 5 names; see beforeAll) and its total.
    const mid = await get('/api/requests', { filter: { q: 'SE-rENe' }, range: [0, 0] }).expect(200);
    const sentNames = refIds.map((_, i) => names[i % names.length]).filter((_, i) => i % 3 !== 0);
    const expected = sentNames.filter((name) => name === 'lease-renewal.pdf').length;
    expect(expected).toBeGreaterThan(1);
    expect(mid.headers['content-range']).toBe(`requests 0-0/${expected}`);
    expect(mid.body.map((r: RequestListItem) => r.filename)).toEqual(['lease-renewal.pdf']);
    const eases = await get('/api/requests', { filter: { q: 'EASE' }, range: [0, 9] }).expect(200);
    const withEase = sentNames.filter((name) => /ease/i.test(name)).length;
    expect(eases.headers['content-range']).toBe(`requests 0-${withEase - 1}/${withEase}`);
  });

  it('refuses malformed sort, range and filter with 400', async () => {
    for (const query of [
      { sort: ['password', 'ASC'] },
      { range: [5, 1] },
      { range: 'x' },
      { filter: [1] },
      { sort: ['timestamp', 'SIDEWAYS'] },
    ]) {
      const res = await get('/api/requests', query);
      expect(res.status).toBe(400);
    }
    await t.http.get('/api/requests').query({ range: '[0' }).set('apikey', key).expect(400);
  });

  it('gets and deletes one', async () => {
    const draft = refIds[0];
    await t.http.get(`/api/drafts/${draft}`).set('apikey', key).expect(200);
    await t.http.get(`/api/requests/${draft}`).set('apikey', key).expect(404);
    await t.http.delete(`/api/drafts/${draft}`).set('apikey', key).expect(200);
    await t.http.get(`/api/drafts/${draft}`).set('apikey', key).expect(404);
  });

  it('keeps the totals exact through every write, SQL included, and rebuilds lost counts at start', async () => {
    const total = async (path: string) =>
      Number(String((await get(path, { range: [0, 0] }).expect(200)).headers['content-range']).split('/')[1]);
    const truth = async (draft: boolean) =>
      Number(
        (
          (await t.db.query(
            'SELECT COUNT(*) AS n FROM requests WHERE org_id = ? AND is_draft = ? AND deleted_at IS NULL AND listed_at IS NOT NULL',
            ['acme', draft ? 1 : 0],
          )) as { n: number }[]
        )[0].n,
      );
    /** A search's total (counted on request_names) against the matches on `requests` themselves. */
    const searched = async (path: string, q: string) =>
      Number(
        String((await get(path, { range: [0, 0], filter: { q } }).expect(200)).headers['content-range']).split('/')[1],
      );
    const matches = async (draft: boolean, q: string) =>
      Number(
        (
          (await t.db.query(
            `SELECT COUNT(*) AS n FROM requests WHERE org_id = ? AND is_draft = ? AND deleted_at IS NULL AND listed_at IS NOT NULL AND filename LIKE ? ${LIKE_ESCAPE}`,
            ['acme', draft ? 1 : 0, containsPattern(q)],
          )) as { n: number }[]
        )[0].n,
      );
    const same = async () => {
      expect(await total('/api/requests')).toBe(await truth(false));
      expect(await total('/api/drafts')).toBe(await truth(true));
      for (const q of ['lease', 'A', 'Renamed']) {
        expect(await searched('/api/requests', q)).toBe(await matches(false, q));
        expect(await searched('/api/drafts', q)).toBe(await matches(true, q));
      }
    };
    await same();
    const [a, b, c] = await t.db.getRepository(RequestEntity).find({
      where: { orgId: 'acme', isDraft: false },
      order: { refId: 'ASC' },
    });
    // Writes no service makes: deleted, turned into a draft, moved to another organisation, and back.
    await t.db.query('UPDATE requests SET deleted_at = ? WHERE ref_id = ?', ['2026-01-01 00:00:00', a.refId]);
    await t.db.query('UPDATE requests SET is_draft = ? WHERE ref_id = ?', [1, b.refId]);
    await same();
    await createOrgWithUser(t, 'other', 'olga', 'olga-password');
    await t.db.query('UPDATE requests SET org_id = ? WHERE ref_id = ?', ['other', c.refId]);
    await same();
    await t.db.query('UPDATE requests SET org_id = ?, is_draft = ?, deleted_at = NULL WHERE ref_id IN (?, ?, ?)', [
      'acme',
      0,
      a.refId,
      b.refId,
      c.refId,
    ]);
    await same();
    // Unlisted (an unsaved draft's state) and listed again by SQL.
    await t.db.query('UPDATE requests SET listed_at = NULL WHERE ref_id = ?', [a.refId]);
    await same();
    await t.db.query('UPDATE requests SET listed_at = created_at WHERE ref_id = ?', [a.refId]);
    await same();
    // Renamed by SQL, then only its case changed: the search counts the new name.
    await t.db.query('UPDATE requests SET filename = ? WHERE ref_id = ?', ['Renamed contract.pdf', a.refId]);
    await same();
    expect(await searched('/api/requests', 'renamed')).toBe(1);
    await t.db.query('UPDATE requests SET filename = ? WHERE ref_id = ?', ['RENAMED contract.pdf', a.refId]);
    await same();
    // A new upload (not listed), its save (listed), its discard refused (kept) and its deletion through the API; an
    // unsaved upload discarded.
    const up = await uploadOk(t, key, 'acme', { filename: 'NDA.pdf' });
    await same();
    await saveDefault(t, key, 'acme', up);
    await same();
    expect((await t.http.delete(`/api/drafts/${up.refId}/unsaved`).set('apikey', key).expect(200)).body).toEqual({
      id: up.refId,
      kept: true,
    });
    await t.http.delete(`/api/drafts/${up.refId}`).set('apikey', key).expect(200);
    await same();
    const unsaved = await uploadOk(t, key, 'acme', { filename: 'NDA.pdf' });
    await t.http.delete(`/api/drafts/${unsaved.refId}/unsaved`).set('apikey', key).expect(200);
    await same();

    if (engine === 'sqlite') {
      // A migration that rebuilds `requests` drops its triggers: the next start finds one missing and recounts.
      await t.db.query('DROP TRIGGER request_counts_listed_enter');
      await t.db.query('UPDATE request_counts SET n = 999');
      await t.db.query('DELETE FROM request_names');
      await t.app.get(RequestCounts).onModuleInit();
      await same();
      await t.db.query('UPDATE requests SET deleted_at = NULL WHERE ref_id = ?', [up.refId]);
      await same();
      // A database from before listed_at has the older triggers: the start drops them rather than count twice.
      await t.db.query(`CREATE TRIGGER request_counts_enter AFTER UPDATE OF deleted_at ON requests
        WHEN NEW.deleted_at IS NULL BEGIN UPDATE request_counts SET n = n + 1000; END`);
      await t.app.get(RequestCounts).onModuleInit();
      const triggers = (await t.db.query(
        // The list pages' version triggers (list-page-cache.ts) are not the counts'.
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'requests' AND name NOT LIKE 'list!_versions!_%' ESCAPE '!' ORDER BY name",
      )) as { name: string }[];
      expect(triggers.map((row) => row.name)).toEqual([
        'request_counts_listed_delete',
        'request_counts_listed_enter',
        'request_counts_listed_insert',
        'request_counts_listed_leave',
        'request_names_delete_v2',
        'request_names_insert_v2',
        'request_names_update_v2',
      ]);
      await t.db.query('UPDATE requests SET deleted_at = ? WHERE ref_id = ?', ['2026-01-01 00:00:00', up.refId]);
      await t.db.query('UPDATE requests SET deleted_at = NULL WHERE ref_id = ?', [up.refId]);
      await same();
    } else {
      // MySQL/MariaDB: the totals are read from the tables the migration's triggers keep, not counted on `requests`.
      const listed = await truth(false);
      await t.db.query("UPDATE request_counts SET n = 999 WHERE org_id = 'acme' AND is_draft = 0");
      expect(await total('/api/requests')).toBe(999);
      await t.db.query("UPDATE request_counts SET n = ? WHERE org_id = 'acme' AND is_draft = 0", [listed]);
      const [named] = (await t.db.query(
        "SELECT ref_id, name FROM request_names WHERE org_id = 'acme' AND is_draft = 0 AND name LIKE '%lease%'",
      )) as { ref_id: number; name: string }[];
      await t.db.query('DELETE FROM request_names WHERE ref_id = ?', [named.ref_id]);
      expect(await searched('/api/requests', 'lease')).toBe((await matches(false, 'lease')) - 1);
      await t.db.query("INSERT INTO request_names VALUES ('acme', 0, ?, ?)", [named.ref_id, named.name]);
      await same();
    }
  });

  it('answers a file-name search with the rows LIKE finds, in order, whether the page walks the list or the name index', async () => {
    // 600 more listed requests by SQL (the triggers index them), named so that some text matches few of them and some
    // most: the few are fetched through the trigram index (SQLite), the many by walking the list index.
    const [model] = (await t.db.query(
      'SELECT ref_id FROM requests WHERE org_id = ? AND is_draft = 0 AND deleted_at IS NULL AND listed_at IS NOT NULL',
      ['acme'],
    )) as { ref_id: number }[];
    await t.db.transaction(async (m) => {
      await m.query('DROP TABLE IF EXISTS bulk_copy');
      await m.query(
        `CREATE ${engine === 'sqlite' ? 'TEMP' : 'TEMPORARY'} TABLE bulk_copy AS SELECT * FROM requests WHERE ref_id = ?`,
        [model.ref_id],
      );
      for (let i = 0; i < 600; i++) {
        const name = i % 97 === 5 ? `Rare "Quoted" ünïcode Deed ${i}.PDF` : `Bulk Mandate ${i}.pdf`;
        await m.query('UPDATE bulk_copy SET ref_id = ?, filename = ?, listed_at = ?', [
          8_000_000_000 + i,
          name,
          `2026-01-01 00:0${Math.floor((i % 300) / 60)}:${String(i % 60).padStart(2, '0')}`,
        ]);
        await m.query('INSERT INTO requests SELECT * FROM bulk_copy');
      }
      await m.query('DROP TABLE bulk_copy');
    });
    const counts = t.app.get(RequestCounts);
    // Which way each page was read: fewMatch is asked only where the names' index answered (SQLite, 3+ characters).
    const ways = jest.spyOn(
      t.app.get(RequestListsService) as unknown as { fewMatch: (...args: unknown[]) => Promise<boolean> },
      'fewMatch',
    );
    try {
      const columns = { timestamp: 'listed_at', filename: 'filename', refId: 'ref_id' } as const;
      for (const q of ['ünï', 'RARE "quoted', 'deed 5', 'mandate', 'Mandate 1', 'pdf', 'ÜNÏ', 'ma', 'zzzz']) {
        for (const [field, column] of Object.entries(columns))
          for (const order of ['ASC', 'DESC'])
            for (const range of [
              [0, 9],
              [3, 7],
              [200, 209],
            ]) {
              const res = await get('/api/requests', { filter: { q }, sort: [field, order], range }).expect(200);
              const truth = (await t.db.query(
                `SELECT ref_id FROM requests WHERE org_id = 'acme' AND is_draft = 0 AND deleted_at IS NULL
                   AND listed_at IS NOT NULL AND filename LIKE ? ${LIKE_ESCAPE}
                 ORDER BY ${column} ${order}, ref_id ${order}`,
                [containsPattern(q)],
              )) as { ref_id: number }[];
              const ids = truth.map((row) => Number(row.ref_id));
              const label = `${q} by ${field} ${order} ${range.join('-')}`;
              expect([label, res.headers['content-range'].split('/')[1]]).toEqual([label, String(ids.length)]);
              expect([label, res.body.map((r: RequestListItem) => r.refId)]).toEqual([
                label,
                ids.slice(range[0], range[1] + 1),
              ]);
            }
      }
      // On SQLite the rare names' pages (7 or 2 of about 600) came by their Ref IDs from the index, the frequent ones
      // ('mandate', 'Mandate 1', 'pdf') by walking the list index; MySQL/MariaDB has no index and always walks.
      const answers = await Promise.all(ways.mock.results.map((r) => r.value as Promise<boolean>));
      const calls = ways.mock.calls.length;
      const byIndex = answers.filter(Boolean).length;
      expect([calls, byIndex]).toEqual(engine === 'sqlite' ? [7 * 18, 4 * 18] : [0, 0]);
      if (engine === 'sqlite') {
        const rare = (await counts.nameIndex('acme', false, 'rare "quoted')) as unknown[];
        expect(rare).toHaveLength(4);
        // The index answers alone: the count reads request_names_fts and nothing else.
        const plan = (await t.db.query(
          'EXPLAIN QUERY PLAN SELECT COUNT(*) AS n FROM request_names_fts WHERE request_names_fts MATCH ? AND rowid BETWEEN ? AND ?',
          rare.slice(1),
        )) as { detail: string }[];
        expect(plan.map((row) => row.detail).join(' | ')).toMatch(/^SCAN request_names_fts VIRTUAL TABLE INDEX \d+:M/);
        // Two-character text has no trigram: counted on request_names instead.
        expect(await counts.nameIndex('acme', false, 'ma')).toBeNull();
        // An index lost (or a database from before it): the next start makes it again from the names.
        await t.db.query('DROP TABLE request_names_fts');
        await counts.onModuleInit();
        const again = await get('/api/requests', { filter: { q: 'ünï' }, range: [0, 9] }).expect(200);
        expect(again.headers['content-range']).toBe('requests 0-6/7');
      }
    } finally {
      ways.mockRestore();
      await t.db.query('DELETE FROM requests WHERE ref_id >= 8000000000 AND ref_id < 8000001000');
    }
  });

  it('reads a page, a Ref ID and a file-name total from indexes (no sort, no scan of the table)', async () => {
    const listed = 'org_id = ? AND is_draft = ? AND deleted_at IS NULL AND listed_at IS NOT NULL';
    const page = `SELECT * FROM requests WHERE ${listed} ORDER BY listed_at DESC, ref_id DESC LIMIT 10 OFFSET 0`;
    const byRef = `SELECT * FROM requests WHERE ${listed} AND ref_id = ?`;
    if (engine === 'sqlite') {
      const plan = async (sql: string, params: unknown[]) =>
        ((await t.db.query(`EXPLAIN QUERY PLAN ${sql}`, params)) as { detail: string }[])
          .map((row) => row.detail)
          .join(' | ');
      expect(await plan(page, ['acme', 0])).toMatch(
        /^SEARCH requests USING INDEX idx_requests_listed \(org_id=\? AND is_draft=\? AND deleted_at=\? AND listed_at>\?\)$/,
      );
      expect(await plan(byRef, ['acme', 0, refIds[1]])).toMatch(
        /^SEARCH requests USING INDEX sqlite_autoindex_requests_1 \(ref_id=\?\)$/,
      );
      expect(
        await plan('SELECT COUNT(*) AS n FROM request_names WHERE org_id = ? AND is_draft = ? AND instr(name, ?) > 0', [
          'acme',
          0,
          'lease',
        ]),
      ).toBe('SEARCH request_names USING PRIMARY KEY (org_id=? AND is_draft=?)');
    } else {
      // The page as RequestListsService reads it on MySQL/MariaDB: naming its index (MYSQL_LIST_INDEX).
      const hinted = `SELECT * FROM requests ${MYSQL_LIST_INDEX} WHERE ${listed} ORDER BY listed_at DESC, ref_id DESC LIMIT 10 OFFSET 0`;
      const plan = async (sql: string, params: unknown[]) =>
        (await t.db.query(`EXPLAIN ${sql}`, params)) as {
          table: string;
          type: string;
          key: string | null;
          Extra: string | null;
        }[];
      const [p] = await plan(hinted, ['acme', 0]);
      expect(p).toMatchObject({ table: 'requests', key: 'idx_requests_listed' });
      expect(['ref', 'range']).toContain(p.type);
      expect(p.Extra ?? '').not.toMatch(/filesort|temporary/i);
      expect(await plan(byRef, ['acme', 0, refIds[1]])).toMatchObject([
        { table: 'requests', type: 'const', key: 'PRIMARY' },
      ]);
      const [n] = await plan(
        `SELECT COUNT(*) AS n FROM request_names WHERE org_id = ? AND is_draft = ? AND name LIKE ? ${LIKE_ESCAPE}`,
        ['acme', 0, '%lease%'],
      );
      expect(n).toMatchObject({ table: 'request_names', key: 'PRIMARY' });
      expect(['ref', 'range']).toContain(n.type);
    }
  });
});

describe('placement through /v1/save lands where the box was dropped, on any page shape', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  // [fixture, page, visible box [x, y, width, height] of that page as pdfinfo shows it]
  const pages: Array<[string, number, [number, number, number, number]]> = [
    ['with_cropbox.pdf', 1, [0, 0, 595, 842]],
    ['american_flag.pdf', 1, [0, 0, 988, 520]],
    ['giraffe.pdf', 1, [0, 0, 600, 600]],
    ['freeculture.pdf', 1, [61.2, 28.8, 489.6, 734.4]],
  ];

  it.each(pages)('%s: top-left and the default bottom-left', async (fixture, page, [cx, cy, cw, ch]) => {
    const up = await uploadOk(t, key, 'acme', {
      fixture,
      recipients: [SIGNERS[0], { ...SIGNERS[1], email: 'v2@example.in' }],
    });
    await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({
        orgId: 'acme',
        data: [
          { refId: up.refId, order: 1, pageNo: [page], apply_all: false, rectangle: '0,0,150,50' },
          { refId: up.refId, order: 2, pageNo: [page], apply_all: false, rectangle: '0,790,150,840' },
        ],
      })
      .expect(200);
    const s = ch / 840; // the page is shown 840 points tall
    const [topLeft] =
      (await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up.refId, order: 1 })).boxes ?? [];
    expect(topLeft.pages).toBe(String(page));
    expect(topLeft.x).toBeCloseTo(cx, 1);
    expect(topLeft.y + topLeft.height).toBeCloseTo(cy + ch, 1);
    expect(topLeft.width).toBeCloseTo(150 * s, 1);
    expect(topLeft.height).toBeCloseTo(50 * s, 1);
    const [bottomLeft] =
      (await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up.refId, order: 2 })).boxes ?? [];
    expect(bottomLeft.x).toBeCloseTo(cx, 1);
    expect(bottomLeft.y).toBeCloseTo(cy, 1);
    expect(bottomLeft.height).toBeCloseTo(50 * s, 1);
    expect(topLeft.x + topLeft.width).toBeLessThanOrEqual(cx + cw + 0.01);
  });

  it("applies the two default rules: '0,0,150,100' is a 150 x 50 box", async () => {
    const up = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0]] });
    await t.http
      .post('/v1/save')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1, pageNo: [1], rectangle: '0,0,150,100' }] })
      .expect(200);
    const [box] = (await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up.refId, order: 1 })).boxes ?? [];
    expect(box.height).toBeCloseTo(50 * (792 / 840), 2);
    // Submitting a signer whose box was never placed puts it at the default, bottom-left of page 1.
    const up2 = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0]] });
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up2.refId, order: 1 }] })
      .expect(200);
    const p = await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up2.refId, order: 1 });
    expect(p.rectangle).toBe('0,790,150,840');
    expect(p.boxes?.[0]).toMatchObject({ pages: '1', x: 0, y: 0 });
  });
});
