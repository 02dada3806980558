import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manage } from '../src/manage';
import { AuditService } from '../src/modules/audit/audit.service';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { documentEvidence } from './support/evidence';
import { startOpenSslTsa, type OpenSslTsa } from './support/openssl-tsa';
import { runPdfVerifyAsync } from './support/pdf-verify';
import { SIGNERS } from './support/requests';
import { drain, partyRow, requestRow, sendForSigning, signAs, signedPdf, verifyPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/** The text of a PDF's last pages (the certificate of completion), by pdftotext. */
function lastPagesText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'esign-text-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', join(dir, 'in.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const io = () => {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l: string) => lines.push(l),
    err: (l: string) => errors.push(l),
    readStdin: async () => '',
  };
};

/**
 * Issue 19: no silent downgrade (a TSA that does not answer retries the seal; only an operator accepts less, audited),
 * timestamps from a TSA this project did not write (OpenSSL's), and the archive renewed before it expires.
 */
describe('the evidence of a signed document', () => {
  describe('when no timestamp authority answers', () => {
    let t: TestApp;
    let key: string;

    beforeAll(async () => {
      // A TSA address where nothing listens: every timestamp fails (connection refused).
      t = await startTestApp({ TSA_URLS: 'http://127.0.0.1:9/tsr', TSA_TIMEOUT_MS: '500' });
      await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
      key = await orgApiKey(t, 'acme');
    });
    afterAll(() => t.close());

    it('the seal is retried and never completes below B-LTA; an operator may accept B-B, which is audited and said', async () => {
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
        [{ order: 1, pageNo: [1] }],
      );
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      await drain(t);
      const waiting = await requestRow(t, refId);
      expect(waiting.status).toBe('in-progress');
      expect(waiting.sealError).toMatch(
        /^No timestamp authority answered with a valid token: http:\/\/127\.0\.0\.1:9\/tsr/,
      );
      expect((await partyRow(t, refId, 1)).signatureLevel).toBeNull();

      // An operator's reseal without accepting less fails the same way.
      const plain = io();
      expect(await manage(['reseal', '--ref', String(refId)], t.env, plain)).not.toBe(0);
      expect((await requestRow(t, refId)).status).toBe('in-progress');
      const wrong = io();
      expect(await manage(['reseal', '--ref', String(refId), '--accept-level', 'B-X'], t.env, wrong)).not.toBe(0);
      expect(wrong.errors.join(' ')).toContain('--accept-level is one of B-B, B-T, B-LT, B-LTA');

      // Accepting B-B: completed at B-B, and everything says so.
      const accepted = io();
      expect(await manage(['reseal', '--ref', String(refId), '--accept-level', 'B-B'], t.env, accepted)).toBe(0);
      expect(accepted.lines).toEqual([
        `Request ${refId}: 1 signature(s) applied, completed and sealed; status completed.`,
      ]);
      const done = await requestRow(t, refId);
      expect([done.status, done.evidenceLevel, done.archivedAt]).toEqual(['completed', 'B-B', null]);
      expect((await partyRow(t, refId, 1)).signatureLevel).toBe('B-B');
      const events = await t.app.get(AuditService).list(t.db.manager, 'acme', refId);
      const downgrades = events.filter((e) => e.type === 'signature.level_accepted').map((e) => e.data);
      expect(downgrades).toEqual([
        expect.objectContaining({ party: 1, required: 'B-LTA', reached: 'B-B' }),
        expect.objectContaining({ party: 'seal', required: 'B-LTA', reached: 'B-B' }),
      ]);
      expect(events.find((e) => e.type === 'request.completed')?.data).toMatchObject({ level: 'B-B' });

      const pdf = await signedPdf(t, refId);
      const verified = await verifyPdf(t, pdf);
      expect(verified.signatures.map((s) => [s.signer, s.valid, s.trusted])).toEqual([
        [SIGNERS[0].name, true, true],
        ['Org acme Document Seal', true, true],
      ]);
      const evidence = documentEvidence(pdf, await t.app.get(SealPkiService).rootCertificatePem());
      expect(evidence.signatures.map((s) => s.timestampVerified)).toEqual([null, null]);
      expect([evidence.dss, evidence.endsWithDocumentTimestamp]).toEqual([false, false]);
      expect(lastPagesText(pdf)).toContain('B-B: signed, with no trusted time and no revocation data');
      const metrics = await t.http.get('/metrics').expect(200);
      // The reseal ran in the manage command's process: the server's metrics count it all the same (read from the
      // database), as the operator's downgrades.
      expect(metrics.text).toMatch(/^esign_signature_downgrades\{scope="party"\} 1$/m);
      expect(metrics.text).toMatch(/^esign_signature_downgrades\{scope="document"\} 1$/m);
      expect(metrics.text).toMatch(/^esign_signature_levels\{scope="party",level="B-B"\} 1$/m);
      expect(metrics.text).toMatch(/^esign_signature_levels\{scope="document",level="B-B"\} 1$/m);
      expect(metrics.text).toMatch(/^esign_signature_levels\{scope="document",level="B-LTA"\} 0$/m);
    });
  });

  describe("with OpenSSL's own timestamp authority", () => {
    let t: TestApp;
    let key: string;
    let tsa: OpenSslTsa;

    beforeAll(async () => {
      tsa = await startOpenSslTsa();
      // The first TSA is down: the second (OpenSSL's) answers.
      t = await startTestApp({ TSA_URLS: `${tsa.downUrl},${tsa.url('good')}` });
      await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
      key = await orgApiKey(t, 'acme');
    });
    afterAll(async () => {
      await t.close();
      await tsa.close();
    });

    it('every signature and the archive carry its tokens, which OpenSSL verifies; the archive is renewed by manage', async () => {
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        {
          fixture: 'us_constitution.pdf',
          recipients: [SIGNERS[0], { ...SIGNERS[1], signature_type: 'e-Signature' }],
          otpRequired: false,
        },
        [
          { order: 1, pageNo: [1] },
          { order: 2, pageNo: [2] },
        ],
      );
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      await signAs(t, { orgId: 'acme', refId, order: 2, token: tokens[2], email: SIGNERS[1].email });
      await drain(t);
      const done = await requestRow(t, refId);
      expect([done.status, done.evidenceLevel]).toEqual(['completed', 'B-LTA']);
      const party = await partyRow(t, refId, 1);
      expect([party.signatureLevel, party.timestampTsa]).toEqual(['B-T', tsa.url('good')]);
      expect(done.archiveRenewAt).not.toBeNull();

      const root = await t.app.get(SealPkiService).rootCertificatePem();
      const pdf = await signedPdf(t, refId);
      // The tokens are OpenSSL's: verified against its test CA.
      const tsaCa = readFileSync(tsa.caPem, 'utf8');
      const evidence = documentEvidence(pdf, tsaCa);
      expect(evidence.signatures.map((s) => s.subFilter)).toEqual([
        'ETSI.CAdES.detached',
        'ETSI.CAdES.detached',
        'ETSI.CAdES.detached',
        'ETSI.RFC3161',
      ]);
      expect(evidence.signatures.map((s) => s.timestampVerified ?? s.documentTimestampVerified)).toEqual([
        true,
        true,
        true,
        true,
      ]);
      expect([evidence.dss, evidence.endsWithDocumentTimestamp]).toEqual([true, true]);
      const verified = await runPdfVerifyAsync(pdf, [tsaCa, root]);
      expect(verified.archives).toHaveLength(1);
      expect(verified.signatures.map((s) => [s.signer, s.valid, s.trusted])).toEqual([
        [SIGNERS[0].name, true, true],
        [SIGNERS[1].name, true, true],
        ['Org acme Document Seal', true, true],
      ]);

      // Renewal: not due for years, so only with --force; a new DSS and a second archive timestamp, the older
      // revisions untouched.
      const notDue = io();
      expect(await manage(['renew-archive', '--ref', String(refId)], t.env, notDue)).toBe(0);
      expect(notDue.lines[0]).toMatch(new RegExp(`^Request ${refId}: not renewed \\(not due before `));
      const forced = io();
      expect(await manage(['renew-archive', '--ref', String(refId), '--force'], t.env, forced)).toBe(0);
      expect(forced.lines[0]).toMatch(new RegExp(`^Request ${refId}: archive timestamp \\d{4}-`));
      const renewed = await signedPdf(t, refId);
      expect(renewed.subarray(0, pdf.length).equals(pdf)).toBe(true);
      const again = documentEvidence(renewed, tsaCa);
      expect(
        again.signatures.filter((s) => s.subFilter === 'ETSI.RFC3161').map((s) => s.documentTimestampVerified),
      ).toEqual([true, true]);
      expect(again.endsWithDocumentTimestamp).toBe(true);
      const events = await t.app.get(AuditService).list(t.db.manager, 'acme', refId);
      expect(events.filter((e) => e.type === 'request.archive_renewed')).toHaveLength(1);
      expect(t.app.get(AuditService).verifyChain(events)).toBeNull();
      // The seal service's request is still the same completed request.
      expect((await requestRow(t, refId)).status).toBe('completed');
    });
  });
});
