import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentReport } from '@esign/verifier';
import { fixturePdf, startLtvPki, type LtvPki } from '../../api/verifier/test/support/ltv-pki';
import { runCli } from './support/api-server';

const YEAR = 365 * 86_400_000;

/**
 * esign-cli verify on documents signed at each PAdES level against OpenSSL's own TSA and OCSP responder (the
 * verifier's test PKI): the per-signature line (signer, method, level, time, status), --at, revocation, exit codes.
 */
describe('esign-cli verify: levels, timestamps, revocation and --at', () => {
  let pki: LtvPki;
  let dir: string;
  const files: Record<string, string> = {};
  const home = mkdtempSync(join(tmpdir(), 'esign-cli-verify-levels-home-'));
  const verify = (file: string, ...extra: string[]) =>
    runCli(['verify', files[file] ?? file, '--offline', '--ca', pki.caFile, ...extra], { home });

  beforeAll(async () => {
    pki = await startLtvPki();
    dir = mkdtempSync(join(tmpdir(), 'esign-cli-verify-levels-'));
    const aadhaar = await pki.issue('Asha Verma', 30);
    const original = fixturePdf('normal.pdf');
    const write = (name: string, bytes: Buffer) => {
      files[name] = join(dir, `${name}.pdf`);
      writeFileSync(files[name], bytes);
    };
    write('lta', await pki.sign(original, aadhaar.signer, 'B-LTA'));
    write('bare', await pki.addValidationData(await pki.sign(original, aadhaar.signer, 'B-B')));
    const revoked = await pki.issue('Rohan Mehta', 60);
    await pki.revoke(revoked.pem);
    write(
      'revoked',
      await pki.sign(original, revoked.signer, 'B-LT', {
        reason: 'Signed by Rohan Mehta with a DSC (Ref ID 1234567890)',
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await pki?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('prints a line per signature with its signer, method, level, time and status, and the document timestamp', () => {
    const run = verify('lta');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`${files.lta}: 1 signature, 1 document timestamp`);
    expect(lines[1]).toMatch(/^FIELD\s+SIGNER\s+METHOD\s+LEVEL\s+SIGNED AT\s+INTEGRITY\s+CHAIN\s+STATUS$/);
    expect(lines[2]).toMatch(
      /^esign_party_1\s+Asha Verma\s+Aadhaar eSign\s+B-LTA\s+\d{1,2} \w{3} \d{4}, \d{1,2}:\d\d [ap]m IST \(timestamp\)\s+ok\s+trusted\s+valid$/,
    );
    expect(run.stdout).toMatch(/^ {2}esign_party_1: timestamp .* by 'LTV Test TSA'$/m);
    expect(run.stdout).toMatch(/^ {2}esign_party_1: revocation: 'Asha Verma' \(signer\): good \(OCSP, produced .*\)$/m);
    expect(run.stdout).toMatch(/^document timestamp Timestamp_1: .* by 'LTV Test TSA', intact, chain trusted: valid$/m);
    expect(run.stdout).toMatch(/^dss: 4 certificates, 3 OCSP responses, 0 CRLs$/m);
    expect(run.stdout).toMatch(/^coverage: \d+ bytes after the newest signature hold only validation data \(DSS\)$/m);
    expect(lines.filter(Boolean).at(-1)).toBe('verified: every check passed');
  });

  it('--at a year later: the timestamped signature still validates (exit 0), the untimestamped one does not (exit 5)', () => {
    const at = new Date(Date.now() + YEAR).toISOString().slice(0, 10);
    const good = verify('lta', '--at', at);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(new RegExp(`^ {2}esign_party_1: at .*: would still validate$`, 'm'));

    const bad = verify('bare', '--at', at);
    expect(bad.code).toBe(5);
    expect(bad.stdout).toMatch(/^esign_party_1\s+Asha Verma\s+Aadhaar eSign\s+B-B\s+.*\s+ok\s+trusted\s+NOT VALID$/m);
    expect(bad.stdout).toMatch(
      /^ {2}esign_party_1: at .*: would NOT validate: the certificate 'Asha Verma' was not valid at .*, and no timestamp proves the signature existed earlier$/m,
    );
    expect(bad.stderr).toBe(
      `esign-cli: signature 'esign_party_1' (Asha Verma) would not validate at ${at}T00:00:00.000Z: ${
        /would NOT validate: (.*)$/m.exec(bad.stdout)![1]
      }\n`,
    );
    // Today the same file passes: the certificate still lives.
    expect(verify('bare').code).toBe(0);

    const jsonRun = runCli(['--json', 'verify', files.bare, '--offline', '--ca', pki.caFile, '--at', at], { home });
    expect(jsonRun.code).toBe(5);
    const json = JSON.parse(jsonRun.stdout) as DocumentReport & { ok: boolean };
    expect(json.ok).toBe(false);
    expect(json.at).toBe(`${at}T00:00:00.000Z`);
    expect(json.signatures[0]).toMatchObject({ level: 'B-B', method: 'Aadhaar eSign', at: { valid: false } });
  });

  it('reports a revoked certificate as revoked (exit 5)', () => {
    const run = verify('revoked');
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/^esign_party_1\s+Rohan Mehta\s+DSC\s+B-LT\s+.*NOT VALID$/m);
    expect(run.stdout).toMatch(
      /^ {2}esign_party_1: revocation: 'Rohan Mehta' \(signer\): revoked on .* \(OCSP, produced .*\)$/m,
    );
    expect(run.stderr).toMatch(
      /^esign-cli: signature 'esign_party_1' \(Rohan Mehta\) is not valid: the certificate 'Rohan Mehta' was revoked on /,
    );
  });

  it('refuses an --at that is not a date (exit 2)', () => {
    const run = verify('lta', '--at', 'next year');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'esign-cli: --at takes a date like 2027-01-31 or 2027-01-31T10:00:00Z (got "next year").\n',
    );
  });
});
