import { SIGNER_ERASED_EVENT, SignerDataMessages, type SignerErasureResult } from '@esign/contract';
import AdmZip from 'adm-zip';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { DocumentStorage } from '../src/modules/storage/document-storage';
import { UsersService } from '../src/modules/auth/users.service';
import {
  drain,
  fixtureJpeg,
  partyRow,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
  verifyPdf,
} from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

const asha = { name: 'Asha Rao', email: 'Asha.Rao@example.in', phoneNumber: '9876500001' };
const vikram = { name: 'Vikram Shah', email: 'vikram@example.in', phoneNumber: '9123456789' };
const as = (s: typeof asha) => ({ ...s, observer: false, signature_type: 'e-Signature' });
const position = { latitude: 12.9716, longitude: 77.5946 };

/** The ZIP's entries, and all of its text (to look for what must not be there). */
function unzip(bytes: Buffer): {
  names: string[];
  manifest: Record<string, unknown> & { parties: object[] };
  text: string;
} {
  const zip = new AdmZip(bytes);
  const entries = zip.getEntries();
  const manifest = JSON.parse(
    entries
      .find((e) => e.entryName === 'manifest.json')!
      .getData()
      .toString('utf8'),
  );
  return {
    names: entries.map((e) => e.entryName).sort(),
    manifest,
    text: entries.map((e) => e.getData().toString('latin1')).join('\n'),
  };
}

/**
 * Issue 24's signer data: an administrator exports everything the organisation holds about one signer (found by e-mail
 * or phone) as a ZIP with a JSON manifest, with nothing about the other signers of the same requests nor another
 * organisation's records; the erasure removes selfie, location, IP and phone, audited, and the signed PDFs still
 * verify. Staff cannot; a wrong address is a 400, an unknown one a 404.
 */
