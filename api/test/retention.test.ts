import { RETENTION_AUDIT_EVENTS, RetentionMessages } from '@esign/contract';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { RequestEntity } from '../src/modules/requests/request.entity';
import { RequestRepository } from '../src/modules/requests/request-repository';
import { RetentionService } from '../src/modules/retention/retention.service';
import { DocumentStorage } from '../src/modules/storage/document-storage';
import {
  drain,
  fixtureJpeg,
  makePng,
  partyRow,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
  verifyPdf,
  numberedRecipient as signer,
} from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 24's retention: with a period of 1 day and the clock moved 2 days, an ended request loses its documents,
 * signature image and selfie (a file another organisation's request shares is kept), keeps its rows, hashes and audit
 * trail (the chain verifies, with the deletion as its last event) and shows as archived; a request in progress is
 * untouched; a shorter media period deletes the selfies alone. Periods are validated.
 */
describe('retention', () => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const storage = () => t.app.get(DocumentStorage);
  /** Signer i's own drawn signature (the same image twice would be one shared file). */
  const own = (i: number) =>
    makePng(300, 100, (x, y) =>
      Math.abs(y - 50 - (20 + i) * Math.sin(x / 22)) < 7 ? [20, 20, 120, 255] : [255, 255, 255, 0],
    );
  const complete = async (org: string, i: number) => {
    const sent = await sendForSigning(t, keys[org], org, { recipients: [signer(i)], otpRequired: false }, [
      { order: 1, pageNo: [1] },
    ]);
    await signAs(t, {
      orgId: org,
      refId: sent.refId,
      order: 1,
      token: sent.tokens[1],
      email: signer(i).email,
      signature: { kind: 'drawn', png: own(i) },
    });
    await drain(t);
    expect((await requestRow(t, sent.refId)).status).toBe('completed');
    return sent.refId;
  };
  /**
   * A selfie stored for the party as the face check stores it (the face model is not what is tested here: the file and
   * its key on the party are what retention deals with).
   */
  const withSelfie = async (refId: number) => {
    const { key } = await storage().put(Buffer.concat([fixtureJpeg(), Buffer.from(String(refId))]));
    await t.db.getRepository(PartyEntity).update({ refId, order: 1 }, { selfieKey: key });
    return key;
  };
  const trail = async (org: string, refId: number) =>
    (await t.http.get(`/api/requests/${refId}/audit`).set('apikey', keys[org]).expect(200)).body;
  const item = async (org: string, refId: number) =>
    (await t.http.get(`/v1/request_all/${org}`).set('apikey', keys[org]).expect(200)).body.data.find(
      (r: { refId: number }) => r.refId === refId,
    );

  beforeAll(async () => {
    t = await startTestApp();
    for (const org of ['acme', 'other', 'media']) {
      await createOrgWithUser(t, org);
      keys[org] = await orgApiKey(t, org);
    }
  });
  afterAll(() => t.close());

  it('validates the periods (whole days, null for ever, media not longer than the documents)', async () => {
    const put = (body: object) => t.http.put('/api/organisations/acme').set('apikey', keys.acme).send(body);
    let res = await put({ retention_days: 0 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('retention_days must be a whole number of days from 1 to 36500');
    res = await put({ retention_days: 1.5 });
    expect(res.status).toBe(400);
    res = await put({ retention_days: 1, media_retention_days: 5 });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(RetentionMessages.mediaLonger);
    res = await put({ retention_days: 1 }).expect(200);
    expect(res.body.settings).toMatchObject({ retention_days: 1, media_retention_days: null });
    expect((await put({ media_retention_days: 2 })).status).toBe(400);
    // Back to for ever, then 1 day again (null is a value, not "absent").
    res = await put({ retention_days: null }).expect(200);
    expect(res.body.settings.retention_days).toBeNull();
    await put({ retention_days: 1 }).expect(200);
    await t.http
      .put('/api/organisations/media')
      .set('apikey', keys.media)
      .send({ media_retention_days: 1 })
      .expect(200);
  });

  it('deletes the files of ended requests past the period and keeps their trail, hashes and shared files', async () => {
    const ended = await complete('acme', 1);
    const selfie = await withSelfie(ended);
    const before = await requestRow(t, ended);
    const signature = (await partyRow(t, ended, 1)).signatureKey!;
    // The same PDF sent by an organisation that keeps for ever: the original file is shared (content-addressed).
    const shared = await complete('other', 2);
    expect((await requestRow(t, shared)).fileKey).toBe(before.fileKey);
    const open = await sendForSigning(
      t,
      keys.acme,
      'acme',
      { recipients: [signer(3), signer(4)], otpRequired: false },
      [
        { order: 1, pageNo: [1] },
        { order: 2, pageNo: [1] },
      ],
    );
    await signAs(t, { orgId: 'acme', refId: open.refId, order: 1, token: open.tokens[1], email: signer(3).email });
    await drain(t);

    // Not yet: it ended less than a day ago.
    expect((await t.app.get(RetentionService).run()).files).toBe(0);
    t.clock.advance(2 * 86400);
    const outcome = await t.app.get(RetentionService).run();
    expect(outcome.files).toBe(1);

    const after = await requestRow(t, ended);
    expect(after.filesDeletedAt).not.toBeNull();
    expect(after.status).toBe('completed');
    expect(after.fileKey).toBe(before.fileKey);
    expect(after.signedFileKey).toBe(before.signedFileKey);
    expect(await storage().exists(before.signedFileKey!)).toBe(false);
    expect(await storage().exists(signature)).toBe(false);
    expect(await storage().exists(selfie)).toBe(false);
    expect(await storage().exists(before.fileKey)).toBe(true); // still the other organisation's document
    expect((await verifyPdf(t, await signedPdf(t, shared))).problems).toEqual([]);

    const audit = await trail('acme', ended);
    expect(audit.chain.intact).toBe(true);
    const last = audit.events.at(-1);
    expect(last.type).toBe(RETENTION_AUDIT_EVENTS.filesDeleted);
    expect(last.data).toMatchObject({ retention_days: 1, signed_file_sha256: before.signedFileKey });

    expect(await item('acme', ended)).toMatchObject({
      archived: true,
      files_deleted_at: after.filesDeletedAt!.toISOString(),
    });
    expect((await item('acme', ended)).verification_url).toBeUndefined();
    expect((await item('acme', open.refId)).archived).toBeUndefined();
    await expect(t.app.get(RequestRepository).documentStream('acme', ended, 'signed')).rejects.toThrow(
      RetentionMessages.filesDeleted,
    );

    // The request in progress is untouched and can be finished.
    expect((await requestRow(t, open.refId)).filesDeletedAt).toBeNull();
    await signAs(t, { orgId: 'acme', refId: open.refId, order: 2, token: open.tokens[2], email: signer(4).email });
    await drain(t);
    expect((await verifyPdf(t, await signedPdf(t, open.refId))).problems).toEqual([]);

    // A second pass finds nothing more for the deleted one.
    expect((await t.app.get(RetentionService).run()).files).toBe(0);
  });

  it('deletes only the selfies when the media period is shorter', async () => {
    const refId = await complete('media', 5);
    const selfie = await withSelfie(refId);
    const row = await requestRow(t, refId);
    t.clock.advance(2 * 86400);
    const outcome = await t.app.get(RetentionService).run();
    expect(outcome.media).toBe(1);
    expect(await storage().exists(selfie)).toBe(false);
    expect(await storage().exists(row.signedFileKey!)).toBe(true);
    const after = await requestRow(t, refId);
    expect(after.mediaDeletedAt).not.toBeNull();
    expect(after.filesDeletedAt).toBeNull();
    expect((await item('media', refId)).archived).toBeUndefined();
    const audit = await trail('media', refId);
    expect(audit.chain.intact).toBe(true);
    expect(audit.events.at(-1).type).toBe(RETENTION_AUDIT_EVENTS.mediaDeleted);
    expect((await verifyPdf(t, await signedPdf(t, refId))).problems).toEqual([]);
    expect((await t.db.getRepository(RequestEntity).countBy({ orgId: 'media' })) > 0).toBe(true);
  });
});
