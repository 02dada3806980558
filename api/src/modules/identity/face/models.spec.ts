/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { FaceModels } from '@esign/contract';
import { Logger } from '@nestjs/common';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as ort from 'onnxruntime-node';
import { fixturePath } from '../../../../test/support/fixtures';
import { loadConfig, type AppConfig } from '../../../config/app-config';
import { FaceService } from './face.service';
import { MANIFEST_FILE, readManifest, readVerifiedModel, sha256, type FaceModelManifest } from './models';

/** The committed face models (api/models/face) against their manifest: what is run is what was reviewed. */
const modelsDir = loadConfig({ NODE_ENV: 'test' }).faceModelsDir;

describe('api/models/face and its manifest', () => {
  let manifest: FaceModelManifest;
  beforeAll(async () => {
    manifest = await readManifest(modelsDir);
  });

  it('lists every file of the folder (but itself and the README), and only those', () => {
    const present = readdirSync(modelsDir).filter((f) => f !== MANIFEST_FILE && f !== 'README.md');
    expect(manifest.files.map((f) => f.file).sort()).toEqual(present.sort());
    expect(manifest.files.map((f) => f.file)).toEqual(
      expect.arrayContaining([FaceModels.detector.file, FaceModels.mesh.file]),
    );
  });

  it('has every file with the SHA-256 and size the manifest gives', () => {
    for (const entry of manifest.files) {
      const bytes = readFileSync(join(modelsDir, entry.file));
      expect({ file: entry.file, sha256: sha256(bytes), bytes: bytes.length }).toEqual({
        file: entry.file,
        sha256: entry.sha256,
        bytes: entry.bytes,
      });
    }
  });

  it('has gzip copies that unpack to their models, and a source and licence for each model', () => {
    const copies = manifest.files.filter((f) => f.gzipOf);
    expect(copies.map((f) => f.gzipOf).sort()).toEqual([FaceModels.detector.file, FaceModels.mesh.file].sort());
    for (const copy of copies) {
      const unpacked = gunzipSync(readFileSync(join(modelsDir, copy.file)));
      expect(unpacked.equals(readFileSync(join(modelsDir, copy.gzipOf!)))).toBe(true);
    }
    for (const model of manifest.files.filter((f) => f.file.endsWith('.onnx'))) {
      expect(model.source).toMatch(/^\S+@\d+\.\d+\.\d+$/);
      const licence = manifest.files.find((f) => f.file.startsWith('LICENSE-') && f.source === model.source);
      expect(licence?.license).toBe(model.license);
    }
  });

  it.each([FaceModels.detector, FaceModels.mesh])(
    '$file has the inputs and outputs the manifest gives',
    async ({ file, input }) => {
      const entry = manifest.files.find((f) => f.file === file)!;
      const session = await ort.InferenceSession.create(await readVerifiedModel(modelsDir, file, manifest), {
        logSeverityLevel: 3,
      });
      try {
        const shapes = (values: readonly ort.InferenceSession.ValueMetadata[]) =>
          values.map((v) => ({ name: v.name, shape: v.isTensor ? [...v.shape] : null }));
        expect(shapes(session.inputMetadata)).toEqual(entry.inputs);
        expect(shapes(session.outputMetadata)).toEqual(entry.outputs);
        expect(session.inputNames).toEqual([input]);
      } finally {
        await session.release();
      }
    },
  );

  it('refuses a model whose bytes are not the manifest’s, naming the file and both hashes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'face-models-'));
    try {
      copyFileSync(join(modelsDir, MANIFEST_FILE), join(dir, MANIFEST_FILE));
      const bytes = readFileSync(join(modelsDir, FaceModels.detector.file));
      bytes[bytes.length >> 1] ^= 0xff;
      writeFileSync(join(dir, FaceModels.detector.file), bytes);
      const expected = manifest.files.find((f) => f.file === FaceModels.detector.file)!.sha256;
      const error = await readVerifiedModel(dir, FaceModels.detector.file, manifest).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain(join(dir, FaceModels.detector.file));
      expect((error as Error).message).toContain(`expected ${expected}`);
      expect((error as Error).message).toContain(sha256(bytes));
      await expect(readVerifiedModel(dir, 'other.onnx', manifest)).rejects.toThrow(
        `other.onnx is not listed in ${join(dir, MANIFEST_FILE)}`,
      );

      // The service runs no model then: face checks are unavailable, and the log says why.
      copyFileSync(join(modelsDir, FaceModels.mesh.file), join(dir, FaceModels.mesh.file));
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const face = new FaceService({ faceModelsDir: dir, ffmpegPath: 'ffmpeg' } as AppConfig);
      const photo = readFileSync(fixturePath('faces', 'astronaut.png'));
      await expect(face.facesIn(photo)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(logged).toHaveBeenCalledWith(expect.stringContaining(`expected ${expected}`));
      logged.mockRestore();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
