import { FaceModels, detectFaces, readFrame } from '@esign/contract';
import type { FaceBox, FaceImage, FaceInference, FrameReading } from '@esign/contract';
import type { InferenceSession } from 'onnxruntime-web';
// onnxruntime-web's WebAssembly build and, for threads (only when the page is cross-origin isolated), its glue
// script: emitted as this app's own assets (never a CDN), fetched only when a face step starts the engine.
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import glueUrl from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';

/**
 * The face models in the signer's browser: the API's own two ONNX files (served from /models/face/) run by
 * onnxruntime-web's wasm backend through the detection and blink code the API shares (@esign/contract face.ts).
 * Loaded on first use, once per page; the face steps use it for live feedback and to refuse a picture without a face
 * before it is sent. The server checks everything again and decides: a browser that cannot load the models only
 * loses the feedback.
 *
 * Timings are user-timing measures for benchmarks: 'face:load' (onnxruntime-web, its wasm and both models, to both
 * sessions ready), 'face:detect' (one detection on a picture: pixels, detector, decoding) and 'face:frame' (one
 * liveness frame: detection then FaceMesh), read with performance.getEntriesByName('face:frame').
 */

/** What the engine reads pixels from. */
export type FaceSource = HTMLVideoElement | HTMLImageElement | HTMLCanvasElement;

export interface FaceEngine {
  /** The two models, one run at a time. */
  run: FaceInference;
  /** The faces in the source's current picture; null while it has no picture yet. */
  detect(source: FaceSource): Promise<FaceBox[] | null>;
  /** One liveness frame: the faces, and the eye aspect ratio when there is exactly one; null without a picture. */
  read(source: FaceSource): Promise<FrameReading | null>;
}

/** Where the models are served (same origin: api/src/app.factory.ts serves api/models/face there). */
export const MODELS_PATH = '/models/face/';
/** Pixels are read at most this size (the camera's 640×480 stays as it is; a larger photo is scaled down). */
const MAX_SIDE = 640;

let loading: Promise<FaceEngine> | null = null;

/** The engine, loading onnxruntime-web and both models on the first call. A failed load is tried again next time. */
export function loadFaceEngine(): Promise<FaceEngine> {
  loading ??= createEngine().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

async function modelBytes(file: string): Promise<Uint8Array> {
  const response = await fetch(MODELS_PATH + file);
  if (!response.ok) throw new Error(`GET ${MODELS_PATH}${file}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function createEngine(): Promise<FaceEngine> {
  const loadStart = performance.now();
  const [ort, detectorBytes, meshBytes] = await Promise.all([
    import('onnxruntime-web/wasm'),
    modelBytes(FaceModels.detector.file),
    modelBytes(FaceModels.mesh.file),
  ]);
  // Threads need SharedArrayBuffer, which only a cross-origin isolated page (COOP and COEP headers) has; then the
  // threads start from the glue script. Otherwise one thread and the glue bundled in onnxruntime-web's own chunk.
  const threads = globalThis.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = threads > 1 ? { wasm: wasmUrl, mjs: glueUrl } : { wasm: wasmUrl };
  ort.env.logLevel = 'error';
  const options: InferenceSession.SessionOptions = {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
  const sessions = {
    detector: await ort.InferenceSession.create(detectorBytes, options),
    mesh: await ort.InferenceSession.create(meshBytes, options),
  };
  performance.measure('face:load', { start: loadStart, end: performance.now(), detail: { threads } });

  // One inference at a time: the preview loop and a capture may ask together.
  let queue: Promise<unknown> = Promise.resolve();
  const run: FaceInference = (model, input, dims) => {
    const next = queue.then(async () => {
      const outputs = await sessions[model].run({
        [FaceModels[model].input]: new ort.Tensor('float32', input, [...dims]),
      });
      return Object.fromEntries(Object.entries(outputs).map(([name, tensor]) => [name, tensor.data as Float32Array]));
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    run,
    detect: async (source) => {
      const start = performance.now();
      const image = pixels(source);
      if (!image) return null;
      const faces = await detectFaces(image, run);
      performance.measure('face:detect', { start, end: performance.now(), detail: { faces: faces.length } });
      return faces;
    },
    read: async (source) => {
      const start = performance.now();
      const image = pixels(source);
      if (!image) return null;
      const reading = await readFrame(image, run);
      performance.measure('face:frame', { start, end: performance.now(), detail: reading });
      return reading;
    },
  };
}

let canvas: HTMLCanvasElement | null = null;
let context: CanvasRenderingContext2D | null = null;

/** The source's current picture as RGBA bytes (at most MAX_SIDE), or null while it has none. */
export function pixels(source: FaceSource): FaceImage | null {
  const [w, h] =
    source instanceof HTMLVideoElement
      ? [source.videoWidth, source.videoHeight]
      : source instanceof HTMLImageElement
        ? [source.naturalWidth, source.naturalHeight]
        : [source.width, source.height];
  if (!w || !h || (source instanceof HTMLVideoElement && source.readyState < HTMLMediaElement.HAVE_CURRENT_DATA))
    return null;
  const scale = Math.min(1, MAX_SIDE / Math.max(w, h));
  const [width, height] = [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
  canvas ??= document.createElement('canvas');
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    context = null;
  }
  context ??= canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return null;
  context.drawImage(source, 0, 0, width, height);
  return { data: context.getImageData(0, 0, width, height).data, width, height, channels: 4 };
}

/** A data: URL (the captured JPEG) as a decoded image. */
export function loadImage(src: string): Promise<HTMLImageElement> {
  const image = new Image();
  image.src = src;
  return image.decode().then(() => image);
}
