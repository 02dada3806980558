import { FaultMessages } from '@esign/contract';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobEntity } from '../src/modules/jobs/job.entity';
import { SEAL_JOB } from '../src/modules/requests/seal.queue';
import { filesUnder, uploadOk, upload } from './support/requests';
import { drain, requestRow, sendForSigning, SIGNATURE_PNG, signAs, signedPdf, verifyPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const signer = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '9876500001' };
const recipient = { ...signer, observer: false, signature_type: 'e-Signature' };

/**
 * Issue 24's faults: the data folder made read-only during an upload and during a seal. chmod does not stop root, so
 * the documents' folder is a tmpfs of its own, remounted read-only and back (`mount -o remount,ro`, which root may do
 * here and which is refused by the kernel for every user, root included). While it lasts: 503 UNAVAILABLE with the
 * contract's message and Retry-After, /health/ready 503 naming the store, no 500, nothing half-written (the tables and
 * the stored files compared before and after); when it ends, everything works again by itself and the seal job's retry
 * completes the request.
 */
describe('a read-only data folder', () => {
  let t: TestApp;
  let key: string;
  let files: string;
  const mount = (...args: string[]) => execFileSync('mount', args, { stdio: 'pipe' });
  const readOnly = () => mount('-o', 'remount,ro', files);
  const writable = () => mount('-o', 'remount,rw', files);
  const snapshot = async () => ({
    requests: await t.db.query('SELECT ref_id, status, file_key, signed_file_key FROM requests ORDER BY ref_id'),
    parties: await t.db.query('SELECT id, status, signature_key FROM parties ORDER BY id'),
    audit: await t.db.query('SELECT id, hash FROM audit_events ORDER BY id'),
    files: filesUnder(files).sort(),
  });

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme');
    key = await orgApiKey(t, 'acme');
    files = join(t.config.dataDir, 'files');
    mkdirSync(files, { recursive: true });
    const saved = mkdtempSync(join(tmpdir(), 'esign-files-'));
    cpSync(files, saved, { recursive: true });
    mount('-t', 'tmpfs', '-o', 'size=64m,mode=0750', 'tmpfs', files);
    cpSync(saved, files, { recursive: true });
    rmSync(saved, { recursive: true, force: true });
  });
  afterAll(async () => {
    try {
      mount('-o', 'remount,rw', files);
    } finally {
      execFileSync('umount', ['-l', files]);
      await t.close();
    }
  });

  it('refuses an upload with 503 and keeps nothing of it, then takes it when the folder is writable again', async () => {
    await uploadOk(t, key, 'acme', { recipients: [recipient] });
    const before = await snapshot();
    readOnly();
    try {
      const res = await upload(t, key, 'acme', { recipients: [recipient], fixture: 'doc_2_3_pages.pdf' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'UNAVAILABLE', message: FaultMessages.storageReadOnly });
      expect(res.headers['retry-after']).toBe('30');
      const ready = await t.http.get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.storage).not.toBe('ok');
      expect(await snapshot()).toEqual(before);
    } finally {
      writable();
    }
    expect((await t.http.get('/health/ready')).status).toBe(200);
    await uploadOk(t, key, 'acme', { recipients: [recipient], fixture: 'doc_2_3_pages.pdf' });
  });

  it('refuses a signature and lets a seal fail while the folder is read-only; the retry completes it after', async () => {
    const sent = await sendForSigning(t, key, 'acme', { recipients: [recipient], otpRequired: false }, [
      { order: 1, pageNo: [1] },
    ]);
    const h = { 'x-sign-token': sent.tokens[1] };
    readOnly();
    try {
      // The signature's image cannot be stored: refused, and the party has not signed.
      await expect(
        signAs(t, { orgId: 'acme', refId: sent.refId, order: 1, token: sent.tokens[1], email: signer.email }),
      ).rejects.toThrow(/esignature answered 503/);
      expect((await requestRow(t, sent.refId)).signersDone).toBe(0);
    } finally {
      writable();
    }
    // Submitted again once writable; the seal job then runs while the folder is read-only.
    const ref = await t.http.get(`/v1/reference/acme/${sent.refId}/1`).set(h).expect(200);
    await t.http
      .post(`/v1/esignature/acme/${ref.body.request.requestId}`)
      .set(h)
      .send({ file: `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}` })
      .expect(200);
    const before = await snapshot();
    readOnly();
    try {
      await drain(t);
      const during = await snapshot();
      expect(during.files).toEqual(before.files);
      expect(during.requests).toEqual(before.requests);
      expect((await requestRow(t, sent.refId)).status).toBe('in-progress');
      const seal = await t.db.getRepository(JobEntity).findOneByOrFail({ type: SEAL_JOB });
      expect(seal.status).toBe('queued');
    } finally {
      writable();
    }
    // Nobody runs a command: the job's retry, when due, completes the request.
    t.clock.advance(3600);
    await drain(t);
    expect((await requestRow(t, sent.refId)).status).toBe('completed');
    expect((await verifyPdf(t, await signedPdf(t, sent.refId))).problems).toEqual([]);
    const trail = (await t.http.get(`/api/requests/${sent.refId}/audit`).set('apikey', key).expect(200)).body;
    expect(trail.chain.intact).toBe(true);
  });
});
