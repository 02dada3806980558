import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manage } from '../src/manage';
import { AuditService } from '../src/modules/audit/audit.service';
import { JobsService } from '../src/modules/jobs/jobs.service';
import { SEAL_JOB, SEAL_MAX_ATTEMPTS } from '../src/modules/requests/seal.queue';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { SealService } from '../src/modules/requests/seal.service';
import { SigningEngine } from '../src/modules/signing/pdf/engine';
import { readFixture } from './support/fixtures';
import { SIGNERS } from './support/requests';
import {
  drain,
  pageCount,
  partyRow,
  renderPage,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
  verifyPdf,
} from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const DPI = 36;

/** Mean grey-level change between two renderings inside a user-space box (a page without rotation). */
function boxChange(
  before: ReturnType<typeof renderPage>,
  after: ReturnType<typeof renderPage>,
  box: { x: number; y: number; width: number; height: number },
  crop: [number, number, number, number],
): { inside: number; outside: number } {
  const scale = DPI / 72;
  const left = Math.floor((box.x - crop[0]) * scale);
  const right = Math.ceil((box.x + box.width - crop[0]) * scale);
  const top = Math.floor((crop[1] + crop[3] - (box.y + box.height)) * scale);
  const bottom = Math.ceil((crop[1] + crop[3] - box.y) * scale);
  let inSum = 0;
  let inCount = 0;
  let outSum = 0;
  let outCount = 0;
  for (let y = 0; y < before.height; y++) {
    for (let x = 0; x < before.width; x++) {
      const d = Math.abs(before.pixels[y * before.width + x] - after.pixels[y * after.width + x]);
      const inBox = x >= left && x < right && y >= top && y < bottom;
      const nearBox = x >= left - 2 && x < right + 2 && y >= top - 2 && y < bottom + 2;
      if (inBox) {
        inSum += d;
        inCount++;
      } else if (!nearBox) {
        outSum += d;
        outCount++;
      }
    }
  }
  return { inside: inSum / inCount, outside: outSum / outCount };
}

