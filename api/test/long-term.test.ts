import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manage } from '../src/manage';
import { EspKeys } from '../src/modules/aadhaar/esp-keys.service';
import { OrganisationEntity } from '../src/modules/organisations/organisation.entity';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { signAadhaar } from './support/methods';
import { SIGNERS } from './support/requests';
import { drain, partyRow, requestRow, sendForSigning, signAs, signedPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const CLI = join(__dirname, '..', '..', 'cli', 'dist', 'index.js');
const YEAR_MS = 365 * 86_400_000;
const ASHA = { name: 'Asha Rao', email: 'asha.longterm@example.in', phoneNumber: '9876543210' };

/** The built esign-cli (npm test builds it before this suite), run on a file with the given CAs. */
function esignCliVerify(file: string, cas: string[], ...extra: string[]): { code: number | null; out: string } {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const home = mkdtempSync(join(tmpdir(), 'esign-longterm-home-'));
  try {
    const run = spawnSync(
      process.execPath,
      [CLI, 'verify', file, '--offline', ...cas.flatMap((ca) => ['--ca', ca]), ...extra],
      { env: { PATH: process.env.PATH ?? '', HOME: home, CI: 'true' }, encoding: 'utf8', timeout: 60_000 },
    );
    return { code: run.status, out: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Issue 19's proof that the evidence outlives the certificates: an Aadhaar eSign through the sandbox ESP (a 30-minute
 * certificate) still validates a year later by `esign-cli verify --at`, because its timestamp proves when it was made;
 * the same signature made without a timestamp (an organisation at B-B) does not. A development certificate revoked
 * through `manage` is reported as revoked by `esign-cli verify` once the archive carries fresh revocation data.
 */
describe('signed documents that stay verifiable', () => {
  let t: TestApp;
  let dir: string;
  const keys: Record<string, string> = {};
  const cas: string[] = [];

  /** One Aadhaar signer through the sandbox ESP on normal.pdf; the request completed; the file written. */
  const aadhaarSigned = async (orgId: string): Promise<{ refId: number; file: string }> => {
    const { refId, tokens } = await sendForSigning(
      t,
      keys[orgId],
      orgId,
      {
        fixture: 'normal.pdf',
        recipients: [{ ...ASHA, observer: false, signature_type: 'Aadhaar' }],
        otpRequired: false,
      },
      [{ order: 1, pageNo: [1] }],
    );
    await signAadhaar(t, { orgId, refId, order: 1, token: tokens[1], name: ASHA.name });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
    const file = join(dir, `${orgId}-${refId}.pdf`);
    writeFileSync(file, await signedPdf(t, refId));
    return { refId, file };
  };

  beforeAll(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'esign-longterm-'));
    for (const orgId of ['acme', 'plain']) {
      await createOrgWithUser(t, orgId, `${orgId}-admin`);
      keys[orgId] = await orgApiKey(t, orgId);
    }
    await t.db.getRepository(OrganisationEntity).update({ id: 'plain' }, { signatureLevel: 'B-B' });
    // The ESP's certificate lives 30 minutes from the test clock; the verifier's "today" is the real time.
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
    const root = join(dir, 'root.pem');
    writeFileSync(root, await t.app.get(SealPkiService).rootCertificatePem());
    const esp = join(dir, 'esp-ca.pem');
    writeFileSync(esp, (await t.app.get(EspKeys).sandbox()).ca.certPem);
    cas.push(root, esp);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('an Aadhaar eSign validates a year after its 30-minute certificate expired, with its timestamp; without, not', async () => {
    const at = new Date(Date.now() + YEAR_MS).toISOString().slice(0, 10);

    const timestamped = await aadhaarSigned('acme');
    expect((await partyRow(t, timestamped.refId, 1)).signatureLevel).toBe('B-T');
    const today = esignCliVerify(timestamped.file, cas);
    expect(today.out).toMatch(
      /^esign_party_1\s+Asha Rao\s+Aadhaar eSign\s+B-LTA\s+.*\(timestamp\)\s+ok\s+trusted\s+valid$/m,
    );
    expect(today.code).toBe(0);
    const later = esignCliVerify(timestamped.file, cas, '--at', at);
    expect(later.out).toMatch(/^ {2}esign_party_1: at .*: would still validate$/m);
    expect(later.out).toMatch(/^ {2}esign_party_1: revocation: 'Asha Rao' \(signer\): good \(OCSP, produced .*\)$/m);
    expect(later.code).toBe(0);

    const bare = await aadhaarSigned('plain');
    expect((await partyRow(t, bare.refId, 1)).signatureLevel).toBe('B-B');
    // Today the certificate still lives: valid.
    expect(esignCliVerify(bare.file, cas).code).toBe(0);
    const bareLater = esignCliVerify(bare.file, cas, '--at', at);
    expect(bareLater.out).toMatch(/^esign_party_1\s+Asha Rao\s+Aadhaar eSign\s+B-B\s+.*NOT VALID$/m);
    expect(bareLater.out).toMatch(
      /^ {2}esign_party_1: at .*: would NOT validate: the certificate 'Asha Rao' was not valid at .*, and no timestamp proves the signature existed earlier/m,
    );
    expect(bareLater.code).toBe(5);
  });

  it('a development certificate revoked through manage: the next signature fails; esign-cli verify reports it revoked', async () => {
    const { refId, tokens } = await sendForSigning(
      t,
      keys.acme,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');
    const quiet = { out: () => undefined, err: () => undefined, readStdin: async () => '' };
    expect(await manage(['revoke-seal', '--org', 'acme', '--reason', 'keyCompromise'], t.env, quiet)).toBe(0);

    // A new signature with the revoked seal fails, with the reason on the request.
    const next = await sendForSigning(
      t,
      keys.acme,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    await signAs(t, { orgId: 'acme', refId: next.refId, order: 1, token: next.tokens[1], email: SIGNERS[0].email });
    await drain(t);
    const refused = await requestRow(t, next.refId);
    expect(refused.status).toBe('in-progress');
    expect(refused.sealError).toMatch(
      /^The certificate "O=Org acme, .*CN=Org acme Document Seal" \(serial [0-9a-f]+\) has been revoked; nothing was signed with it\.$/,
    );

    // The archive renewed now carries the responder's fresh answer: revoked.
    expect(await manage(['renew-archive', '--ref', String(refId), '--force'], t.env, quiet)).toBe(0);
    const file = join(dir, `renewed-${refId}.pdf`);
    writeFileSync(file, await signedPdf(t, refId));
    const run = esignCliVerify(file, cas);
    expect(run.out).toMatch(
      /^ {2}esign_seal: revocation: 'Org acme Document Seal' \(signer\): revoked on .* \(OCSP, produced .*\)$/m,
    );
    // Revoked after the seal's timestamp proves it signed: the seal made before still holds (as PAdES validation has
    // it), and the report says both.
    expect(run.out).toMatch(
      /^esign_seal\s+Org acme Document Seal\s+organisation seal\s+B-LTA\s+.*\(timestamp\)\s+ok\s+trusted\s+valid$/m,
    );
    expect(run.code).toBe(0);
  });
});
