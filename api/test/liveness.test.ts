/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { Limits, RecipientMessages } from '@esign/contract';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { AuditService } from '../src/modules/audit/audit.service';
import { FaceMessages, FaceService } from '../src/modules/identity/face/face.service';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { faceVideoCache, makeFaceVideos, type FaceVideos } from './support/face-video';
import { readFixture } from './support/fixtures';
import { SIGNERS, type Recipient } from './support/requests';
import {
  drain,
  makePng,
  partyRow,
  requestRow,
  sendForSigning,
  signedPdf,
  SIGNATURE_PNG,
  verifyPdf,
} from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const [ASHA, VIKRAM] = SIGNERS;
const eSigner = (r: Recipient): Recipient => ({ ...r, observer: false, signature_type: 'e-Signature' });
const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const webm = (file: string) => dataUrl('video/webm;codecs=vp8', readFileSync(file));

describe('face capture and liveness, decided on the server (ONNX models, ffmpeg)', () => {
  let t: TestApp;
  let key: string;
  let videos: FaceVideos;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
    videos = await makeFaceVideos(faceVideoCache(), t.app.get(FaceService).run);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const setOrg = (settings: Record<string, unknown>) =>
    t.http.put('/api/organisations/acme').set('apikey', key).send(settings).expect(200);

  const signer = async (recipient: Recipient = ASHA) => {
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { recipients: [eSigner(recipient)], otpRequired: false, checkOrder: false },
      [{ order: 1, pageNo: [1] }],
    );
    const h = { 'x-sign-token': tokens[1] };
    const base = `acme/${refId}/1`;
    const requestId = (await t.http.get(`/v1/reference/${base}`).set(h).expect(200)).body.request.requestId as string;
    return {
      refId,
      requestId,
      details: (body: Record<string, unknown>) => t.http.post(`/v1/signer_details/${base}`).set(h).send(body),
      liveness: (body: Record<string, unknown>) => t.http.post(`/v1/liveness/acme/${requestId}`).set(h).send(body),
      livenessRaw: (text: string) =>
        t.http.post(`/v1/liveness/acme/${requestId}`).set(h).set('Content-Type', 'application/json').send(text),
      init: () => t.http.get(`/v1/init/acme/${requestId}?method=2`).set(h),
      sign: () =>
        t.http
          .post(`/v1/esignature/acme/${requestId}`)
          .set(h)
          .send({ file: dataUrl('image/png', SIGNATURE_PNG) }),
    };
  };
  const refusal = (res: { status: number; body: { error?: string; message?: string } }) => [
    res.status,
    res.body.error,
    res.body.message,
  ];

  it('keeps a selfie only with exactly one face: none on the cup, two side by side refused, the astronaut kept', async () => {
    // A new organisation asks for nothing, and its liveness threshold is 0.5 on every engine.
    const org = (await t.http.get('/api/organisations/acme').set('apikey', key).expect(200)).body;
    expect(org.settings).toMatchObject({ face_capture: false, live_video: false, live_video_threshold: 0.5 });
    await setOrg({ face_capture: true, live_video: false });
    const s = await signer();
    await s.details({ status: 'signing' }).expect(200);
    expect(refusal(await s.sign())).toEqual([400, 'SIGNING_REFUSED', RecipientMessages.faceNeeded]);

    for (const file of ['coffee.png', 'chelsea.png']) {
      const res = await s.details({ status: 'signing', selfie: dataUrl('image/png', readFixture('faces', file)) });
      expect(refusal(res)).toEqual([400, 'VALIDATION_FAILED', RecipientMessages.noFace]);
    }
    // Two faces: the astronaut's head and shoulders twice, side by side (a 400×220 PNG, as a selfie for two).
    const one = pngPixels(readFixture('faces', 'astronaut.png'));
    const two = makePng(400, 220, (x, y) => one(125 + (x % 200), 20 + y));
    const twice = await s.details({ status: 'signing', selfie: dataUrl('image/png', two) });
    expect(refusal(twice)).toEqual([400, 'VALIDATION_FAILED', RecipientMessages.manyFaces]);
    expect((await partyRow(t, s.refId, 1)).selfieKey).toBeNull();

    await s
      .details({ status: 'signing', selfie: dataUrl('image/png', readFixture('faces', 'astronaut.png')) })
      .expect(200);
    const row = await partyRow(t, s.refId, 1);
    expect(row.selfieKey).toMatch(/^[0-9a-f]{64}$/);
    expect(row.faceScore).toBeGreaterThan(0.9);
    const events = await t.app.get(AuditService).list(t.db.manager, 'acme', s.refId);
    expect(events.find((e) => e.type === 'party.face_captured')?.data).toMatchObject({ selfieSha256: row.selfieKey });
    await setOrg({ face_capture: false });
  });

  it('scores the blink video above the threshold and the still one below it; signing waits for a pass', async () => {
    await setOrg({ live_video: true, live_video_threshold: 0.5, face_capture: true });
    const s = await signer();
    await s
      .details({ status: 'signing', selfie: dataUrl('image/png', readFixture('faces', 'astronaut.png')) })
      .expect(200);
    expect(refusal(await s.init())).toEqual([400, 'SIGNING_REFUSED', RecipientMessages.livenessNeeded]);
    expect(refusal(await s.sign())).toEqual([400, 'SIGNING_REFUSED', RecipientMessages.livenessNeeded]);

    const still = await s.liveness({ video_file: webm(videos.still.webm) }).expect(200);
    expect(still.body).toMatchObject({ code: 400, passed: false, message: RecipientMessages.livenessFailed });
    expect(still.body.data.liveliness_score.value).toBeLessThan(0.5);
    expect(still.body.data).toMatchObject({ threshold: 0.5, blinks: 0 });
    expect(still.body.data.frames_with_face).toBe(still.body.data.frames);
    expect(refusal(await s.sign())).toEqual([400, 'SIGNING_REFUSED', RecipientMessages.livenessNeeded]);

    const cup = await s.liveness({ video_file: webm(videos.cup.webm) }).expect(200);
    expect(cup.body).toMatchObject({
      code: 400,
      passed: false,
      data: { liveliness_score: { value: 0 }, frames_with_face: 0 },
    });

    const blink = await s.liveness({ video_file: webm(videos.blink.webm) }).expect(200);
    await s.init().expect(200);
    expect(blink.body).toMatchObject({ code: 200, passed: true, message: 'success' });
    expect(blink.body.data.liveliness_score.value).toBeGreaterThan(0.5);
    expect(blink.body.data.blinks).toBeGreaterThanOrEqual(1);
    const row = await partyRow(t, s.refId, 1);
    expect(row.liveness).toMatchObject({ passed: true, threshold: 0.5, score: blink.body.data.liveliness_score.value });
    expect(row.livenessAttempts).toBe(3);

    const events = await t.app.get(AuditService).list(t.db.manager, 'acme', s.refId);
    expect(events.filter((e) => e.type.startsWith('party.liveness_')).map((e) => e.type)).toEqual([
      'party.liveness_failed',
      'party.liveness_failed',
      'party.liveness_passed',
    ]);

    // Signed: the certificate of completion shows the face thumbnail and the liveness result.
    await s.sign().expect(200);
    await drain(t);
    expect((await requestRow(t, s.refId)).status).toBe('completed');
    const pdf = await signedPdf(t, s.refId);
    const verified = await verifyPdf(t, pdf);
    expect(verified.problems).toEqual([]);
    expect(verified.ok).toBe(true);
    const work = mkdtempSync(join(tmpdir(), 'esign-cert-'));
    try {
      writeFileSync(join(work, 'signed.pdf'), pdf);
      const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [join(work, 'signed.pdf')]).toString())![1]);
      const certificate = execFileSync('pdftotext', [
        '-f',
        '2',
        '-l',
        String(pages),
        '-layout',
        join(work, 'signed.pdf'),
        '-',
      ])
        .toString()
        .replace(/\s+/g, ' ');
      expect(certificate).toContain('Face capture');
      const score = (blink.body.data.liveliness_score.value as number).toFixed(2);
      expect(certificate).toContain(`Liveness Passed · score ${score}, threshold 0.50`);
      // The thumbnail: an image on the certificate pages (the document's first page has none of its own).
      const images = execFileSync('pdfimages', ['-f', '2', '-l', String(pages), '-list', join(work, 'signed.pdf')])
        .toString()
        .split('\n')
        .slice(2)
        .filter((line) => line.trim());
      expect(images.length).toBeGreaterThanOrEqual(1);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    await setOrg({ live_video: false, face_capture: false });
  });

  it('a higher threshold fails the same blink; the threshold of the time is kept with the result', async () => {
    await setOrg({ live_video: true, live_video_threshold: 1 });
    const s = await signer(VIKRAM);
    await s.details({ status: 'signing' }).expect(200);
    const res = await s.liveness({ video_file: webm(videos.blink.webm) }).expect(200);
    expect(res.body).toMatchObject({ code: 400, passed: false, data: { threshold: 1 } });
    expect((await partyRow(t, s.refId, 1)).liveness).toMatchObject({ passed: false, threshold: 1 });
    await setOrg({ live_video: false, live_video_threshold: 0.5 });
  });

  it('refuses bad videos with a clear 4xx and nothing kept; bounds the attempts', async () => {
    await setOrg({ live_video: true, live_video_threshold: 0.5 });
    const s = await signer();
    await s.details({ status: 'signing' }).expect(200);
    for (const body of [
      {},
      { video_file: 42 },
      { video_file: 'not a data url' },
      { video_file: dataUrl('image/png', readFixture('faces', 'astronaut.png')) },
      // A video type with bytes that are not WebM or MP4.
      { video_file: dataUrl('video/webm', Buffer.from('hello, this is not a video at all')) },
    ]) {
      expect(refusal(await s.liveness(body))).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE', RecipientMessages.videoInvalid]);
    }
    // A WebM header followed by garbage: ffmpeg cannot read it.
    const broken = Buffer.concat([readFileSync(videos.blink.webm).subarray(0, 64), Buffer.alloc(4096, 7)]);
    expect(refusal(await s.liveness({ video_file: dataUrl('video/webm', broken) }))).toEqual([
      400,
      'VALIDATION_FAILED',
      RecipientMessages.videoUnreadable,
    ]);
    // Over the size limit: refused before any decoding.
    const huge = Buffer.concat([readFileSync(videos.blink.webm).subarray(0, 16), Buffer.alloc(Limits.videoMaxBytes)]);
    expect((await s.liveness({ video_file: dataUrl('video/webm', huge) })).status).toBe(413);
    expect((await s.livenessRaw('{"video_file": ')).status).toBe(400);
    expect((await partyRow(t, s.refId, 1)).liveness).toBeNull();

    // Each analysed video counts (the broken one did); at the limit the next is refused without work.
    const used = (await partyRow(t, s.refId, 1)).livenessAttempts;
    await t.db
      .getRepository(PartyEntity)
      .update({ refId: s.refId, order: 1 }, { livenessAttempts: Limits.livenessMaxAttempts });
    expect(used).toBe(1);
    expect(refusal(await s.liveness({ video_file: webm(videos.blink.webm) }))).toEqual([
      429,
      'TOO_MANY_ATTEMPTS',
      RecipientMessages.livenessTooMany,
    ]);
    await setOrg({ live_video: false });
  });

  it('refuses a liveness video when the organisation does not ask for one, or without a valid link', async () => {
    const s = await signer();
    await s.details({ status: 'signing' }).expect(200);
    expect(refusal(await s.liveness({ video_file: webm(videos.blink.webm) }))).toEqual([
      400,
      'SIGNING_REFUSED',
      RecipientMessages.livenessNotAsked,
    ]);
    const anonymous = await t.http
      .post(`/v1/liveness/acme/${s.requestId}`)
      .send({ video_file: webm(videos.blink.webm) });
    expect(anonymous.status).toBe(401);
    expect((await partyRow(t, s.refId, 1)).livenessAttempts).toBe(0);
  });

  it('answers 503 with a clear message when the server cannot decode videos, and does not count the attempt', async () => {
    const other = await startTestApp({ FFMPEG_PATH: '/nonexistent/ffmpeg' });
    try {
      await createOrgWithUser(other, 'acme', 'alice', 'alice-password');
      const otherKey = await orgApiKey(other, 'acme');
      await other.http.put('/api/organisations/acme').set('apikey', otherKey).send({ live_video: true }).expect(200);
      const { refId, tokens } = await sendForSigning(
        other,
        otherKey,
        'acme',
        { recipients: [eSigner(ASHA)], otpRequired: false, checkOrder: false },
        [{ order: 1, pageNo: [1] }],
      );
      const h = { 'x-sign-token': tokens[1] };
      const ref = await other.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
      await other.http.post(`/v1/signer_details/acme/${refId}/1`).set(h).send({ status: 'signing' }).expect(200);
      const res = await other.http
        .post(`/v1/liveness/acme/${ref.body.request.requestId}`)
        .set(h)
        .send({ video_file: webm(videos.blink.webm) });
      expect(refusal(res)).toEqual([503, 'UNAVAILABLE', FaceMessages.unavailable]);
      expect((await partyRow(other, refId, 1)).livenessAttempts).toBe(0);
    } finally {
      await other.close();
    }
  });
});

/** The pixels of a PNG fixture as paint(x, y) → RGBA. */
function pngPixels(bytes: Buffer): (x: number, y: number) => number[] {
  const png = PNG.sync.read(bytes);
  return (x, y) => {
    const i = (y * png.width + x) * 4;
    return [png.data[i], png.data[i + 1], png.data[i + 2], 255];
  };
}