describe('signing a request end to end (electronic signatures, PAdES, certificate of completion)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  it('two signers (chosen pages, all pages) and a copy-receiver on us_constitution.pdf: valid, trusted, stamped', async () => {
    const original = readFixture('pdfs', 'us_constitution.pdf');
    const recipients = [
      { ...SIGNERS[0], signature_type: 'e-Signature' },
      { ...SIGNERS[1], signature_type: 'Dual' },
      SIGNERS[2],
    ];
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'us_constitution.pdf', recipients, otpRequired: true, checkOrder: false },
      [
        { order: 1, pageNo: [1, 3, 19], rectangle: '400,700,560,760' },
        { order: 2, apply_all: true, rectangle: '40,40,200,100' },
      ],
    );
    expect(Object.keys(tokens).sort()).toEqual(['1', '2']);

    await signAs(t, {
      orgId: 'acme',
      refId,
      order: 1,
      token: tokens[1],
      email: SIGNERS[0].email,
      otp: true,
      signature: { kind: 'drawn' },
      position: { latitude: 19.076, longitude: 72.8777 },
    });
    await drain(t);
    expect((await partyRow(t, refId, 1)).status).toBe('completed');
    expect((await requestRow(t, refId)).signersDone).toBe(1);
    expect((await requestRow(t, refId)).status).toBe('in-progress');

    await signAs(t, {
      orgId: 'acme',
      refId,
      order: 2,
      token: tokens[2],
      email: SIGNERS[1].email,
      otp: true,
      signature: { kind: 'typed', style: 'italic' },
    });
    await drain(t);

    const req = await requestRow(t, refId);
    expect(req.status).toBe('completed');
    expect(req.signersDone).toBe(2);
    expect((await partyRow(t, refId, 3)).status).toBe('completed');

    const pdf = await signedPdf(t, refId);
    if (process.env.DUMP_PDF) writeFileSync(process.env.DUMP_PDF, pdf);
    const verified = await verifyPdf(t, pdf, original);
    expect(verified.problems).toEqual([]);
    expect(verified.ok).toBe(true);
    expect(verified.signatures.map((s) => [s.signer, s.valid, s.trusted])).toEqual([
      [SIGNERS[0].name, true, true],
      [SIGNERS[1].name, true, true],
      ['Org acme Document Seal', true, true],
    ]);
    // The seal covers everything before the validation data and the archive timestamp, which covers the whole file.
    expect(verified.archives.map((s) => s.field)).toEqual([expect.stringMatching(/^esign_archive_/)]);
    expect(verified.archives[0].wholeDocument).toBe(true);
    expect(verified.evidence?.dss).toBe(true);
    expect(verified.evidence?.signatures.find((s) => s.kind === 'document timestamp')).toMatchObject({
      imprintMatches: true,
      chainVerified: true,
    });
    expect(verified.qpdf.newWarnings).toEqual([]);
    expect(pageCount(pdf)).toBeGreaterThan(19);

    // The stamps: pixels change inside each box, on the chosen pages only, and nowhere else on the page.
    const parties = await t.db.getRepository(PartyEntity).find({ where: { refId }, order: { order: 'ASC' } });
    const crop = req.geometry[0].cropBox;
    for (const page of [1, 2, 3, 19]) {
      const before = renderPage(original, page, DPI);
      const after = renderPage(pdf, page, DPI);
      const first = boxChange(before, after, parties[0].boxes![0], crop);
      const second = boxChange(before, after, parties[1].boxes![0], crop);
      if ([1, 3, 19].includes(page)) expect(first.inside).toBeGreaterThan(5);
      else expect(first.inside).toBeLessThan(0.5);
      expect(second.inside).toBeGreaterThan(5);
      expect(Math.min(first.outside, second.outside)).toBeLessThan(0.5);
    }

    // Everyone gets the completed message with a link to the signed document.
    const completed = await t.http.get('/dev/outbox').expect(200);
    const mails = (completed.body as { kind: string; channel: string; to: string; refId: number }[]).filter(
      (m) => m.kind === 'completed' && m.channel === 'email' && m.refId === refId,
    );
    expect(mails.map((m) => m.to).sort()).toEqual(SIGNERS.map((s) => s.email).sort());

    // The audit trail is one intact chain from creation to completion.
    const audit = t.app.get(AuditService);
    const events = await audit.list(t.db.manager, 'acme', refId);
    expect(audit.verifyChain(events)).toBeNull();
    const types = events.map((e) => e.type);
    for (const type of ['party.otp_verified', 'party.accepted', 'party.signature_submitted', 'party.signed'])
      expect(types.filter((x) => x === type)).toHaveLength(2);
    expect(types[types.length - 1]).toBe('request.completed');

    // The dashboard moves: 2 of 2, completed, a signed document link for every party.
    const list = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
    const item = list.body.data.find((r: { refId: number }) => r.refId === refId);
    expect([item.status, item['max-status'], item.status_text]).toEqual([2, 2, 'Completed']);
    expect(item.data.every((p: { downloadUrl?: string }) => p.downloadUrl)).toBe(true);

    // A finished request's link only tells its status.
    const after = await t.http.get(`/v1/reference/acme/${refId}/1`).set('x-sign-token', tokens[1]).expect(200);
    expect(after.body.request).toMatchObject({ esignStatus: 'completed', uploadUrl: null, email: '' });
    const again = await t.http
      .post(`/v1/esign/reject/acme/${refId}/1`)
      .set('x-sign-token', tokens[1])
      .send({ remark: 'too late' })
      .expect(400);
    expect(again.body.message).toBe('This document has already been signed by every party.');
  });

  it('runs seal jobs one at a time in a process: each step of a request prepared once, not once per job', async () => {
    // Each submitted signature queues its own seal job; run side by side, every job would prepare and sign the same
    // step and all but one would lose it (a process restarted every few seconds then never finished a step).
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      {
        fixture: 'normal.pdf',
        recipients: [
          { ...SIGNERS[0], signature_type: 'e-Signature' },
          { ...SIGNERS[1], signature_type: 'e-Signature' },
        ],
        otpRequired: false,
        checkOrder: false,
      },
      [
        { order: 1, pageNo: [1] },
        { order: 2, pageNo: [1], rectangle: '40,40,200,100' },
      ],
    );
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
    await signAs(t, { orgId: 'acme', refId, order: 2, token: tokens[2], email: SIGNERS[1].email });
    const prepare = jest.spyOn(t.app.get(SigningEngine), 'prepareParty');
    try {
      const seal = t.app.get(SealService);
      const outcomes = await Promise.all([1, 2, 3].map(() => seal.run('acme', refId)));
      expect(prepare).toHaveBeenCalledTimes(2);
      expect(outcomes.map((o) => [o.applied, o.completed])).toEqual([
        [2, true],
        [0, false],
        [0, false],
      ]);
    } finally {
      prepare.mockRestore();
    }
    expect((await requestRow(t, refId)).status).toBe('completed');
    const verified = await verifyPdf(t, await signedPdf(t, refId), readFixture('pdfs', 'normal.pdf'));
    expect(verified.problems).toEqual([]);
    expect(verified.signatures.map((s) => s.signer)).toEqual([
      SIGNERS[0].name,
      SIGNERS[1].name,
      'Org acme Document Seal',
    ]);
  });
});

