import { FaceModels, Headers } from '@esign/contract';
import type {
  FaceInference,
  Organisation,
  OrganisationSettings,
  ReferenceResponse,
  RequestListItem,
} from '@esign/contract';
import type { Page } from '@playwright/test';
import type { InferenceSession } from 'onnxruntime-node';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeFaceVideos } from '../../../api/test/support/face-video';
import type { FaceVideos } from '../../../api/test/support/face-video';
import { processDraft, repoRoot } from '../console';
import { DEMO, expect, fixture, sharedDir } from '../fixtures';

/**
 * Helpers of the face journeys (face.spec.ts): the fake camera recordings, a one-signer request, the organisation's
 * face settings, the signer's own calls and the signed PDF's checks.
 */

const modelsDir = path.join(repoRoot, 'api', 'models', 'face');
const videoSource = path.join(repoRoot, 'api', 'test', 'support', 'face-video.ts');

/** Where faceVideos() keeps the recordings (known before they are made: for a browser's launch options). */
export function faceVideoDir(): string {
  const key = createHash('sha256')
    .update(readFileSync(videoSource))
    .update(readFileSync(path.join(modelsDir, 'manifest.json')))
    .digest('hex')
    .slice(0, 12);
  return path.join(tmpdir(), `esign-face-videos-${key}`);
}

/** A recording's .y4m for --use-file-for-fake-video-capture (made by faceVideos()). */
export const faceCamera = (name: 'blink' | 'still' | 'cup'): string => path.join(faceVideoDir(), `${name}.y4m`);

/**
 * The three camera recordings of api/test/support/face-video.ts (blink, still, cup) as .y4m for Chromium's fake
 * camera: made once with onnxruntime-node on the API's models, kept in the system's temporary folder under a name
 * that changes with the generator and the models.
 */
export async function faceVideos(): Promise<FaceVideos> {
  const dir = faceVideoDir();
  // Sessions only when the files are missing (makeFaceVideos keeps the ones it finds).
  type Sessions = Record<'detector' | 'mesh', InferenceSession>;
  const opened: { sessions: Promise<Sessions> | null } = { sessions: null };
  const run: FaceInference = async (model, input, dims) => {
    const ort = await import('onnxruntime-node');
    opened.sessions ??= (async () => ({
      detector: await ort.InferenceSession.create(path.join(modelsDir, FaceModels.detector.file)),
      mesh: await ort.InferenceSession.create(path.join(modelsDir, FaceModels.mesh.file)),
    }))();
    const session = (await opened.sessions)[model];
    const outputs = await session.run({ [FaceModels[model].input]: new ort.Tensor('float32', input, [...dims]) });
    return Object.fromEntries(Object.entries(outputs).map(([name, t]) => [name, t.data as Float32Array]));
  };
  try {
    return await makeFaceVideos(dir, run);
  } finally {
    if (opened.sessions) await Promise.all(Object.values(await opened.sessions).map((s) => s.release()));
  }
}

export type FaceFlags = Pick<
  OrganisationSettings,
  | 'location_capture'
  | 'allow_signing_from_india'
  | 'face_capture'
  | 'esignature_face_capture'
  | 'aadhaar_face_capture'
  | 'live_video'
  | 'live_video_threshold'
>;

/** Changes the demo organisation's settings and answers a function that puts the previous values back. */
export async function orgSettings(page: Page, key: string, changes: Partial<FaceFlags>): Promise<() => Promise<void>> {
  const org = (await (
    await page.request.get(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key } })
  ).json()) as Organisation;
  const s = org.settings;
  const before: FaceFlags = {
    location_capture: s.location_capture,
    allow_signing_from_india: s.allow_signing_from_india,
    face_capture: s.face_capture,
    esignature_face_capture: s.esignature_face_capture,
    aadhaar_face_capture: s.aadhaar_face_capture,
    live_video: s.live_video,
    live_video_threshold: s.live_video_threshold,
  };
  const put = async (data: Partial<FaceFlags>) => {
    const res = await page.request.put(`/api/organisations/${DEMO.orgId}`, { headers: { apikey: key }, data });
    expect(res.status(), await res.text()).toBe(200);
  };
  await put(changes);
  return () => put(before);
}

export interface SignLink {
  refId: number;
  /** Path and query of the sign link. */
  link: string;
  /** The link token (sent as x-sign-token by the signer's own calls). */
  token: string;
  orgId: string;
  requestId: string;
  order: number;
}

