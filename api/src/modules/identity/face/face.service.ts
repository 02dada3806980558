import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  FaceModels,
  detectFaces,
  readFrame,
  scoreBlinks,
  type BlinkScore,
  type FaceBox,
  type FaceImage,
  type FaceInference,
  type FrameReading,
} from '@esign/contract';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { AppError } from '../../../common/app-error';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { decodeImage } from './image';
import { readManifest, readVerifiedModel } from './models';
import { decodeVideoFrames, VideoDecodeError } from './video';

export const FaceMessages = {
  unavailable: 'Face checks are not available on this server now. Please try again later.',
} as const;

interface Sessions {
  detector: InferenceSession;
  mesh: InferenceSession;
}

export interface VideoScore extends BlinkScore {
  /** Milliseconds spent decoding and scoring. */
  ms: number;
}

/**
 * The authoritative face checks (DESIGN.md section 6): the selfie has exactly one face, and a liveness video's blinks
 * score above the organisation's threshold. The same ONNX models and the same code (@esign/contract's face.ts) as the
 * signer's browser, here on onnxruntime-node; videos are decoded by ffmpeg. One video is scored at a time per process
 * (a few seconds of two cores), the next ones wait their turn.
 */
@Injectable()
export class FaceService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(FaceService.name);
  private sessions: Promise<Sessions> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Says at start-up (without waiting for it) when liveness videos could not be decoded or the models are missing. */
  onApplicationBootstrap(): void {
    const missing = [FaceModels.detector.file, FaceModels.mesh.file].filter(
      (f) => !existsSync(join(this.config.faceModelsDir, f)),
    );
    if (missing.length)
      this.log.warn(
        `Face models missing in ${this.config.faceModelsDir} (${missing.join(', ')}): ` +
          'they are committed files (git checkout api/models/face)',
      );
    const probe = spawn(this.config.ffmpegPath, ['-version'], { stdio: 'ignore' });
    probe.on('error', () =>
      this.log.warn(
        `${this.config.ffmpegPath} was not found: liveness videos cannot be checked (apt-get install ffmpeg)`,
      ),
    );
  }

  /** Runs a model (the contract's FaceInference) on onnxruntime-node. */
  readonly run: FaceInference = async (model, input, dims) => {
    const sessions = await this.load();
    const session = sessions[model];
    const { Tensor } = await import('onnxruntime-node');
    const outputs = await session.run({ [FaceModels[model].input]: new Tensor('float32', input, [...dims]) });
    const out: Record<string, Float32Array> = {};
    for (const [name, tensor] of Object.entries(outputs)) out[name] = tensor.data as Float32Array;
    return out;
  };

  /** The faces in a PNG or JPEG (already checked to be one by checkImage). */
  async facesIn(bytes: Buffer): Promise<FaceBox[]> {
    const image = decodeImage(bytes);
    return detectFaces(image, this.run);
  }

  /** Decodes a recording with ffmpeg and scores its blinks. Throws VideoDecodeError when it is not a readable video. */
  scoreVideo(bytes: Buffer): Promise<VideoScore> {
    const next = this.queue.then(() => this.score(bytes));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** One frame's reading (faces, EAR); for the benchmark and tests. */
  readFrame(image: FaceImage): Promise<FrameReading> {
    return readFrame(image, this.run);
  }

  async onModuleDestroy(): Promise<void> {
    const sessions = await this.sessions?.catch(() => null);
    await sessions?.detector.release();
    await sessions?.mesh.release();
  }

  private async score(bytes: Buffer): Promise<VideoScore> {
    const started = Date.now();
    await this.load();
    const frames: FrameReading[] = [];
    await decodeVideoFrames(
      bytes,
      async (frame) => {
        frames.push(await readFrame(frame, this.run));
      },
      this.config.ffmpegPath,
    );
    if (!frames.length) throw new VideoDecodeError('no frames');
    return { ...scoreBlinks(frames), ms: Date.now() - started };
  }

  private load(): Promise<Sessions> {
    this.sessions ??= (async () => {
      const dir = this.config.faceModelsDir;
      const files = { detector: join(dir, FaceModels.detector.file), mesh: join(dir, FaceModels.mesh.file) };
      const missing = Object.values(files).filter((f) => !existsSync(f));
      if (missing.length) throw new Error(`face models missing: ${missing.join(', ')} (committed in api/models/face)`);
      // Only the bytes manifest.json names are run (a few milliseconds of hashing, once per process).
      const manifest = await readManifest(dir);
      const [detectorBytes, meshBytes] = await Promise.all([
        readVerifiedModel(dir, FaceModels.detector.file, manifest),
        readVerifiedModel(dir, FaceModels.mesh.file, manifest),
      ]);
      const ort = await import('onnxruntime-node');
      const options: InferenceSession.SessionOptions = { logSeverityLevel: 3, intraOpNumThreads: 1 };
      // A plain Uint8Array of this realm: onnxruntime-common checks `instanceof Uint8Array`, which a Buffer made in
      // another realm (a Jest test's) would fail.
      const view = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      const [detector, mesh] = await Promise.all([
        ort.InferenceSession.create(view(detectorBytes), options),
        ort.InferenceSession.create(view(meshBytes), options),
      ]);
      return { detector, mesh };
    })();
    this.sessions.catch((error: Error) => {
      this.log.error(`Face models could not be loaded: ${error.message}`);
      this.sessions = null;
    });
    return this.sessions.catch(() => {
      throw new AppError('UNAVAILABLE', FaceMessages.unavailable);
    });
  }
}