describe('a seal that fails', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  it('is retried, shows on the dashboard and in the audit trail, and an operator can run it again', async () => {
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
    // The stored signature image is out of reach (a storage outage): every attempt fails.
    const image = (await partyRow(t, refId, 1)).signatureKey!;
    const file = join(t.config.dataDir, 'files', image.slice(0, 2), image.slice(2, 4), image);
    renameSync(file, `${file}.away`);

    await drain(t);
    const failed = await requestRow(t, refId);
    expect(failed.status).toBe('in-progress');
    expect(failed.sealError).toBe('No such document.');
    const list = await t.http.get('/v1/request_all/acme').set('apikey', key).expect(200);
    const item = list.body.data.find((r: { refId: number }) => r.refId === refId);
    expect([item.status_text, item.seal_error]).toEqual([
      '0 of 1 signed · signing failed, retrying',
      'No such document.',
    ]);
    const signer = await t.http
      .get(`/v1/request/acme/${(await partyRow(t, refId, 1)).id}`)
      .set('x-sign-token', tokens[1])
      .expect(200);
    expect(signer.body).toMatchObject({ status: 'signing', signed: false, seal_error: 'No such document.' });

    for (let attempt = 2; attempt <= SEAL_MAX_ATTEMPTS; attempt++) {
      t.clock.advance(3600);
      await drain(t);
    }
    const [job] = await t.app.get(JobsService).list({ type: SEAL_JOB });
    expect([job.status, job.attempts]).toEqual(['failed', SEAL_MAX_ATTEMPTS]);
    const stuck = await requestRow(t, refId);
    expect(stuck.sealError).toContain(`gave up after ${SEAL_MAX_ATTEMPTS} attempts`);
    expect(stuck.sealError).toContain(`manage reseal --ref ${refId}`);
    const events = await t.app.get(AuditService).list(t.db.manager, 'acme', refId);
    expect(events.filter((e) => e.type === 'request.seal_failed')).toHaveLength(SEAL_MAX_ATTEMPTS);

    renameSync(`${file}.away`, file);
    const lines: string[] = [];
    const errors: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => errors.push(l), readStdin: async () => '' };
    expect(await manage(['reseal', '--ref', String(refId)], t.env, io)).toBe(0);
    expect(errors).toEqual([]);
    expect(lines).toEqual([`Request ${refId}: 1 signature(s) applied, completed and sealed; status completed.`]);
    const done = await requestRow(t, refId);
    expect([done.status, done.sealError]).toEqual(['completed', null]);
    expect((await verifyPdf(t, await signedPdf(t, refId))).problems).toEqual([]);
  });
});

