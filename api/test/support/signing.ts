import { execFileSync } from 'node:child_process';
import { makePng } from '@esign/test-support';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobsRunner } from '../../src/modules/jobs/jobs.runner';
import { OutboxMessageEntity } from '../../src/modules/notifications/outbox-message.entity';
import { PartyEntity } from '../../src/modules/requests/party.entity';
import { RequestEntity } from '../../src/modules/requests/request.entity';
import { runPdfVerifyAsync } from './pdf-verify';
import { SealPkiService } from '../../src/modules/signing/pki/seal-pki.service';
import { DocumentStorage } from '../../src/modules/storage/document-storage';
import { sharedDir } from './fixtures';
import { tokenOf, uploadOk, type UploadOptions } from './requests';
import type { TestApp } from './test-app';

/** An RGBA PNG drawn by `paint(x, y)` → [r, g, b, a]: a stand-in for what the signature pad sends. */
export { makePng };

/** A real JPEG no one here made: the smallest image of us_constitution.pdf (292×45), taken out by pdfimages. */
export function fixtureJpeg(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'esign-jpeg-'));
  try {
    execFileSync('pdfimages', ['-j', join(sharedDir(), 'fixtures', 'pdfs', 'us_constitution.pdf'), join(dir, 'img')]);
    const jpegs = readdirSync(dir)
      .filter((f) => f.endsWith('.jpg'))
      .map((f) => readFileSync(join(dir, f)))
      .sort((a, b) => a.length - b.length);
    if (!jpegs.length) throw new Error('us_constitution.pdf gave no JPEG');
    return jpegs[0];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A thick dark scribble on a transparent background, like a drawn signature. */
export const SIGNATURE_PNG = makePng(300, 100, (x, y) => {
  const onStroke = Math.abs(y - 50 - 35 * Math.sin(x / 22)) < 7 || (x > 30 && x < 270 && Math.abs(y - 80) < 4);
  return onStroke ? [20, 20, 120, 255] : [255, 255, 255, 0];
});

export const drain = (t: TestApp) => t.app.get(JobsRunner).drain();

/** The i-th of the numbered signers some suites send to (their name, e-mail and phone differ by i). */
export const numberedSigner = (i: number) => ({
  name: `Signer ${i}`,
  email: `signer${i}@example.in`,
  phoneNumber: `98765${String(i).padStart(5, '0')}`,
});
/** The same signer as an e-Signature recipient of /v1/upload. */
export const numberedRecipient = (i: number) => ({
  ...numberedSigner(i),
  observer: false,
  signature_type: 'e-Signature',
});

export interface Placement {
  order: number;
  pageNo?: number[];
  apply_all?: boolean;
  rectangle?: string;
}

/** Upload, place and process: answers the Ref ID and each invited party's link token. */
export async function sendForSigning(
  t: TestApp,
  key: string,
  orgId: string,
  upload: UploadOptions,
  placements: Placement[],
): Promise<{ refId: number; tokens: Record<number, string> }> {
  const up = await uploadOk(t, key, orgId, upload);
  await t.http
    .post('/v1/process')
    .set('apikey', key)
    .send({ orgId, data: placements.map((p) => ({ refId: up.refId, ...p })) })
    .expect(200);
  return { refId: up.refId, tokens: await tokensOf(t, key, orgId, up.refId) };
}

/** The live sign links staff see on the dashboard, by order. */
export async function tokensOf(t: TestApp, key: string, orgId: string, refId: number): Promise<Record<number, string>> {
  const list = await t.http.get(`/v1/request_all/${orgId}`).set('apikey', key).expect(200);
  const item = list.body.data.find((r: { refId: number }) => r.refId === refId);
  const tokens: Record<number, string> = {};
  for (const p of item.data as { order: number; sign_url: string | null }[])
    if (p.sign_url) tokens[p.order] = tokenOf(p.sign_url);
  return tokens;
}

/** The code of the latest OTP sent to an address (the dev outbox holds every message). */
export async function latestOtp(t: TestApp, to: string): Promise<string> {
  const msg = await t.db
    .getRepository(OutboxMessageEntity)
    .findOne({ where: { to, kind: 'otp' }, order: { id: 'DESC' } });
  const code = /\b(\d{6})\b/.exec(msg?.text ?? '')?.[1];
  if (!code) throw new Error(`no OTP was sent to ${to}`);
  return code;
}

export interface SignAs {
  orgId: string;
  refId: number;
  order: number;
  token: string;
  email: string;
  otp?: boolean;
  signature?:
    | { kind: 'drawn'; png?: Buffer }
    | { kind: 'uploaded'; image: Buffer; filename: string; contentType: string }
    | { kind: 'typed'; style: 'normal' | 'italic' };
  position?: { latitude: number; longitude: number };
}

/**
 * The recipient's whole path through the API: OTP, opened, accepted, method, signature. Answers the signer session
 * the OTP's verification opened (when there was one).
 */
export async function signAs(t: TestApp, s: SignAs): Promise<{ session: string | null }> {
  const h: Record<string, string> = { 'x-sign-token': s.token };
  const base = `${s.orgId}/${s.refId}/${s.order}`;
  const ref = await t.http.get(`/v1/reference/${base}`).set(h).expect(200);
  const requestId = ref.body.request.requestId as string;
  if (s.otp) {
    const sent = await t.http.get(`/v1/sendotp/${base}`).set(h).expect(200);
    const code = await latestOtp(t, s.email);
    const verified = await t.http.post(`/v1/verifyotp/${sent.body.userId}`).set(h).send({ otp: code }).expect(200);
    if (!verified.body.verify) throw new Error(`OTP not verified: ${JSON.stringify(verified.body)}`);
    // The signer session this verification opened: every later call of this signer carries it.
    h['x-signer-session'] = verified.body.session_token as string;
  }
  const geoLocation = s.position ? { lat: s.position.latitude, long: s.position.longitude } : undefined;
  await t.http
    .post(`/v1/signer_details/${base}`)
    .set(h)
    .send({ status: 'opened', userAgent: { OS: 'Android 14', Browser: 'Chrome 131' }, geoLocation })
    .expect(200);
  if (s.position)
    await t.http
      .post('/v1/get_location')
      .set(h)
      .send({ ...s.position, orgId: s.orgId })
      .expect(200);
  await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }).expect(200);
  await t.http.get(`/v1/init/${s.orgId}/${requestId}?method=2`).set(h).expect(200);
  const sig = s.signature ?? { kind: 'drawn' };
  const post = t.http.post(`/v1/esignature/${s.orgId}/${requestId}`).set(h);
  const res =
    sig.kind === 'typed'
      ? await post.send({ kind: 'typed', style: sig.style })
      : sig.kind === 'uploaded'
        ? await post
            .field('kind', 'uploaded')
            .attach('file', sig.image, { filename: sig.filename, contentType: sig.contentType })
        : await post.send({ file: `data:image/png;base64,${(sig.png ?? SIGNATURE_PNG).toString('base64')}` });
  if (res.status !== 200) throw new Error(`esignature answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { session: h['x-signer-session'] ?? null };
}

export async function requestRow(t: TestApp, refId: number): Promise<RequestEntity> {
  return t.db.getRepository(RequestEntity).findOneByOrFail({ refId });
}

export async function partyRow(t: TestApp, refId: number, order: number): Promise<PartyEntity> {
  return t.db.getRepository(PartyEntity).findOneByOrFail({ refId, order });
}

export async function signedPdf(t: TestApp, refId: number): Promise<Buffer> {
  const req = await requestRow(t, refId);
  if (!req.signedFileKey) throw new Error(`request ${refId} has no signed file`);
  return t.app.get(DocumentStorage).get(req.signedFileKey);
}

export interface Verified {
  ok: boolean;
  problems: string[];
  signatures: {
    field: string;
    signer: string;
    valid: boolean;
    trusted: boolean;
    signed: boolean;
    wholeDocument: boolean;
    validation: string;
    /** pdfsig's Signature Type: ETSI.CAdES.detached, or 'unknown' for a document timestamp (poppler 22). */
    type?: string;
    /** pdfsig's 'Certificate Validation' line ('Certificate is Trusted.', 'Certificate has been Revoked.', …). */
    certificate: string;
  }[];
  /** The archive timestamps (fields esign_archive_…), in file order: pdfsig cannot read them (see signatures). */
  archives: Verified['signatures'];
  qpdf: { exitCode: number; warnings: string[]; newWarnings: string[] };
  /** pdf-verify's own reading of the long-term evidence. */
  evidence?: {
    dss: boolean;
    signatures: {
      index: number;
      kind: string;
      timestampToken?: boolean;
      imprintMatches?: boolean;
      chainVerified?: boolean;
    }[];
  };
}

/**
 * The shared pdf-verify tool (pdfsig trusting the development root CA, and `caPem` too when given; qpdf's errors), and
 * qpdf's warnings compared with the original's (support/pdf-verify.ts); the archive timestamps in `archives`, checked
 * with OpenSSL against the development root that certifies the built-in TSA.
 */
export async function verifyPdf(t: TestApp, pdf: Buffer, original?: Buffer, caPem?: string): Promise<Verified> {
  const root = await t.app.get(SealPkiService).rootCertificatePem();
  return runPdfVerifyAsync(pdf, caPem && caPem !== root ? [root, caPem] : [root], original);
}

/** One page rendered grey by pdftoppm: width, height and one byte per pixel. */
export function renderPage(pdf: Buffer, page: number, dpi: number): { width: number; height: number; pixels: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'esign-render-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', [
      '-gray',
      '-r',
      String(dpi),
      '-f',
      String(page),
      '-l',
      String(page),
      '-singlefile',
      join(dir, 'in.pdf'),
      join(dir, 'out'),
    ]);
    const pgm = readFileSync(join(dir, 'out.pgm'));
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.toString('latin1', 0, 64));
    if (!header) throw new Error('pdftoppm did not write a PGM');
    const [, w, h] = header.map(Number);
    return { width: w, height: h, pixels: pgm.subarray(header[0].length) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function pageCount(pdf: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'esign-info-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const info = execFileSync('pdfinfo', [join(dir, 'in.pdf')], { encoding: 'utf8' });
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
