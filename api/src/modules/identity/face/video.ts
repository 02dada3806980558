import type { FaceImage } from '@esign/contract';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The frames the scorer reads: a square of this side (letterboxed), at this rate, at most this many seconds. */
export const VIDEO_FRAME = { side: 480, fps: 15, maxSeconds: 6 } as const;
const MAX_FRAMES = VIDEO_FRAME.fps * VIDEO_FRAME.maxSeconds;
const TIMEOUT_MS = 60_000;

/** The upload is not a video ffmpeg can read (or ffmpeg is missing: `missing`). */
export class VideoDecodeError extends Error {
  constructor(
    message: string,
    readonly missing = false,
  ) {
    super(message);
  }
}

/**
 * Decodes a recording (Chromium's WebM, Safari's MP4…) with ffmpeg into RGB frames of VIDEO_FRAME.side², resampled to
 * VIDEO_FRAME.fps by timestamp (a fixed rate: MediaRecorder's variable frame times would otherwise be duplicated into
 * thousands of frames), and hands each to `onFrame` in order. Bounded: at most maxSeconds of video, MAX_FRAMES frames,
 * and a minute of ffmpeg time. The bytes go through a private temporary file (MP4 needs to seek).
 */
export async function decodeVideoFrames(
  bytes: Buffer,
  onFrame: (frame: FaceImage) => Promise<void>,
  ffmpegPath = 'ffmpeg',
): Promise<number> {
  const file = join(tmpdir(), `esign-liveness-${randomUUID()}`);
  await writeFile(file, bytes, { mode: 0o600 });
  try {
    return await run(file, onFrame, ffmpegPath);
  } finally {
    await rm(file, { force: true });
  }
}

function run(file: string, onFrame: (frame: FaceImage) => Promise<void>, ffmpegPath: string): Promise<number> {
  const side = VIDEO_FRAME.side;
  const frameBytes = side * side * 3;
  const filter =
    `fps=${VIDEO_FRAME.fps},scale=${side}:${side}:force_original_aspect_ratio=decrease,` +
    `pad=${side}:${side}:(ow-iw)/2:(oh-ih)/2`;
  const args = [
    ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-t', String(VIDEO_FRAME.maxSeconds)],
    ...['-i', file, '-an', '-sn', '-vf', filter, '-frames:v', String(MAX_FRAMES)],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
  ];
  return new Promise<number>((resolve, reject) => {
    const ffmpeg = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => ffmpeg.kill('SIGKILL'), TIMEOUT_MS);
    let pending: Buffer = Buffer.alloc(0);
    let frames = 0;
    let stderr = '';
    let chain: Promise<void> = Promise.resolve();
    let failed: Error | null = null;
    let queued = 0;
    ffmpeg.stdout.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= frameBytes) {
        const data = new Uint8Array(pending.subarray(0, frameBytes));
        pending = pending.subarray(frameBytes);
        frames++;
        // Frames are scored one after the other; ffmpeg waits (its pipe full) until the queued ones are done.
        queued++;
        ffmpeg.stdout.pause();
        chain = chain
          .then(() => (failed ? undefined : onFrame({ data, width: side, height: side, channels: 3 })))
          .catch((error: Error) => {
            failed ??= error;
          })
          .finally(() => {
            if (--queued === 0) ffmpeg.stdout.resume();
          });
      }
    });
    ffmpeg.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString();
    });
    ffmpeg.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new VideoDecodeError('ffmpeg is not installed (apt-get install ffmpeg)', true)
          : error,
      );
    });
    ffmpeg.on('close', (code, signal) => {
      clearTimeout(timer);
      void chain.then(() => {
        if (failed) return reject(failed);
        if (signal) return reject(new VideoDecodeError(`ffmpeg stopped (${signal})`));
        if (code !== 0) return reject(new VideoDecodeError(stderr.trim().split('\n').pop() || `ffmpeg exit ${code}`));
        resolve(frames);
      });
    });
  });
}