/** A one-signer e-Signature request (no OTP) on normal.pdf, sent; its sign link. */
export async function oneSignerLink(page: Page, key: string, email: string): Promise<SignLink> {
  const up = await page.request.post('/v1/upload', {
    headers: { apikey: key },
    multipart: {
      data: JSON.stringify([
        { name: 'Kavya Nair', email, phoneNumber: '+91 9812345670', observer: false, signature_type: 'e-Signature' },
      ]),
      checkOrder: 'false',
      otpRequired: 'false',
      orgId: DEMO.orgId,
      file: { name: 'normal.pdf', mimeType: 'application/pdf', buffer: readFileSync(fixture('pdfs', 'normal.pdf')) },
    },
  });
  expect(up.status()).toBe(200);
  const { refId } = (await up.json()) as { refId: number };
  await processDraft(page, refId);
  const item = await requestItem(page, key, refId);
  const url = new URL(item.data[0].sign_url as string);
  const [, , orgId, , order] = url.pathname.split('/');
  const token = url.searchParams.get('token') as string;
  const reference = await page.request.get(`/v1/reference/${orgId}/${refId}/${order}`, {
    headers: { [Headers.signToken]: token },
  });
  expect(reference.status()).toBe(200);
  const { request } = (await reference.json()) as ReferenceResponse;
  return { refId, link: url.pathname + url.search, token, orgId, requestId: request.requestId, order: Number(order) };
}

export const requestItem = async (page: Page, key: string, refId: number): Promise<RequestListItem> =>
  (await (await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } })).json()) as RequestListItem;

/**
 * What the server says when this signer asks to start an e-Signature now (after accepting): null when it may, else
 * its message. Shows what the server holds for the party (a selfie, a passed liveness video) without the UI.
 */
export async function signingRefusal(page: Page, signer: SignLink): Promise<string | null> {
  const headers = { [Headers.signToken]: signer.token };
  const at = [signer.orgId, signer.refId, signer.order].map(encodeURIComponent).join('/');
  const accepted = await page.request.post(`/v1/signer_details/${at}`, { headers, data: { status: 'signing' } });
  expect(accepted.status(), await accepted.text()).toBe(200);
  const res = await page.request.get(`/v1/init/${encodeURIComponent(signer.orgId)}/${signer.requestId}?method=2`, {
    headers,
  });
  if (res.ok()) return null;
  return ((await res.json()) as { message?: string }).message ?? `HTTP ${res.status()}`;
}

interface VerifiedSignature {
  field: string;
  signer: string;
  valid: boolean;
  trusted: boolean;
}

/**
 * pdf-verify (../shared/tools) on a signed PDF, trusting the server's development root CA. `signatures` are the
 * signatures; the archive timestamps (document timestamps, which poppler's pdfsig cannot read: pdf-verify judges them
 * with OpenSSL, and `ok` says so) are in `archives`.
 */
export function verifySigned(pdf: Buffer): {
  ok: boolean;
  signatures: VerifiedSignature[];
  archives: VerifiedSignature[];
} {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR (the server's DATA_DIR, set by the global setup) is needed.");
  const verified = withPdf(
    pdf,
    (file) =>
      JSON.parse(
        execFileSync(
          path.join(sharedDir(), 'tools', 'pdf-verify'),
          [file, '--ca', path.join(dataDir, 'pki', 'dev-root-ca.pem')],
          { encoding: 'utf8' },
        ),
      ) as { ok: boolean; signatures: VerifiedSignature[] },
  );
  const archive = (s: VerifiedSignature) => s.field.startsWith('esign_archive_');
  return {
    ok: verified.ok,
    signatures: verified.signatures.filter((s) => !archive(s)),
    archives: verified.signatures.filter(archive),
  };
}

/** The images of a PDF by page (pdfimages -list): page number, width and height of each. */
export function pdfImages(pdf: Buffer): { page: number; width: number; height: number }[] {
  return withPdf(pdf, (file) =>
    execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length > 4 && /^\d+$/.test(cols[0]))
      .map((cols) => ({ page: Number(cols[0]), width: Number(cols[3]), height: Number(cols[4]) })),
  );
}

/** The text of pages `first` to the end (pdftotext -layout). */
export const pdfText = (pdf: Buffer, first = 1): string =>
  withPdf(pdf, (file) => execFileSync('pdftotext', ['-layout', '-f', String(first), file, '-'], { encoding: 'utf8' }));

export const pdfPages = (pdf: Buffer): number =>
  withPdf(pdf, (file) => Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1]));

function withPdf<T>(pdf: Buffer, use: (file: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'face-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Summary of the page's face timings (signer-web's user-timing measures 'face:load', 'face:detect' and 'face:frame'). */
export async function faceTimings(page: Page): Promise<Record<string, { count: number; median: number; p95: number }>> {
  return page.evaluate(() => {
    const out: Record<string, { count: number; median: number; p95: number }> = {};
    for (const name of ['face:load', 'face:detect', 'face:frame']) {
      const ms = performance
        .getEntriesByName(name)
        .map((e) => e.duration)
        .sort((a, b) => a - b);
      if (!ms.length) continue;
      const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] * 10) / 10;
      out[name] = { count: ms.length, median: at(0.5), p95: at(0.95) };
    }
    return out;
  });
}
