/**
 * Camera recordings made from the fixture photos, for the liveness tests (API) and Chromium's fake camera (e2e):
 *
 * - blink: astronaut.png framed as a selfie (640×480), 2 s at 30 fps, eyes open except six frames (200 ms) in the
 *   middle where both eyes are painted shut (skin colour over the eye, a dark lash line across), found with the same
 *   FaceMesh the product uses. Chromium loops a y4m, so every 4.5 s recording holds two blinks.
 * - still: the same frames with the eyes always open (a photo held up to the camera).
 * - cup: coffee.png framed the same way (no face).
 *
 * Each is written as .y4m (for --use-file-for-fake-video-capture) and .webm (VP8, as Chromium's MediaRecorder makes)
 * with Debian's ffmpeg.
 */
import { detectFaces, faceMesh, type FaceImage, type FaceInference } from '@esign/contract';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { fixturePath } from './fixtures';

export const VIDEO = { width: 640, height: 480, fps: 30, frames: 60, blinkAt: 27, blinkFrames: 6 } as const;

/** The eye outlines of FaceMesh (upper and lower lid, corner to corner). */
const EYE_OUTLINES = [
  [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7],
  [263, 466, 388, 387, 386, 385, 384, 398, 362, 382, 381, 380, 374, 373, 390, 249],
];

export interface FaceVideos {
  dir: string;
  blink: { y4m: string; webm: string };
  still: { y4m: string; webm: string };
  cup: { y4m: string; webm: string };
}

/** A photo framed as a 640×480 selfie: the region around `focus` (or the whole photo) scaled to cover the frame. */
function frame(photo: FaceImage, focus: { x: number; y: number; side: number } | null): FaceImage {
  const { width: W, height: H } = VIDEO;
  const region = focus
    ? { x: focus.x - focus.side * 0.667, y: focus.y - focus.side * 0.5, w: focus.side * 1.333, h: focus.side }
    : (() => {
        const scale = Math.max(W / photo.width, H / photo.height);
        const w = W / scale;
        const h = H / scale;
        return { x: (photo.width - w) / 2, y: (photo.height - h) / 2, w, h };
      })();
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const sx = Math.min(photo.width - 1, Math.max(0, Math.round(region.x + ((x + 0.5) * region.w) / W - 0.5)));
      const sy = Math.min(photo.height - 1, Math.max(0, Math.round(region.y + ((y + 0.5) * region.h) / H - 0.5)));
      for (let c = 0; c < 3; c++) data[(y * W + x) * 3 + c] = photo.data[(sy * photo.width + sx) * photo.channels + c];
    }
  return { data, width: W, height: H, channels: 3 };
}

function readPng(file: string): FaceImage {
  const png = PNG.sync.read(readFileSync(file));
  return { data: png.data, width: png.width, height: png.height, channels: 4 };
}

const inside = (poly: Array<[number, number]>, x: number, y: number) => {
  let hit = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
};

/** The frame with both eyes painted shut: each eye (outline grown a little) filled with the skin just below it. */
function shut(image: FaceImage, mesh: Float32Array): FaceImage {
  const data = new Uint8Array(image.data);
  const { width } = image;
  for (const outline of EYE_OUTLINES) {
    const pts = outline.map((i) => [mesh[i * 3], mesh[i * 3 + 1]] as [number, number]);
    const cx = pts.reduce((s, p) => s + p[0], 0) / pts.length;
    const cy = pts.reduce((s, p) => s + p[1], 0) / pts.length;
    const eyeWidth = Math.hypot(pts[0][0] - pts[8][0], pts[0][1] - pts[8][1]);
    const grown = pts.map(([x, y]) => [cx + (x - cx) * 1.35, cy + (y - cy) * 1.8] as [number, number]);
    const xs = grown.map((p) => p[0]);
    const ys = grown.map((p) => p[1]);
    const skinY = Math.round(Math.max(...ys) + eyeWidth * 0.25);
    const skin = [0, 1, 2].map((c) => {
      let sum = 0;
      for (let dx = -3; dx <= 3; dx++) sum += image.data[(skinY * width + Math.round(cx) + dx) * 3 + c];
      return sum / 7;
    });
    for (let y = Math.floor(Math.min(...ys)); y <= Math.ceil(Math.max(...ys)); y++)
      for (let x = Math.floor(Math.min(...xs)); x <= Math.ceil(Math.max(...xs)); x++) {
        if (!inside(grown, x + 0.5, y + 0.5)) continue;
        // The closed lid: skin, a little darker towards the lash line across the middle.
        const lash = Math.abs(y + 0.5 - (cy + eyeWidth * 0.08)) < Math.max(1, eyeWidth * 0.04);
        for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = lash ? 40 : skin[c] * 0.92;
      }
  }
  return { ...image, data };
}

