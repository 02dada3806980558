import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import { findSignatures, signatureMethod, verifyDocument, type DocumentReport } from '../src';
import { checkCms } from '../src/cms';
import { fixturePdf, startLtvPki, type IssuedSigner, type LtvPki } from './support/ltv-pki';

const YEAR = 365 * 86_400_000;

describe('PAdES levels, timestamps, revocation data and --at, on documents signed against OpenSSL’s TSA and OCSP', () => {
  let pki: LtvPki;
  let short: IssuedSigner;
  let work: string;
  const docs: Record<string, Buffer> = {};
  const verify = (bytes: Buffer, at?: Date): DocumentReport => verifyDocument(bytes, [pki.ca], true, { at });

  beforeAll(async () => {
    pki = await startLtvPki();
    work = mkdtempSync(join(tmpdir(), 'esign-verifier-levels-'));
    // An Aadhaar-like signer certificate: it lives 30 minutes.
    short = await pki.issue('Asha Verma', 30);
    const original = fixturePdf('normal.pdf');
    for (const level of ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const)
      docs[level] = await pki.sign(original, short.signer, level);
    docs['B-LT crl'] = await pki.sign(original, short.signer, 'B-LT', { revocation: 'crl' });
    // The same certificate, no timestamp, but the DSS (certificates and OCSP responses) added afterwards.
    docs['B-B dss'] = await pki.addValidationData(docs['B-B']);
  }, 120_000);
  afterAll(async () => {
    await pki?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.each([
    ['B-B', 'B-B', ['no signature timestamp']],
    [
      'B-T',
      'B-T',
      ['the document has no DSS (validation data)', "the file carries no revocation data for 'Asha Verma'"],
    ],
    ['B-LT', 'B-LT', ['no document timestamp covers it']],
    ['B-LTA', 'B-LTA', []],
  ])('a %s signature is reported as %s', (name, level, missing) => {
    const report = verify(docs[name]);
    expect(report.problems).toEqual([]);
    expect(report.signatures).toHaveLength(1);
    const [sig] = report.signatures;
    expect(sig).toMatchObject({
      field: 'esign_party_1',
      signer: 'Asha Verma',
      method: 'Aadhaar eSign',
      refId: 1234567890,
      intact: true,
      level,
      valid: true,
      chain: { status: 'trusted' },
    });
    expect(sig.levelMissing).toEqual(expect.arrayContaining(missing));
    if (name === 'B-B') {
      expect(sig.timestamp).toBeNull();
      // The claimed time (@libpdf/core writes a signingTime attribute), nothing proves it.
      expect(sig.signedAtSource).toBe('signingTime');
    } else {
      expect(sig.timestamp).toMatchObject({
        tsa: 'LTV Test TSA',
        imprintMatches: true,
        signatureValid: true,
        timestampUsage: true,
        chain: { status: 'trusted' },
        problem: null,
      });
      expect(sig.signedAtSource).toBe('timestamp');
      expect(sig.signedAt).toBe(sig.timestamp!.time);
    }
    if (name === 'B-LT' || name === 'B-LTA') {
      expect(report.dss).toMatchObject({ present: true, crls: 0 });
      expect(sig.revocation.map((r) => [r.subject, r.role, r.status, r.source, r.verified])).toEqual([
        ['Asha Verma', 'signer', 'good', 'OCSP', true],
        ['LTV Test TSA', 'TSA', 'good', 'OCSP', true],
      ]);
      expect(sig.revocation[0].producedAt).toEqual(expect.any(String));
      // The DSS revision after the signature (and after the document timestamp) is validation data, not a change.
      expect(report.coverage).toMatchObject({ uncovered: 'validation data', problems: [] });
    } else expect(report.dss.present).toBe(false);
    if (name === 'B-LTA') {
      expect(report.documentTimestamps).toHaveLength(1);
      expect(report.documentTimestamps[0]).toMatchObject({
        tsa: 'LTV Test TSA',
        intact: true,
        imprintMatches: true,
        signatureValid: true,
        chain: { status: 'trusted' },
        valid: true,
      });
      expect(report.documentTimestamps[0].revocation.map((r) => [r.subject, r.status])).toEqual([
        ['LTV Test TSA', 'good'],
      ]);
    } else expect(report.documentTimestamps).toEqual([]);
  });

  it('reads revocation data from a CRL as well as from OCSP', () => {
    const [sig] = verify(docs['B-LT crl']).signatures;
    expect(sig.level).toBe('B-LT');
    expect(sig.revocation.map((r) => [r.subject, r.status, r.source, r.verified])).toEqual([
      ['Asha Verma', 'good', 'CRL', true],
      ['LTV Test TSA', 'good', 'CRL', true],
    ]);
  });

  it('agrees with openssl ts -verify on the signature timestamp and the document timestamp', () => {
    const bytes = docs['B-LTA'];
    const [sig, docTs] = findSignatures(bytes);
    const cms = checkCms(sig.cms, []);
    const tokenFile = join(work, 'sig-ts.der');
    writeFileSync(tokenFile, cms.timestampTokens[0]);
    const digest = createHash('sha256').update(cms.signatureValue!).digest('hex');
    const tsVerify = (...args: string[]) =>
      execFileSync('openssl', ['ts', '-verify', '-token_in', '-CAfile', pki.caFile, ...args], { encoding: 'utf8' });
    expect(tsVerify('-in', tokenFile, '-digest', digest)).toMatch(/Verification: OK/);
    const [o1, l1, o2, l2] = docTs.byteRange;
    writeFileSync(join(work, 'covered.bin'), Buffer.concat([bytes.subarray(o1, o1 + l1), bytes.subarray(o2, o2 + l2)]));
    writeFileSync(join(work, 'doc-ts.der'), docTs.cms);
    expect(tsVerify('-in', join(work, 'doc-ts.der'), '-data', join(work, 'covered.bin'))).toMatch(/Verification: OK/);
  });

  it('a 30-minute certificate verifies --at one year later when timestamped, and fails without the timestamp', () => {
    const at = new Date(Date.now() + YEAR);
    const timestamped = verify(docs['B-LTA'], at);
    expect(timestamped.at).toBe(at.toISOString());
    const [sig] = timestamped.signatures;
    expect(sig.at).toMatchObject({ valid: true, reasons: [], provenAt: sig.timestamp!.time });
    expect(timestamped.documentTimestamps[0].at).toMatchObject({ valid: true });
    expect(timestamped.problems).toEqual([]);

    // The same certificate without a timestamp: nothing proves the signature existed while the certificate lived.
    const untimestamped = verify(docs['B-B dss'], at);
    const [bare] = untimestamped.signatures;
    expect(bare.level).toBe('B-B');
    expect(untimestamped.dss.present).toBe(true);
    expect(bare.revocation.map((r) => [r.subject, r.status])).toEqual([['Asha Verma', 'good']]);
    expect(bare.at).toMatchObject({ valid: false, provenAt: null });
    expect(bare.at!.reasons).toEqual([
      expect.stringMatching(
        /^the certificate 'Asha Verma' was not valid at \d{4}-\d\d-\d\dT[\d:.]+Z \(.* to .*\), and no timestamp proves the signature existed earlier$/,
      ),
    ]);
    expect(bare.valid).toBe(false);
    expect(untimestamped.problems).toEqual([
      expect.stringMatching(
        /^signature 'esign_party_1' \(Asha Verma\) would not validate at .*: the certificate 'Asha Verma' was not valid/,
      ),
    ]);
    // Today both validate: the certificate still lives.
    expect(verify(docs['B-B dss'], new Date()).signatures[0].at).toMatchObject({ valid: true });

    // A timestamp without revocation data in the file (B-T) is not enough either.
    const [bt] = verify(docs['B-T'], at).signatures;
    expect(bt.at!.valid).toBe(false);
    expect(bt.at!.reasons).toContain("the file carries no revocation data for 'Asha Verma'");
  });

  it('reports a revoked certificate in the DSS as revoked, and the signature as not valid', async () => {
    const revoked = await pki.issue('Rohan Mehta', 60);
    await pki.revoke(revoked.pem);
    const report = verify(await pki.sign(fixturePdf('normal.pdf'), revoked.signer, 'B-LT'));
    const [sig] = report.signatures;
    expect(sig.intact).toBe(true);
    expect(sig.revocation[0]).toMatchObject({
      subject: 'Rohan Mehta',
      role: 'signer',
      status: 'revoked',
      source: 'OCSP',
      verified: true,
      revokedAt: expect.any(String),
    });
    expect(sig.valid).toBe(false);
    expect(report.problems).toEqual([
      expect.stringMatching(
        /^signature 'esign_party_1' \(Rohan Mehta\) is not valid: the certificate 'Rohan Mehta' was revoked on /,
      ),
    ]);
  });

  it('finds a tampered file not intact: the signature and the document timestamp', () => {
    const bytes = Buffer.from(docs['B-LTA']);
    const [first] = findSignatures(bytes);
    const text = bytes.toString('latin1');
    const stream = text.indexOf('stream', text.indexOf('/Length'));
    expect(stream).toBeLessThan(first.byteRange[1]);
    bytes[stream + 20] ^= 0x01;
    const report = verify(bytes);
    expect(report.signatures[0]).toMatchObject({
      intact: false,
      integrity: 'BROKEN',
      integrityProblem: 'the document changed after it was signed',
      level: null,
      valid: false,
    });
    expect(report.documentTimestamps[0]).toMatchObject({ intact: false, imprintMatches: false, valid: false });
    expect(report.problems).toEqual([
      "signature 'esign_party_1' (Asha Verma) is broken: the document changed after it was signed",
      expect.stringMatching(/^document timestamp 'Timestamp_1': it is broken: its timestamp token is not over/),
    ]);
  });

  it('still calls an update after the document timestamp that is not validation data a modification', async () => {
    const doc = await PDF.load(docs['B-LTA']);
    doc.setTitle('changed after the archive timestamp');
    const changed = Buffer.from(await doc.save({ incremental: true }));
    const report = verify(changed);
    expect(report.coverage.uncovered).toBe('incremental update');
    expect(report.problems).toEqual([
      expect.stringMatching(
        /^the document was modified after signing: \d+ bytes after document timestamp 'Timestamp_1' are an unsigned incremental update$/,
      ),
    ]);
  });
});

describe('a damaged file', () => {
  let pki: LtvPki;
  let doc: Buffer;
  beforeAll(async () => {
    pki = await startLtvPki();
    const signer = await pki.issue('Asha Verma', 30);
    doc = await pki.sign(fixturePdf('normal.pdf'), signer.signer, 'B-LTA');
  }, 120_000);
  afterAll(() => pki?.stop());

  it('is reported, never thrown: 60 seeded changes inside the signatures, the timestamps and the DSS', () => {
    // A small seeded generator (mulberry32), so a failure can be replayed.
    let seed = 19;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const text = doc.toString('latin1');
    const regions: [number, number][] = findSignatures(doc).map((s) => [
      s.byteRange[1] + 1,
      s.byteRange[1] + 1 + s.cms.length * 2,
    ]);
    const dss = text.lastIndexOf('/Type /DSS');
    regions.push([text.lastIndexOf('%%EOF', dss), doc.length]);
    for (let i = 0; i < 60; i++) {
      const [from, to] = regions[i % regions.length];
      const at = from + Math.floor(random() * (to - from));
      const damaged = Buffer.from(doc);
      const hex = /[0-9A-Fa-f]/.test(String.fromCharCode(damaged[at]));
      damaged[at] = hex ? '0123456789ABCDEF'.charCodeAt(Math.floor(random() * 16)) : Math.floor(random() * 256);
      let report: DocumentReport | undefined;
      expect(
        () => (report = verifyDocument(damaged, [pki.ca], true, { at: new Date(Date.now() + YEAR) })),
      ).not.toThrow();
      expect(report!.signatures.length + report!.documentTimestamps.length).toBeGreaterThan(0);
    }
  });
});

describe('the signing method, from the signature dictionary', () => {
  it.each([
    ['Signed by Asha Verma with Aadhaar eSign (Ref ID 1234567890)', 'Aadhaar eSign'],
    ['Signed by Asha Verma with a DSC (Ref ID 1234567890)', 'DSC'],
    ['Signed by Asha Verma with an electronic signature (Ref ID 1234567890)', 'e-Signature'],
    ['Sealed by Demo Org: every party has signed (Ref ID 1234567890)', 'organisation seal'],
    ['I approve this document', null],
  ])('%s → %s', (reason, method) => {
    expect(signatureMethod(reason, 'Asha Verma')).toBe(method);
  });
});
