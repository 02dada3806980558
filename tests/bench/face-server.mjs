#!/usr/bin/env node
/**
 * npm run bench: the server's face inference per frame, as POST /v1/liveness does it (the built API's FaceService on
 * onnxruntime-node, frames decoded by ffmpeg). A 4.5-second 640×480 WebM of astronaut.png is made with ffmpeg, decoded
 * to the scorer's frames, and each frame read (BlazeFace, then FaceMesh on the face and the eye aspect ratio)
 * ROUNDS times. Reports the median and 95th percentile per frame against 40 ms, and the whole video's scoring time.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { record } from './report.mjs';
import { repoRoot } from './server.mjs';

const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
const shared = process.env.SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared');
const ROUNDS = Number(process.env.BENCH_FACE_ROUNDS ?? 3);
const TARGET_MS = 40;

const { FaceService } = require(path.join(repoRoot, 'api', 'dist', 'modules', 'identity', 'face', 'face.service.js'));
const { decodeVideoFrames } = require(path.join(repoRoot, 'api', 'dist', 'modules', 'identity', 'face', 'video.js'));

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-face-'));
try {
  const video = path.join(work, 'astronaut.webm');
  execFileSync('ffmpeg', [
    ...[
      '-hide_banner',
      '-loglevel',
      'error',
      '-loop',
      '1',
      '-i',
      path.join(shared, 'fixtures', 'faces', 'astronaut.png'),
    ],
    ...['-t', '4.5', '-r', '30', '-vf', 'scale=640:480:force_original_aspect_ratio=increase,crop=640:480'],
    ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1500k', '-pix_fmt', 'yuv420p', video],
  ]);
  const bytes = fs.readFileSync(video);
  const face = new FaceService({ faceModelsDir: path.join(repoRoot, 'api', 'models', 'face'), ffmpegPath: 'ffmpeg' });

  const frames = [];
  await decodeVideoFrames(bytes, async (frame) => void frames.push(frame));
  await face.readFrame(frames[0]); // loads the models (not counted)

  const times = [];
  let faces = 0;
  for (let round = 0; round < ROUNDS; round++)
    for (const frame of frames) {
      const started = performance.now();
      const reading = await face.readFrame(frame);
      times.push(performance.now() - started);
      faces += reading.faces === 1 ? 1 : 0;
    }
  const whole = [];
  for (let round = 0; round < ROUNDS; round++) whole.push((await face.scoreVideo(bytes)).ms);
  await face.onModuleDestroy();

  const median = percentile(times, 0.5);
  const p95 = percentile(times, 0.95);
  const ok = median < TARGET_MS;
  record({
    bench: 'face-server',
    measure: 'server face inference per frame (BlazeFace + FaceMesh + EAR, onnxruntime-node), median',
    value: median.toFixed(1),
    unit: 'ms',
    target: `< ${TARGET_MS} ms, one face in every frame`,
    ok: ok && faces === times.length,
    note: `p95 ${p95.toFixed(1)} ms; one face in ${faces}/${times.length} frames`,
  });
  record({
    bench: 'face-server',
    measure: `whole 4.5 s liveness video (ffmpeg decode to ${frames.length} frames + scoring), median`,
    value: percentile(whole, 0.5),
    unit: 'ms',
    note: `runs ${whole.join(', ')} ms`,
  });
  console.log(
    `\nServer face inference (onnxruntime-node ${require('onnxruntime-node/package.json').version}, ${os.cpus().length} cores)`,
  );
  console.log(
    `Per frame (BlazeFace + FaceMesh + EAR, ${frames.length} frames × ${ROUNDS}): median ${median.toFixed(1)} ms, ` +
      `p95 ${p95.toFixed(1)} ms (< ${TARGET_MS} ms ${ok ? 'ok' : 'MISS'}); one face found in ${faces}/${times.length}`,
  );
  console.log(
    `Whole 4.5 s video (ffmpeg decode to ${frames.length} frames + scoring): median ${percentile(whole, 0.5)} ms ` +
      `(runs ${whole.join(', ')} ms)`,
  );
  process.exitCode = ok && faces === times.length ? 0 : 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
