/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { type GraphModel, loadGraphModel } from '@tensorflow/tfjs-converter';
import * as ort from 'onnxruntime-node';
import { PNG } from 'pngjs';
import { fixturePath } from '../../../../test/support/fixtures';

// The converter and the build helpers are plain CommonJS scripts (api/scripts/face-models), run by node directly.
type ConvertOptions = {
  modelJson: unknown;
  weightsBuffer: Buffer;
  inputName?: string;
  outputs: Record<string, string>;
};
type GraphModelJson = {
  format: string;
  modelTopology: object;
  signature?: object;
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
};
/* eslint-disable @typescript-eslint/no-require-imports */
const { convertGraphModel } = require('../../../../scripts/face-models/tfjs-to-onnx') as {
  convertGraphModel: (options: ConvertOptions) => Buffer;
};
const { loadHumanFacemesh, FACEMESH_OUTPUTS } = require('../../../../scripts/face-models/build') as {
  loadHumanFacemesh: () => { modelJson: GraphModelJson; weightsBuffer: Buffer };
  FACEMESH_OUTPUTS: Record<'mesh' | 'faceflag' | 'contours', string>;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const SIZE = 192;
const NAMES = ['mesh', 'faceflag', 'contours'] as const;
type Outputs = Record<(typeof NAMES)[number], Float32Array>;
// Max abs difference ONNX vs TF.js (measured: mesh and contours ~1.1e-4 px, faceflag < 1e-7).
const TOLERANCE: Record<keyof Outputs, number> = {
  mesh: 1e-3,
  contours: 1e-3,
  faceflag: 1e-5,
};
// The astronaut's face in astronaut.png (512x512): a square crop with margin, as BlazeFace's enlarged box would give.
const FACE_CROP = { x: 127, y: 25, size: 190 };

/** Deterministic values in [0, 1) (a linear congruential generator). */
function pseudoRandom(n: number, seed = 12345): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

/** A square region of an RGBA image, resized bilinearly (pixel centres) to out x out, as NHWC RGB in [0, 1]. */
function cropResize(png: PNG, x0: number, y0: number, size: number, out: number): Float32Array {
  const px = (x: number, y: number, c: number) => png.data[(y * png.width + x) * 4 + c];
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  const result = new Float32Array(out * out * 3);
  for (let i = 0; i < out; i++) {
    const sy = clamp(y0 + ((i + 0.5) * size) / out - 0.5, png.height - 1);
    const ya = Math.floor(sy);
    const yb = Math.min(ya + 1, png.height - 1);
    for (let j = 0; j < out; j++) {
      const sx = clamp(x0 + ((j + 0.5) * size) / out - 0.5, png.width - 1);
      const xa = Math.floor(sx);
      const xb = Math.min(xa + 1, png.width - 1);
      const [fy, fx] = [sy - ya, sx - xa];
      for (let c = 0; c < 3; c++) {
        const top = px(xa, ya, c) * (1 - fx) + px(xb, ya, c) * fx;
        const bottom = px(xa, yb, c) * (1 - fx) + px(xb, yb, c) * fx;
        result[(i * out + j) * 3 + c] = (top * (1 - fy) + bottom * fy) / 255;
      }
    }
  }
  return result;
}

const maxAbsDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('tfjs-to-onnx: MediaPipe FaceMesh (@vladmandic/human) against TF.js', () => {
  let session: ort.InferenceSession;
  let reference: GraphModel;

  beforeAll(async () => {
    const { modelJson, weightsBuffer } = loadHumanFacemesh();
    const onnxBytes = convertGraphModel({ modelJson, weightsBuffer, inputName: 'input', outputs: FACEMESH_OUTPUTS });
    session = await ort.InferenceSession.create(onnxBytes, { logSeverityLevel: 3 });

    tf.env().set('PROD', true); // no "install tfjs-node" banner
    await tf.setBackend('cpu');
    const { buffer, byteOffset, length } = weightsBuffer;
    const weightData = buffer.slice(byteOffset, byteOffset + length) as ArrayBuffer;
    reference = await loadGraphModel({
      load: async () => ({
        format: modelJson.format,
        modelTopology: modelJson.modelTopology,
        signature: modelJson.signature,
        weightSpecs: modelJson.weightsManifest.flatMap((group) => group.weights),
        weightData,
      }),
    });
  }, 60_000);

  afterAll(async () => {
    reference?.dispose();
    await session?.release();
  });

  async function runOnnx(input: Float32Array): Promise<Outputs> {
    const result = await session.run({ input: new ort.Tensor('float32', input, [1, SIZE, SIZE, 3]) });
    return Object.fromEntries(
      NAMES.map((name) => [name, Float32Array.from(result[name].data as Float32Array)]),
    ) as Outputs;
  }

  function runTfjs(input: Float32Array): Outputs {
    const x = tf.tensor4d(input, [1, SIZE, SIZE, 3]);
    const tensors = reference.execute(
      x,
      NAMES.map((name) => FACEMESH_OUTPUTS[name]),
    ) as tf.Tensor[];
    const values = tensors.map((t) => t.dataSync() as Float32Array);
    tf.dispose([x, ...tensors]);
    return Object.fromEntries(NAMES.map((name, i) => [name, values[i]])) as Outputs;
  }

  function expectSameOutputs(onnxOut: Outputs, tfOut: Outputs) {
    expect([onnxOut.mesh.length, onnxOut.faceflag.length, onnxOut.contours.length]).toEqual([1404, 1, 266]);
    for (const name of NAMES) expect(maxAbsDiff(onnxOut[name], tfOut[name])).toBeLessThan(TOLERANCE[name]);
  }

  test('matches TF.js on a pseudo-random input', async () => {
    const input = pseudoRandom(SIZE * SIZE * 3);
    expectSameOutputs(await runOnnx(input), runTfjs(input));
  }, 60_000);

  test('matches TF.js on the astronaut face, and finds a face with the eyes where they are', async () => {
    const png = PNG.sync.read(readFileSync(fixturePath('faces', 'astronaut.png')));
    const input = cropResize(png, FACE_CROP.x, FACE_CROP.y, FACE_CROP.size, SIZE);
    const onnxOut = await runOnnx(input);
    expectSameOutputs(onnxOut, runTfjs(input));

    expect(onnxOut.faceflag[0]).toBeGreaterThan(0.9); // a probability: the graph ends in a sigmoid
    const point = (k: number) => ({ x: onnxOut.mesh[3 * k], y: onnxOut.mesh[3 * k + 1] });
    const [rightEye, leftEye, noseTip, chin] = [33, 263, 1, 152].map(point); // outer eye corners, nose tip, chin
    expect(leftEye.x - rightEye.x).toBeGreaterThan(30);
    expect(Math.abs(leftEye.y - rightEye.y)).toBeLessThan(15);
    expect(noseTip.x).toBeGreaterThan(rightEye.x);
    expect(noseTip.x).toBeLessThan(leftEye.x);
    expect(noseTip.y).toBeGreaterThan(rightEye.y);
    expect(chin.y).toBeGreaterThan(noseTip.y);
    // In the 512x512 photo the eyes are near (195, 105) and (255, 105).
    const toImage = (p: { x: number; y: number }) => [
      FACE_CROP.x + (p.x * FACE_CROP.size) / SIZE,
      FACE_CROP.y + (p.y * FACE_CROP.size) / SIZE,
    ];
    for (const [x, y] of [toImage(rightEye), toImage(leftEye)]) {
      expect(x).toBeGreaterThan(170);
      expect(x).toBeLessThan(280);
      expect(y).toBeGreaterThan(80);
      expect(y).toBeLessThan(130);
    }
  }, 60_000);

  test('names an unsupported op', () => {
    const modelJson = {
      format: 'graph-model',
      modelTopology: {
        node: [
          { name: 'x', op: 'Placeholder', attr: { shape: { shape: { dim: [{ size: '1' }, { size: '4' }] } } } },
          { name: 'y', op: 'FooBar', input: ['x'] },
        ],
      },
      weightsManifest: [],
    };
    expect(() => convertGraphModel({ modelJson, weightsBuffer: Buffer.alloc(0), outputs: { out: 'y:0' } })).toThrow(
      "Unsupported TF.js op 'FooBar' (node y)",
    );
  });
});
