import 'reflect-metadata';
import { DOMParser } from '@xmldom/xmldom';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { manage } from '../src/manage';
import { EspKeys } from '../src/modules/aadhaar/esp-keys.service';
import { verhoeffCheckDigit } from '../src/modules/aadhaar/protocol';
import { AuditService } from '../src/modules/audit/audit.service';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { runPdfVerifyAsync } from './support/pdf-verify';
import { runOk } from './support/processes';
import { SIGNERS } from './support/requests';
import { drain, partyRow, requestRow, sendForSigning, signAs, signedPdf, verifyPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * Revoking the product's own certificates through `manage` (issue 19): the next signature with a revoked certificate
 * fails with a clear message (the seal job records it as the request's seal error), PDF verifiers see the revocation,
 * and the organisation signs again once it has a new certificate.
 */

const serialOf = (pem: string) => new x509.X509Certificate(pem).serialNumber.toLowerCase().replace(/^0+/, '');
const revokedMessage = (subject: string, serial: string) =>
  `The certificate "${subject}" (serial ${serial}) has been revoked; nothing was signed with it.`;

describe('revoking the seal through manage', () => {
  let t: TestApp;
  let dir: string;
  const keys: Record<string, string> = {};

  const manageRun = async (args: string[], stdin = '') => {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await manage(args, t.env, {
      out: (l) => lines.push(l),
      err: (l) => errors.push(l),
      readStdin: async () => stdin,
    });
    return { code, lines, errors };
  };
  /** One e-Signature signer on normal.pdf, signed; the seal job run. */
  const signOnce = async (orgId: string) => {
    const { refId, tokens } = await sendForSigning(
      t,
      keys[orgId],
      orgId,
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    await signAs(t, { orgId, refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
    await drain(t);
    return refId;
  };
  const sealRow = (orgId: string) =>
    t.db
      .query(`SELECT cert_pem FROM seal_keys WHERE id = '${orgId}:seal'`)
      .then((r: { cert_pem: string }[]) => r[0].cert_pem);
  const issuerRow = (orgId: string) =>
    t.db
      .query(`SELECT cert_pem FROM seal_keys WHERE id = '${orgId}:issuer'`)
      .then((r: { cert_pem: string }[]) => r[0].cert_pem);

  beforeAll(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'esign-seal-revocation-'));
    for (const orgId of ['acme', 'beta']) {
      await createOrgWithUser(t, orgId, `${orgId}-admin`);
      keys[orgId] = await orgApiKey(t, orgId);
    }
    // pdfsig checks the OCSP answers' dates against the real time.
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('makes the next seal fail with the reason; verifiers see the revocation; a new PKCS#12 seals again', async () => {
    expect(await manageRun(['revoke-seal', '--org', 'acme'])).toMatchObject({
      code: 1,
      errors: [
        "Organisation 'acme' has no seal certificate yet (it is made for its first signature): nothing to revoke.",
      ],
    });
    const first = await signOnce('acme');
    expect((await requestRow(t, first)).status).toBe('completed');
    const before = await verifyPdf(t, await signedPdf(t, first));
    expect(before.signatures.map((s) => s.certificate)).toEqual(['Certificate is Trusted.', 'Certificate is Trusted.']);

    const seal = await sealRow('acme');
    const revoked = await manageRun(['revoke-seal', '--org', 'acme', '--reason', 'keyCompromise']);
    expect(revoked.code).toBe(0);
    expect(revoked.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Revoked "O=Org acme, 2\\.5\\.4\\.5=acme, CN=Org acme Document Seal" \\(serial ${serialOf(seal)}, `,
        ),
      ),
      "Organisation 'acme' cannot sign until it has new certificates: manage import-seal --org acme --p12 FILE, or manage renew-seal --org acme.",
    ]);

    // pdfsig asks the OCSP responder the seal names: the document sealed before now shows the seal revoked.
    const after = await verifyPdf(t, await signedPdf(t, first));
    expect(after.signatures.map((s) => s.certificate)).toEqual([
      'Certificate is Trusted.',
      'Certificate has been Revoked.',
    ]);

    // The next request: the signer's own signature is applied (its one-time certificate is not revoked), the seal is not.
    const second = await signOnce('acme');
    const failed = await requestRow(t, second);
    expect((await partyRow(t, second, 1)).status).toBe('completed');
    expect(failed.status).toBe('in-progress');
    const message = revokedMessage('O=Org acme, 2.5.4.5=acme, CN=Org acme Document Seal', serialOf(seal));
    expect(failed.sealError).toBe(message);
    const events = await t.app.get(AuditService).list(t.db.manager, 'acme', second);
    expect(events.filter((e) => e.type === 'request.seal_failed').map((e) => e.data)).toEqual([
      { error: message, final: false },
    ]);

    // The organisation's own CA (made by OpenSSL) as a PKCS#12: the seal is made again and completes the request.
    await runOk('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '365',
      '-subj',
      '/O=Acme Ltd/CN=Acme Corporate CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      join(dir, 'acme.key'),
      '-out',
      join(dir, 'acme.pem'),
    ]);
    await runOk('openssl', [
      'pkcs12',
      '-export',
      '-in',
      join(dir, 'acme.pem'),
      '-inkey',
      join(dir, 'acme.key'),
      '-passout',
      'pass:s3cret',
      '-out',
      join(dir, 'acme.p12'),
    ]);
    expect(
      (
        await manageRun(
          ['import-seal', '--org', 'acme', '--p12', join(dir, 'acme.p12'), '--password-stdin'],
          's3cret\n',
        )
      ).code,
    ).toBe(0);
    expect(await manageRun(['reseal', '--ref', String(second)])).toMatchObject({ code: 0, errors: [] });
    const done = await requestRow(t, second);
    expect([done.status, done.sealError]).toEqual(['completed', null]);
    const root = await t.app.get(SealPkiService).rootCertificatePem();
    const verified = await runPdfVerifyAsync(await signedPdf(t, second), [
      root,
      readFileSync(join(dir, 'acme.pem'), 'utf8'),
    ]);
    expect(verified.problems).toEqual([]);
    // The archive timestamp (a document timestamp poppler cannot read) is checked by pdf-verify against the root.
    expect(verified.archives).toHaveLength(1);
    expect(verified.signatures.map((s) => [s.signer, s.valid, s.trusted])).toEqual([
      [SIGNERS[0].name, true, true],
      ['Org acme Document Seal', true, true],
    ]);
    // The CA the organisation brought is not this installation's to revoke.
    expect(await manageRun(['revoke-seal', '--org', 'acme', '--issuer'])).toMatchObject({
      code: 1,
      errors: [
        'The issuing CA of \'acme\' ("O=Acme Ltd, CN=Acme Corporate CA") was issued by "O=Acme Ltd, CN=Acme Corporate CA", not by this installation: ask that CA to revoke it.',
      ],
    });
  });

  it('revoking the issuing CA stops every signature it would certify; renew-seal gives new certificates', async () => {
    const first = await signOnce('beta');
    expect((await requestRow(t, first)).status).toBe('completed');
    const issuer = await issuerRow('beta');
    expect((await manageRun(['revoke-seal', '--org', 'beta', '--issuer', '--reason', 'cACompromise'])).code).toBe(0);

    const second = await signOnce('beta');
    const failed = await requestRow(t, second);
    expect((await partyRow(t, second, 1)).status).toBe('signing');
    expect(failed.sealError).toBe(
      revokedMessage('O=Org beta, 2.5.4.5=beta, CN=Org beta e-Sign Seal CA', serialOf(issuer)),
    );

    const renewed = await manageRun(['renew-seal', '--org', 'beta']);
    expect(renewed).toMatchObject({ code: 0, errors: [] });
    expect(renewed.lines[0]).toMatch(
      /^Organisation 'beta' now seals with "O=Org beta, 2\.5\.4\.5=beta, CN=Org beta Document Seal"/,
    );
    expect(await issuerRow('beta')).not.toBe(issuer);
    expect(await manageRun(['reseal', '--ref', String(second)])).toMatchObject({ code: 0, errors: [] });
    expect((await requestRow(t, second)).status).toBe('completed');
    const verified = await verifyPdf(t, await signedPdf(t, second));
    expect(verified.problems).toEqual([]);
    expect(verified.signatures.every((s) => s.valid && s.trusted)).toBe(true);
  });
});

describe('the sandbox ESP refuses to sign with a revoked certificate', () => {
  let t: TestApp;
  const AADHAAR = '23456789012' + verhoeffCheckDigit('23456789012');
  const signer = {
    name: 'Asha Rao',
    email: 'asha@example.in',
    phoneNumber: '+91 98765 43210',
    observer: false,
    signature_type: 'Aadhaar',
  };

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme');
  });
  afterAll(() => t.close());

  it("stops the eSign with the reason when its signer's certificate is revoked", async () => {
    const key = await orgApiKey(t, 'acme');
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'normal.pdf', otpRequired: false, recipients: [signer] },
      [{ order: 1, pageNo: [1] }],
    );
    const h = { 'x-sign-token': tokens[1] };
    const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
    const requestId = ref.body.request.requestId as string;
    await t.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'opened' }).expect(200);
    await t.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'signing' }).expect(200);
    const init = await t.http.get(`/v1/init/acme/${requestId}?method=0`).set(h).expect(200);

    const esp = (await t.app.get(EspKeys).sandbox()).esp.certPem;
    const lines: string[] = [];
    expect(
      await manage(['revoke-certificate', '--serial', serialOf(esp), '--reason', 'keyCompromise'], t.env, {
        out: (l) => lines.push(l),
        err: (l) => lines.push(l),
        readStdin: async () => '',
      }),
    ).toBe(0);

    const page = await t.http.post('/esp-sandbox/esign').type('form').send({ msg: init.body.fields.msg }).expect(200);
    const action = new URL(/action="([^"]+\/esp-sandbox\/session\/[A-Za-z0-9_-]{43})\/aadhaar"/.exec(page.text)![1])
      .pathname;
    await t.http
      .post(`${action}/aadhaar`)
      .type('form')
      .send({ consent: 'yes', aadhaar: AADHAAR, name: signer.name })
      .expect(200);
    const sms = await t.db
      .getRepository(OutboxMessageEntity)
      .findOne({ where: { kind: 'esp-otp' }, order: { id: 'DESC' } });
    const otp = /\b(\d{6})\b/.exec(sms!.text)![1];
    const refused = await t.http.post(`${action}/otp`).type('form').send({ otp });
    expect(refused.status).toBe(503);
    const text = new DOMParser().parseFromString(refused.text, 'text/html').documentElement?.textContent ?? '';
    expect(text).toContain(
      `The sandbox ESP cannot sign: ${revokedMessage('O=e-Sign Sandbox ESP (not for production), CN=Sandbox ESP', serialOf(esp))}`,
    );
    // Nothing reached the request.
    expect((await partyRow(t, refId, 1)).status).toBe('signing');
  });
});
