/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import {
  blazeFaceAnchors,
  detectFaces,
  eyeAspectRatio,
  faceMesh,
  FaceModels,
  readFrame,
  scoreBlinks,
  type FaceImage,
  type FaceInference,
} from '@esign/contract';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { fixturePath } from '../../../../test/support/fixtures';
import { loadConfig } from '../../../config/app-config';
import { decodeImage } from './image';

/**
 * The detectors on the shared photos, in both runtimes the product uses: onnxruntime-node (the API) and
 * onnxruntime-web's WebAssembly build (the signer's browser; here its Node flavour, the same wasm kernels).
 */
type Ort = typeof ortNode | typeof ortWeb;
const modelsDir = loadConfig({ NODE_ENV: 'test' }).faceModelsDir;

async function runtime(ort: Ort): Promise<{ run: FaceInference; release: () => Promise<void> }> {
  const sessions = {
    detector: await ort.InferenceSession.create(join(modelsDir, FaceModels.detector.file), { logSeverityLevel: 3 }),
    mesh: await ort.InferenceSession.create(join(modelsDir, FaceModels.mesh.file), { logSeverityLevel: 3 }),
  };
  const run: FaceInference = async (model, input, dims) => {
    const outputs = await sessions[model].run({
      [FaceModels[model].input]: new ort.Tensor('float32', input, [...dims]),
    });
    return Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, v.data as Float32Array]));
  };
  return { run, release: async () => void (await Promise.all(Object.values(sessions).map((s) => s.release()))) };
}

const photo = (name: string): FaceImage => decodeImage(readFileSync(fixturePath('faces', name)));

describe('face detection and landmarks on the fixture photos, in both runtimes', () => {
  const runtimes: Array<[string, Ort]> = [
    ['onnxruntime-node', ortNode],
    ['onnxruntime-web (wasm)', ortWeb],
  ];
  const results: Record<string, Record<string, number[]>> = {};
  let node: Awaited<ReturnType<typeof runtime>>;
  let web: Awaited<ReturnType<typeof runtime>>;

  beforeAll(async () => {
    node = await runtime(ortNode);
    web = await runtime(ortWeb);
  }, 60_000);
  afterAll(async () => {
    await node?.release();
    await web?.release();
  });

  it('has the 896 anchors of the 128×128 front model', () => {
    const anchors = blazeFaceAnchors();
    expect(anchors.length).toBe(896 * 2);
    expect([anchors[0], anchors[1]]).toEqual([0.5 / 16, 0.5 / 16]);
    expect([anchors[512 * 2], anchors[512 * 2 + 1]]).toEqual([0.5 / 8, 0.5 / 8]);
  });

  it.each(runtimes)('%s: one face on astronaut.png, none on coffee.png and chelsea.png', async (name) => {
    const { run } = name === 'onnxruntime-node' ? node : web;
    results[name] = {};
    for (const file of ['astronaut.png', 'coffee.png', 'chelsea.png']) {
      const faces = await detectFaces(photo(file), run);
      results[name][file] = faces.map((f) => f.score);
    }
    expect(results[name]['astronaut.png']).toHaveLength(1);
    expect(results[name]['astronaut.png'][0]).toBeGreaterThan(0.9);
    expect(results[name]['coffee.png']).toEqual([]);
    expect(results[name]['chelsea.png']).toEqual([]);

    // The astronaut's face box is where her face is (the 512×512 photo, face in the upper middle).
    const [face] = await detectFaces(photo('astronaut.png'), run);
    expect(face.x).toBeGreaterThan(150);
    expect(face.x + face.width).toBeLessThan(300);
    expect(face.y).toBeGreaterThan(50);
    expect(face.y + face.height).toBeLessThan(200);
    // Below the product's threshold the cup and the cat still score something, well under it.
    const weak = await detectFaces(photo('coffee.png'), run, 0);
    expect(weak[0].score).toBeLessThan(0.6);
  });

  it('gives the same scores, boxes and eye aspect ratio in both runtimes', async () => {
    const image = photo('astronaut.png');
    const [a] = await detectFaces(image, node.run);
    const [b] = await detectFaces(image, web.run);
    expect(Math.abs(a.score - b.score)).toBeLessThan(1e-4);
    for (const key of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(a[key] - b[key])).toBeLessThan(0.05);
    const earNode = eyeAspectRatio(await faceMesh(image, a, node.run));
    const earWeb = eyeAspectRatio(await faceMesh(image, b, web.run));
    expect(earNode).toBeGreaterThan(0.25);
    expect(earNode).toBeLessThan(0.4);
    expect(Math.abs(earNode - earWeb)).toBeLessThan(1e-3);
    for (const file of ['coffee.png', 'chelsea.png']) {
      const n = await detectFaces(photo(file), node.run, 0);
      const w = await detectFaces(photo(file), web.run, 0);
      expect(Math.abs(n[0].score - w[0].score)).toBeLessThan(1e-4);
    }
  });

  it('places FaceMesh’s landmarks on the astronaut’s face: eyes, nose tip and chin where they are', async () => {
    const image = photo('astronaut.png');
    const [face] = await detectFaces(image, node.run);
    const mesh = await faceMesh(image, face, node.run);
    const point = (k: number) => ({ x: mesh[3 * k], y: mesh[3 * k + 1] });
    const [rightEye, leftEye, noseTip, chin] = [33, 263, 1, 152].map(point); // outer eye corners, nose tip, chin
    // In the 512×512 photo her eyes are near (195, 105) and (255, 105).
    for (const eye of [rightEye, leftEye]) {
      expect(eye.x).toBeGreaterThan(170);
      expect(eye.x).toBeLessThan(280);
      expect(eye.y).toBeGreaterThan(80);
      expect(eye.y).toBeLessThan(130);
    }
    expect(leftEye.x - rightEye.x).toBeGreaterThan(30);
    expect(Math.abs(leftEye.y - rightEye.y)).toBeLessThan(15);
    expect(noseTip.x).toBeGreaterThan(rightEye.x);
    expect(noseTip.x).toBeLessThan(leftEye.x);
    expect(noseTip.y).toBeGreaterThan(rightEye.y);
    expect(chin.y).toBeGreaterThan(noseTip.y);
  });

  it('reads a frame: one face with its EAR, or no EAR without exactly one face', async () => {
    const astronaut = await readFrame(photo('astronaut.png'), node.run);
    expect(astronaut.faces).toBe(1);
    expect(astronaut.ear).toBeGreaterThan(0.25);
    expect(await readFrame(photo('coffee.png'), node.run)).toEqual({ faces: 0, ear: null });
  });
});