describe("a signer's data: export and erasure", () => {
  let t: TestApp;
  let key: string;
  let shared: number;
  let alone: number;
  let elsewhere: number;
  let selfie: string;

  const post = (path: string, body: object, apikey = key) =>
    t.http
      .post(`/api/signers/${path}`)
      .set('apikey', apikey)
      .send(body)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
  const sign = async (org: string, apikey: string, who: (typeof asha)[]) => {
    const sent = await sendForSigning(
      t,
      apikey,
      org,
      { recipients: who.map(as), otpRequired: false },
      who.map((_, i) => ({ order: i + 1, pageNo: [1] })),
    );
    for (const [i, s] of who.entries())
      await signAs(t, {
        orgId: org,
        refId: sent.refId,
        order: i + 1,
        token: sent.tokens[i + 1],
        email: s.email,
        position,
      });
    await drain(t);
    expect((await requestRow(t, sent.refId)).status).toBe('completed');
    return sent.refId;
  };

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme');
    await createOrgWithUser(t, 'globex');
    key = await orgApiKey(t, 'acme');
    await t.http.put('/api/organisations/acme').set('apikey', key).send({ location_capture: true }).expect(200);
    shared = await sign('acme', key, [asha, vikram]);
    alone = await sign('acme', key, [asha]);
    elsewhere = await sign('globex', await orgApiKey(t, 'globex'), [asha]);
    // A selfie as the face check stores it (the face model is not what is tested here).
    selfie = (await t.app.get(DocumentStorage).put(fixtureJpeg())).key;
    await t.db.getRepository(PartyEntity).update({ refId: alone, order: 1 }, { selfieKey: selfie, faceScore: 0.91 });
  });
  afterAll(() => t.close());

  it('refuses staff, a wrong address and one the organisation does not know', async () => {
    await t.app.get(UsersService).create('acme', 'sam', 'correct horse battery', null, 'staff');
    const staff = await signIn(t, 'sam', 'correct horse battery');
    expect((await post('export', { identifier: asha.email }, staff)).status).toBe(403);
    expect((await post('erase', { identifier: asha.email }, staff)).status).toBe(403);
    let res = await t.http.post('/api/signers/export').set('apikey', key).send({ identifier: 'nobody' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(SignerDataMessages.notAnAddress);
    res = await t.http.post('/api/signers/erase').set('apikey', key).send({ identifier: 'ghost@example.in' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(SignerDataMessages.noRecords.replace('{identifier}', 'ghost@example.in'));
  });

  it('exports every record about the signer and nothing about anyone else', async () => {
    const res = await post('export', { identifier: ' asha.rao@EXAMPLE.in ' }).expect(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const { names, manifest, text } = unzip(res.body as Buffer);
    expect(manifest.identifier).toBe('asha.rao@example.in');
    const parties = manifest.parties as { ref_id: number; email: string; token_hash?: string; geo: unknown }[];
    expect(parties.map((p) => p.ref_id).sort()).toEqual([shared, alone].sort());
    for (const p of parties) {
      expect(p.email).toBe(asha.email);
      expect(p).not.toHaveProperty('token_hash');
      expect(p.geo).not.toBeNull();
    }
    expect((manifest.requests as { ref_id: number }[]).map((r) => r.ref_id).sort()).toEqual([shared, alone].sort());
    const events = manifest.audit_events as { ref_id: number; party_order: number }[];
    expect(events.length).toBeGreaterThan(3);
    expect(events.every((e) => !(e.ref_id === shared && e.party_order === 2))).toBe(true);
    expect((manifest.messages as unknown[]).length).toBeGreaterThan(0);
    // Her selfie and her two signature images (the same drawing: one file), nothing else.
    const ashaSignature = (await partyRow(t, alone, 1)).signatureKey!;
    expect(names).toEqual(['manifest.json', `files/${ashaSignature}`, `files/${selfie}`].sort());
    // Nothing about Vikram, who signed the same request, nor about the other organisation's request.
    for (const other of [vikram.name, vikram.email, '9123456789', String(elsewhere), 'globex'])
      expect(text.includes(other) ? other : null).toBeNull();
    // Found by her phone too.
    const byPhone = unzip((await post('export', { identifier: '+91 98765 00001' }).expect(200)).body as Buffer);
    expect(byPhone.manifest.parties).toHaveLength(2);
  });

  it('erases selfie, location, IP and phone, audited, and the signed documents still verify', async () => {
    const res = await t.http
      .post('/api/signers/erase')
      .set('apikey', key)
      .send({ identifier: '98765 00001' })
      .expect(200);
    const result = res.body as SignerErasureResult;
    expect(result).toMatchObject({ identifier: '+919876500001', parties: 2, files_deleted: 1 });
    expect(result.requests.sort()).toEqual([shared, alone].sort());
    expect(result.erased).toEqual(['selfie', 'video', 'location', 'ip', 'phone']);
    for (const refId of [shared, alone]) {
      const p = await partyRow(t, refId, 1);
      expect(p).toMatchObject({ selfieKey: null, faceScore: null, geo: null, signerIp: null, phoneNumber: '' });
      expect(p.email).toBe(asha.email);
      expect((await verifyPdf(t, await signedPdf(t, refId))).problems).toEqual([]);
      const trail = (await t.http.get(`/api/requests/${refId}/audit`).set('apikey', key).expect(200)).body;
      expect(trail.chain.intact).toBe(true);
      expect(trail.events.at(-1).type).toBe(SIGNER_ERASED_EVENT);
    }
    expect(await t.app.get(DocumentStorage).exists(selfie)).toBe(false);
    // Vikram's party and the other organisation's untouched.
    expect((await partyRow(t, shared, 2)).phoneNumber).toBe('+919123456789');
    expect((await partyRow(t, elsewhere, 1)).phoneNumber).toBe('+919876500001');
    expect((await partyRow(t, elsewhere, 1)).signerIp).not.toBeNull();
  });
});
