import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createHash, generateKeyPairSync, sign as signWith, X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { checkChain, checkCms, findSignatures } from '@esign/verifier';
import { callApi, sendRequest } from '@esign/test-support';
import { demoSessionKey, DEMO, REPO, runCli, startApi, type StartedApi } from './support/api-server';
import { sharedDir, signaturePngDataUrl } from './support/fixtures';

const PDFS = join(sharedDir(), 'fixtures', 'pdfs');

/**
 * pdfsig's verdict per signature, in its order: true when 'Signature is Valid.'. Unsigned fields are left out, and so
 * are document timestamps (poppler 22 prints 'Signature Type: unknown' for them and cannot verify them; the verifier
 * lists them apart, under documentTimestamps).
 */
function pdfsigVerdicts(file: string): { field: string; valid: boolean; wholeDocument: boolean; text: string }[] {
  const run = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  const out = `${run.stdout}${run.stderr}`;
  return out
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .filter((block) => /Signature Validation:/.test(block) && !/Signature Type: unknown/.test(block))
    .map((block) => ({
      field: /Signature Field Name: (.*)$/m.exec(block)?.[1].trim() ?? '',
      valid: /Signature Validation: Signature is Valid\./.test(block),
      wholeDocument: /Total document signed/.test(block),
      text: /Signature Validation: (.*)$/m.exec(block)?.[1] ?? '',
    }));
}

interface VerifyJson {
  ok: boolean;
  signatures: {
    field: string;
    signer: string | null;
    signedAt: string | null;
    integrity: 'ok' | 'BROKEN';
    chain: { status: string; reason: string | null };
    coversWholeFile: boolean;
  }[];
  documentTimestamps: { field: string; coversWholeFile: boolean; valid: boolean }[];
  coverage: { uncoveredBytes: number; uncovered: string };
  audit: { status: string; detail: string; refId: number | null };
  problems: string[];
}

const home = mkdtempSync(join(tmpdir(), 'esign-cli-verify-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('esign-cli verify against the shared fixtures: agrees with pdfsig', () => {
  const signed = readdirSync(PDFS)
    .filter((f) => f.endsWith('.pdf'))
    .filter((f) => pdfsigVerdicts(join(PDFS, f)).length > 0);

  it('finds the signed fixtures', () => {
    expect(signed).toEqual(expect.arrayContaining(['already_signed.pdf', 'already_signed_twice.pdf']));
  });

  it.each(readdirSync(PDFS).filter((f) => f.endsWith('.pdf')))(
    '%s: the same signatures, the same integrity verdicts',
    (name) => {
      const file = join(PDFS, name);
      const expected = pdfsigVerdicts(file);
      const run = runCli(['--json', 'verify', file, '--offline'], { home });
      if (run.code === 2) {
        // Not readable as a PDF by us: pdfsig must not find signatures in it either.
        expect(expected).toEqual([]);
        return;
      }
      const body = JSON.parse(run.stdout) as VerifyJson;
      expect(body.signatures.map((s) => [s.field, s.integrity === 'ok', s.coversWholeFile])).toEqual(
        expected.map((s) => [s.field, s.valid, s.wholeDocument]),
      );
      expect(run.code).toBe(expected.length && expected.every((s) => s.valid) ? 0 : 5);
    },
  );

  it('reads the signature dictionaries of an incremental file in order', () => {
    const sigs = findSignatures(readFileSync(join(PDFS, 'already_signed_twice.pdf')));
    expect(sigs.map((s) => s.field)).toEqual(['Signature1', 'Signature2']);
    expect(sigs[0].byteRange[0]).toBe(0);
    expect(sigs[1].byteRange[2] + sigs[1].byteRange[3]).toBe(
      readFileSync(join(PDFS, 'already_signed_twice.pdf')).length,
    );
  });
});