describe('scoreBlinks: a dip below the video’s own open-eye baseline that comes back', () => {
  const frames = (ears: Array<number | null>) => ears.map((ear) => ({ faces: ear === null ? 0 : 1, ear }));
  const open = (n: number) => Array.from({ length: n }, (_, i) => 0.3 + (i % 3) * 0.002);

  it('scores a blink by its depth, and a still face 0', () => {
    const blink = scoreBlinks(frames([...open(20), 0.2, 0.12, 0.2, ...open(20)]));
    expect(blink.blinks).toBe(1);
    expect(blink.score).toBe(1);
    const shallow = scoreBlinks(frames([...open(20), 0.24, ...open(20)]));
    expect(shallow.blinks).toBe(1);
    expect(shallow.score).toBeGreaterThan(0.4);
    expect(shallow.score).toBeLessThan(0.6);
    const still = scoreBlinks(frames(open(40)));
    expect(still).toMatchObject({ score: 0, blinks: 0, framesWithFace: 40 });
  });

  it('needs the eyes open first, a face in most frames and enough frames', () => {
    // Closed from the first frame: no open baseline before it, so no blink.
    expect(scoreBlinks(frames([0.1, 0.1, ...open(20)])).blinks).toBe(0);
    // A blink ending the video counts (the eyes were open before it).
    expect(scoreBlinks(frames([...open(20), 0.1])).blinks).toBe(1);
    expect(scoreBlinks(frames([...open(10), 0.1, ...open(2), ...Array<null>(20).fill(null)])).score).toBe(0);
    expect(scoreBlinks(frames([0.3, 0.1, 0.3])).score).toBe(0);
  });
});
