import { lazy } from 'react';
import type { ComponentType } from 'react';
import type Webcam from 'react-webcam';

/**
 * A component from a dynamically imported CommonJS (UMD) package. react-webcam and react-signature-canvas set
 * `module.exports = { __esModule, default: Component }`, which the bundler hands over as `{ default: { default } }`:
 * follow `default` until the component itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as React.lazy's own constraint
export function lazyDefault<C extends ComponentType<any>>(load: () => Promise<unknown>) {
  return lazy(async () => {
    let value = await load();
    while (value && typeof value === 'object' && 'default' in value) value = (value as { default: unknown }).default;
    return { default: value as C };
  });
}

/** react-webcam, loaded only when a camera step is shown (not part of the first page's JavaScript). */
export const LazyWebcam = lazyDefault<typeof Webcam>(() => import('react-webcam'));

/** Stops every track of a camera stream (the camera light goes off). */
export const stopStream = (stream: MediaStream | null | undefined): void => {
  stream?.getTracks().forEach((track) => track.stop());
};

export const blobToDataUrl = (blob: Blob): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(blob);
  });

/** The WebM type this browser records, or undefined (its default, e.g. MP4 on Safari). */
export const recorderType = (): string | undefined =>
  typeof MediaRecorder === 'undefined'
    ? undefined
    : ['video/webm;codecs=vp8', 'video/webm;codecs=vp9', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));

/**
 * The drawing cropped to its ink (plus a small margin) as a PNG data URL, at the canvas's own resolution (device
 * pixels, so it stays crisp). Null when nothing is drawn.
 */
export function trimmedPng(canvas: HTMLCanvasElement, margin = 4): string | null {
  const ctx = canvas.getContext('2d');
  if (!ctx || !canvas.width || !canvas.height) return null;
  const { width, height } = canvas;
  const data = ctx.getImageData(0, 0, width, height).data;
  let [top, left, bottom, right] = [height, width, -1, -1];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (data[(y * width + x) * 4 + 3] !== 0) {
        if (y < top) top = y;
        if (y > bottom) bottom = y;
        if (x < left) left = x;
        if (x > right) right = x;
      }
  if (bottom < 0) return null;
  top = Math.max(0, top - margin);
  left = Math.max(0, left - margin);
  bottom = Math.min(height - 1, bottom + margin);
  right = Math.min(width - 1, right + margin);
  const out = document.createElement('canvas');
  out.width = right - left + 1;
  out.height = bottom - top + 1;
  out.getContext('2d')?.drawImage(canvas, left, top, out.width, out.height, 0, 0, out.width, out.height);
  return out.toDataURL('image/png');
}