function encode(frames: FaceImage[], base: string): { y4m: string; webm: string } {
  const raw = Buffer.concat(frames.map((f) => Buffer.from(f.data)));
  const input = ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${VIDEO.width}x${VIDEO.height}`];
  const common = ['-hide_banner', '-loglevel', 'error', '-y', ...input, '-r', String(VIDEO.fps), '-i', 'pipe:0'];
  const vp8 = ['-c:v', 'libvpx', '-b:v', '1500k', '-deadline', 'realtime', '-cpu-used', '8', '-auto-alt-ref', '0'];
  const out = { y4m: `${base}.y4m`, webm: `${base}.webm` };
  const jobs: Array<[file: string, args: string[]]> = [
    [out.y4m, ['-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe']],
    [out.webm, [...vp8, '-pix_fmt', 'yuv420p', '-f', 'webm']],
  ];
  for (const [file, args] of jobs) {
    // Written beside, then renamed: a run stopped half-way leaves no file that looks finished.
    const done = spawnSync('ffmpeg', [...common, ...args, `${file}.part`], { input: raw, maxBuffer: 1 << 20 });
    if (done.status !== 0) throw new Error(`ffmpeg failed: ${done.stderr?.toString() || done.error?.message}`);
    renameSync(`${file}.part`, file);
  }
  return out;
}

/** Writes the three recordings into `dir` (once; kept when present) and returns their paths. */
export async function makeFaceVideos(dir: string, run: FaceInference): Promise<FaceVideos> {
  mkdirSync(dir, { recursive: true });
  const paths: FaceVideos = {
    dir,
    blink: { y4m: join(dir, 'blink.y4m'), webm: join(dir, 'blink.webm') },
    still: { y4m: join(dir, 'still.y4m'), webm: join(dir, 'still.webm') },
    cup: { y4m: join(dir, 'cup.y4m'), webm: join(dir, 'cup.webm') },
  };
  if (Object.values(paths).every((p) => typeof p === 'string' || (existsSync(p.y4m) && existsSync(p.webm))))
    return paths;

  const astronaut = readPng(fixturePath('faces', 'astronaut.png'));
  const [face] = await detectFaces(astronaut, run);
  if (!face) throw new Error('no face found on astronaut.png');
  const open = frame(astronaut, {
    x: face.x + face.width / 2,
    y: face.y + face.height / 2,
    side: face.height * 2.2,
  });
  const [framed] = await detectFaces(open, run);
  if (!framed) throw new Error('no face found on the framed astronaut');
  const closed = shut(open, await faceMesh(open, framed, run));
  const blink = Array.from({ length: VIDEO.frames }, (_, i) =>
    i >= VIDEO.blinkAt && i < VIDEO.blinkAt + VIDEO.blinkFrames ? closed : open,
  );
  encode(blink, join(dir, 'blink'));
  encode(
    Array.from({ length: VIDEO.frames }, () => open),
    join(dir, 'still'),
  );
  const cup = frame(readPng(fixturePath('faces', 'coffee.png')), null);
  encode(
    Array.from({ length: VIDEO.frames }, () => cup),
    join(dir, 'cup'),
  );
  return paths;
}

/** The open and shut frames as PNG files (for looking at them, and for the selfie tests). */
export function pngOf(image: FaceImage): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  for (let i = 0; i < image.width * image.height; i++) {
    for (let c = 0; c < 3; c++) png.data[i * 4 + c] = image.data[i * image.channels + c];
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/**
 * Where the tests keep the recordings between runs (the API suite runs twice, then the e2e journeys): the system's
 * temporary folder, named by this file's version so a change to the recipe makes new ones.
 */
export function faceVideoCache(): string {
  const recipe = createHash('sha256').update(readFileSync(__filename)).digest('hex').slice(0, 12);
  return join(tmpdir(), `esign-face-videos-${recipe}`);
}