/** DER: a tag and its content (definite length). */
function der(tag: number, ...parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const len = body.length;
  const bytes: number[] = [];
  for (let rest = len; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from(len < 0x80 ? [tag, len] : [tag, 0x80 | bytes.length, ...bytes]), body]);
}
const oid = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const n of rest) {
    const groups = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return der(0x06, Buffer.from(out));
};
const utcTime = (d: Date) => der(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`));

type Kind = 'rsa' | 'rsa-pss' | 'p256' | 'p384';
const DIGEST: Record<Kind, { node: string; oid: string }> = {
  rsa: { node: 'sha256', oid: '2.16.840.1.101.3.4.2.1' },
  'rsa-pss': { node: 'sha256', oid: '2.16.840.1.101.3.4.2.1' },
  p256: { node: 'sha256', oid: '2.16.840.1.101.3.4.2.1' },
  p384: { node: 'sha384', oid: '2.16.840.1.101.3.4.2.2' },
};

const keyPair = (kind: Kind | 'ca') =>
  kind === 'rsa' || kind === 'rsa-pss'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: kind === 'p384' ? 'P-384' : 'P-256' });

/** A CA and a signer certificate it issued (of the given key type, valid `days`), made by openssl. */
function issue(kind: Kind, days = 1) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-cli-pki-'));
  try {
    const write = (name: string, key: ReturnType<typeof keyPair>['privateKey']) =>
      writeFileSync(join(dir, name), key.export({ type: 'pkcs8', format: 'pem' }));
    const ca = keyPair('ca');
    const leaf = keyPair(kind);
    write('ca.key', ca.privateKey);
    write('leaf.key', leaf.privateKey);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=Verify Test CA', '-days', '2', '-out', 'ca.pem');
    openssl('req', '-new', '-key', 'leaf.key', '-subj', '/CN=Priya Nair', '-out', 'leaf.csr');
    openssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      '0x0a1b',
      '-days',
      String(days),
      '-out',
      'leaf.pem',
    );
    return {
      ca: new X509Certificate(readFileSync(join(dir, 'ca.pem'))),
      leaf: Buffer.from(new X509Certificate(readFileSync(join(dir, 'leaf.pem'))).raw),
      pkcs8: Buffer.from(leaf.privateKey.export({ type: 'pkcs8', format: 'der' })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A detached CMS over `content` as a PAdES signer makes it: signed attributes (messageDigest, signingTime). */
function makeCms(kind: Kind, leafDer: Buffer, pkcs8: Buffer, content: Buffer, signingTime: Date): Buffer {
  const digest = DIGEST[kind];
  const attrs = [
    der(0x30, oid('1.2.840.113549.1.9.4'), der(0x31, der(0x04, createHash(digest.node).update(content).digest()))),
    der(0x30, oid('1.2.840.113549.1.9.5'), der(0x31, utcTime(signingTime))),
  ].sort(Buffer.compare);
  const signedAttrs = der(0x31, ...attrs);
  const key = { key: pkcs8, format: 'der' as const, type: 'pkcs8' as const };
  let signature: Buffer;
  let algorithm: Buffer;
  if (kind === 'rsa-pss') {
    signature = signWith('sha256', signedAttrs, { ...key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    const sha256 = der(0x30, oid(DIGEST.rsa.oid));
    const params = der(
      0x30,
      der(0xa0, sha256),
      der(0xa1, der(0x30, oid('1.2.840.113549.1.1.8'), sha256)),
      der(0xa2, der(0x02, Buffer.from([32]))),
    );
    algorithm = der(0x30, oid('1.2.840.113549.1.1.10'), params);
  } else if (kind === 'rsa') {
    signature = signWith('sha256', signedAttrs, key);
    algorithm = der(0x30, oid('1.2.840.113549.1.1.1'), Buffer.from([0x05, 0x00]));
  } else {
    signature = signWith(digest.node, signedAttrs, { ...key, dsaEncoding: 'der' });
    algorithm = der(0x30, oid(kind === 'p256' ? '1.2.840.10045.4.3.2' : '1.2.840.10045.4.3.3'));
  }
  // issuerAndSerialNumber from the certificate's TBS.
  const tbs = AsnConvert.parse(leafDer, Certificate).tbsCertificate;
  const issuerDer = Buffer.from(AsnConvert.serialize(tbs.issuer));
  const serial = der(0x02, Buffer.from(tbs.serialNumber));
  const signerInfo = der(
    0x30,
    der(0x02, Buffer.from([1])),
    der(0x30, issuerDer, serial),
    der(0x30, oid(digest.oid)),
    Buffer.concat([Buffer.from([0xa0]), signedAttrs.subarray(1)]),
    algorithm,
    der(0x04, signature),
  );
  const signedData = der(
    0x30,
    der(0x02, Buffer.from([1])),
    der(0x31, der(0x30, oid(digest.oid))),
    der(0x30, oid('1.2.840.113549.1.7.1')),
    der(0xa0, leafDer),
    der(0x31, signerInfo),
  );
  return der(0x30, oid('1.2.840.113549.1.7.2'), der(0xa0, signedData));
}

describe('the CMS check: RSA PKCS#1 v1.5, RSA-PSS, ECDSA P-256 and P-384; the chain at the signing time', () => {
  const content = [Buffer.from('%PDF-1.7 the first part '), Buffer.from(' and the part after /Contents')];

  it.each<Kind>(['rsa', 'rsa-pss', 'p256', 'p384'])(
    '%s: verifies, names the signer, reads signingTime',
    async (kind) => {
      const { ca, leaf, pkcs8 } = issue(kind);
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      const cms = makeCms(kind, leaf, pkcs8, Buffer.concat(content), at);
      const check = checkCms(cms, content);
      expect(check).toMatchObject({ error: null, digestMatches: true, signatureValid: true, signingTime: at });
      expect(check.digestAlgorithm).toBe(DIGEST[kind].node);
      expect(check.signer?.subject).toBe('CN=Priya Nair');
      expect(checkChain(check.signer!, check.certificates, [ca], at)).toMatchObject({ status: 'trusted' });
      expect(checkChain(check.signer!, check.certificates, [], at)).toMatchObject({ status: 'not checked' });

      // Other bytes: the digest no longer matches. A flipped signature byte: the signature fails.
      expect(checkCms(cms, [content[0], Buffer.from(' and another part after /Contents')])).toMatchObject({
        digestMatches: false,
      });
      const bad = Buffer.from(cms);
      bad[bad.length - 5] ^= 0x40;
      expect(checkCms(bad, content)).toMatchObject({ digestMatches: true, signatureValid: false });
    },
  );

  it('finds a chain untrusted under another CA, and a certificate expired at the signing time', () => {
    const { ca, leaf, pkcs8 } = issue('p256', 1);
    const other = issue('p256');
    const check = checkCms(makeCms('p256', leaf, pkcs8, Buffer.concat(content), new Date()), content);
    expect(checkChain(check.signer!, check.certificates, [other.ca], new Date())).toMatchObject({
      status: 'untrusted',
    });
    expect(checkChain(check.signer!, check.certificates, [ca], new Date(Date.now() + 3 * 86_400_000))).toMatchObject({
      status: 'untrusted',
      reason: expect.stringMatching(/^the certificate 'Priya Nair' was not valid at the signing time/),
    });
  });
});

describe('esign-cli verify end to end: a request signed and sealed by the built API', () => {
  let api: StartedApi;
  let key: string;
  let dir: string;
  let signedFile: string;
  let ca: string;
  let refId: number;

  const call = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    callApi(api.url, method, path, init);

  beforeAll(async () => {
    api = await startApi();
    dir = mkdtempSync(join(tmpdir(), 'esign-cli-verify-'));
    key = await demoSessionKey(api.url);
    const h = { apikey: key };
    const sent = await sendRequest(api.url, key, {
      orgId: DEMO.orgId,
      recipients: [
        {
          name: 'Ravi Kumar',
          email: 'ravi@example.in',
          phoneNumber: '9876543210',
          observer: false,
          signature_type: 'e-Signature',
        },
      ],
      pdf: { bytes: readFileSync(join(PDFS, 'normal.pdf')), filename: 'normal.pdf' },
      placement: () => ({ pageNo: [1] }),
    });
    refId = sent.refId;
    const token = sent.parties[0].token;

    const t = { 'x-sign-token': token };
    const base = `${DEMO.orgId}/${refId}/1`;
    const ref = await call('GET', `/v1/reference/${base}`, { headers: t });
    const requestId = ref.request.requestId as string;
    await call('POST', `/v1/signer_details/${base}`, {
      body: { status: 'opened', userAgent: { OS: 'Linux', Browser: 'Firefox 140' } },
      headers: t,
    });
    await call('POST', `/v1/signer_details/${base}`, { body: { status: 'signing' }, headers: t });
    await call('GET', `/v1/init/${DEMO.orgId}/${requestId}?method=2`, { headers: t });
    await call('POST', `/v1/esignature/${DEMO.orgId}/${requestId}`, {
      body: { file: signaturePngDataUrl() },
      headers: t,
    });

    let done: { request_status: string; data: { downloadUrl?: string }[] } | null = null;
    for (let i = 0; i < 300 && done?.request_status !== 'completed'; i++) {
      if (i) await new Promise((r) => setTimeout(r, 200));
      done = await call('GET', `/api/requests/${refId}`, { headers: h });
    }
    if (done?.request_status !== 'completed') throw new Error(`the request did not complete: ${JSON.stringify(done)}`);
    const url = done.data.map((p) => p.downloadUrl).find(Boolean) as string;
    const res = await fetch(new URL(url, api.url));
    if (!res.ok) throw new Error(`download answered ${res.status}`);
    signedFile = join(dir, 'signed.pdf');
    writeFileSync(signedFile, Buffer.from(await res.arrayBuffer()));
    ca = join(api.dataDir, 'pki', 'dev-root-ca.pem');
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const verify = (file: string, ...extra: string[]) =>
    runCli(['--url', api.url, '--key', key, ...extra, 'verify', file, '--ca', ca], { home });

  it('passes the signed file: every signature intact and trusted, the audit chain matches (exit 0)', () => {
    const run = verify(signedFile);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Ravi Kumar');
    expect(run.stdout).toMatch(/audit: matches/);

    const json = verify(signedFile, '--json');
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as VerifyJson;
    expect(body.ok).toBe(true);
    expect(body.signatures.length).toBeGreaterThanOrEqual(2);
    expect(body.signatures.every((s) => s.integrity === 'ok' && s.chain.status === 'trusted')).toBe(true);
    // At B-LTA (the default) the archive timestamp is the last revision: it, not the seal, covers the whole file.
    expect(body.signatures.some((s) => s.coversWholeFile)).toBe(false);
    expect(
      body.documentTimestamps.map((d) => [d.field.startsWith('esign_archive_'), d.coversWholeFile, d.valid]),
    ).toEqual([[true, true, true]]);
    expect(body.signatures.some((s) => s.signer === 'Ravi Kumar')).toBe(true);
    expect(body.coverage.uncoveredBytes).toBe(0);
    expect(body.audit).toMatchObject({ status: 'matches', refId });
    // pdfsig agrees: every signature valid.
    expect(pdfsigVerdicts(signedFile).map((s) => s.valid)).toEqual(body.signatures.map(() => true));
  });

  it('without --ca the chain is not checked, and that is no failure; --offline skips the audit trail', () => {
    const run = runCli(['--json', 'verify', signedFile, '--offline'], { home });
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as VerifyJson;
    expect(body.signatures.every((s) => s.chain.status === 'not checked' && s.chain.reason === 'no CA given')).toBe(
      true,
    );
    expect(body.audit.status).toBe('not checked');
  });

  it('fails a file changed inside the first signed revision (exit 5) and names the broken signature', () => {
    const bytes = readFileSync(signedFile);
    const first = findSignatures(bytes)[0];
    // A byte inside a content stream of the original document (covered by the first signature's /ByteRange).
    const text = bytes.toString('latin1');
    const stream = text.indexOf('stream', text.indexOf('/Length'));
    expect(stream).toBeGreaterThan(0);
    expect(stream).toBeLessThan(first.byteRange[1]);
    const tampered = Buffer.from(bytes);
    tampered[stream + 20] ^= 0x01;
    const file = join(dir, 'tampered.pdf');
    writeFileSync(file, tampered);

    const run = verify(file);
    expect(run.code).toBe(5);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^esign-cli: signature '${first.field}' \\(Ravi Kumar\\) is broken: the document changed after it was signed`,
      ),
    );
    const body = JSON.parse(verify(file, '--json').stdout) as VerifyJson;
    expect(body.signatures.every((s) => s.integrity === 'BROKEN')).toBe(true);
    // pdfsig says the same of every signature.
    expect(pdfsigVerdicts(file).every((s) => !s.valid)).toBe(true);
  });

  it('flags bytes appended after the last signature as modified after signing (exit 5), as pdfsig does', () => {
    const file = join(dir, 'appended.pdf');
    writeFileSync(file, Buffer.concat([readFileSync(signedFile), Buffer.from('\nsome garbage appended here\n')]));
    const run = verify(file, '--json');
    expect(run.code).toBe(5);
    const body = JSON.parse(run.stdout) as VerifyJson;
    expect(body.signatures.every((s) => s.integrity === 'ok' && !s.coversWholeFile)).toBe(true);
    expect(body.coverage).toMatchObject({ uncoveredBytes: 28, uncovered: 'not a PDF update' });
    expect(run.stderr).toMatch(
      /^esign-cli: the document was modified after signing: 28 bytes after document timestamp 'esign_archive_\w+' are not covered by any signature \(not a PDF update\)/,
    );
    // pdfsig: every signature still valid, and none "Total document signed".
    const pdfsig = pdfsigVerdicts(file);
    expect(pdfsig.map((s) => [s.valid, s.wholeDocument])).toEqual(body.signatures.map(() => [true, false]));
  });

  it('fails the audit check with a key of another organisation, which cannot see the request (404)', () => {
    const manage = (...args: string[]) =>
      execFileSync(process.execPath, [join(REPO, 'api', 'dist', 'manage.js'), ...args], {
        cwd: REPO,
        env: { ...process.env, DATA_DIR: api.dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
    manage('create-org', '--id', 'other-org', '--name', 'Other Org');
    const otherKey = manage('create-api-key', '--org', 'other-org', '--name', 'verify-test').trim().split('\n').at(-1)!;
    const run = runCli(['--url', api.url, '--key', otherKey, 'verify', signedFile, '--ca', ca], { home });
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/audit: MISMATCH: the API knows no request \d+ in this organisation/);
    expect(run.stderr).toBe(
      `esign-cli: the audit trail does not match: the API knows no request ${refId} in this organisation\n`,
    );
  });

  it('refuses a file that is not a PDF with exit 2 and one line', () => {
    const file = join(dir, 'notes.pdf');
    writeFileSync(file, 'just some text, not a PDF\n');
    const run = verify(file);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`esign-cli: ${file} is not a PDF\n`);
    expect(run.stdout).toBe('');
  });
});