describe("an organisation's own PKCS#12 (manage import-seal)", () => {
  let t: TestApp;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
    dir = mkdtempSync(join(tmpdir(), 'esign-p12-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  /** A self-signed certificate and key made by OpenSSL, exported as PKCS#12 with a password. */
  const makeP12 = (name: string, subject: string, ca: boolean) => {
    const usage = ca ? 'critical,keyCertSign,cRLSign' : 'critical,digitalSignature,nonRepudiation';
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '365',
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        join(dir, `${name}.pem`),
        '-subj',
        subject,
        '-addext',
        `basicConstraints=critical,CA:${ca ? 'TRUE' : 'FALSE'}`,
        '-addext',
        `keyUsage=${usage}`,
      ],
      { stdio: 'pipe' },
    );
    execFileSync(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-in',
        join(dir, `${name}.pem`),
        '-inkey',
        join(dir, `${name}.key`),
        '-passout',
        'pass:s3cret',
        '-out',
        join(dir, `${name}.p12`),
      ],
      { stdio: 'pipe' },
    );
    return { p12: join(dir, `${name}.p12`), pem: readFileSync(join(dir, `${name}.pem`), 'utf8') };
  };
  const importSeal = async (p12: string, password: string) => {
    const lines: string[] = [];
    const errors: string[] = [];
    const io = {
      out: (l: string) => lines.push(l),
      err: (l: string) => errors.push(l),
      readStdin: async () => `${password}\n`,
    };
    const code = await manage(['import-seal', '--org', 'acme', '--p12', p12, '--password-stdin'], t.env, io);
    return { code, lines, errors };
  };
  const signOnce = async () => {
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
    return signedPdf(t, refId);
  };

  it("a CA certificate issues each signer's certificate and the seal; signatures chain to it, not to the dev CA", async () => {
    const ca = makeP12('corporate', '/O=Acme Ltd/CN=Acme Corporate CA', true);
    expect(await importSeal(ca.p12, 'wrong')).toMatchObject({
      code: 1,
      errors: ['Wrong password for the PKCS#12 file'],
    });
    const imported = await importSeal(ca.p12, 's3cret');
    expect(imported).toMatchObject({ code: 0, errors: [] });
    expect(imported.lines[0]).toMatch(/^Organisation 'acme' now seals with "O=Acme Ltd, CN=Acme Corporate CA"/);

    const pdf = await signOnce();
    const verified = await verifyPdf(t, pdf, undefined, ca.pem);
    expect(verified.problems).toEqual([]);
    expect(verified.signatures.map((s) => [s.signer, s.trusted])).toEqual([
      [SIGNERS[0].name, true],
      ['Org acme Document Seal', true],
    ]);
    // The development CA is no longer what they chain to.
    expect((await verifyPdf(t, pdf)).signatures.every((s) => s.trusted)).toBe(false);
  });

  it('a leaf certificate makes every signature itself', async () => {
    // A leaf issued by the organisation's own CA (OpenSSL), exported with its chain.
    const ca = makeP12('leaf-ca', '/O=Acme Ltd/CN=Acme Issuing CA', true);
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'leaf.key'),
        '-out',
        join(dir, 'leaf.csr'),
        '-subj',
        '/O=Acme Ltd/CN=Acme Signing Officer',
      ],
      { stdio: 'pipe' },
    );
    writeFileSync(
      join(dir, 'leaf.ext'),
      'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
    );
    execFileSync(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        join(dir, 'leaf.csr'),
        '-CA',
        join(dir, 'leaf-ca.pem'),
        '-CAkey',
        join(dir, 'leaf-ca.key'),
        '-CAcreateserial',
        '-days',
        '365',
        '-extfile',
        join(dir, 'leaf.ext'),
        '-out',
        join(dir, 'leaf.pem'),
      ],
      { stdio: 'pipe' },
    );
    execFileSync(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-in',
        join(dir, 'leaf.pem'),
        '-inkey',
        join(dir, 'leaf.key'),
        '-certfile',
        join(dir, 'leaf-ca.pem'),
        '-passout',
        'pass:s3cret',
        '-out',
        join(dir, 'leaf.p12'),
      ],
      { stdio: 'pipe' },
    );
    expect((await importSeal(join(dir, 'leaf.p12'), 's3cret')).code).toBe(0);
    const verified = await verifyPdf(t, await signOnce(), undefined, ca.pem);
    expect(verified.signatures.map((s) => [s.signer, s.validation])).toEqual([
      ['Acme Signing Officer', 'Signature is Valid.'],
      ['Acme Signing Officer', 'Signature is Valid.'],
    ]);
    // poppler trusts the first and reports 'Unknown issue with Certificate' for the same certificate a second time in
    // one file (why electronic signatures get one-time certificates when the organisation has a CA).
    expect(verified.signatures[0].trusted).toBe(true);
  });
});
