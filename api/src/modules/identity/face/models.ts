import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One input or output of a model: its name and shape (a string for a symbolic dimension such as the batch). */
export interface ModelValue {
  name: string;
  shape: Array<number | string>;
}

/** A committed file of api/models/face as manifest.json lists it (api/models/face/README.md says where each came from). */
export interface FaceModelFile {
  file: string;
  sha256: string;
  bytes: number;
  /** The npm package it came from, name@version. */
  source?: string;
  license?: string;
  /** For a gzip copy: the file it is a copy of. */
  gzipOf?: string;
  inputs?: ModelValue[];
  outputs?: ModelValue[];
}

export interface FaceModelManifest {
  files: FaceModelFile[];
}

export const MANIFEST_FILE = 'manifest.json';

export async function readManifest(dir: string): Promise<FaceModelManifest> {
  const manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as FaceModelManifest;
  if (!Array.isArray(manifest.files)) throw new Error(`${join(dir, MANIFEST_FILE)} lists no files`);
  return manifest;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * A model's bytes, only when they are the ones manifest.json names: a file truncated by a checkout, a Git LFS pointer
 * or a model swapped by hand would otherwise load, or fail later with an onnxruntime message that names no file.
 */
export async function readVerifiedModel(dir: string, file: string, manifest: FaceModelManifest): Promise<Buffer> {
  const entry = manifest.files.find((f) => f.file === file);
  if (!entry) throw new Error(`${file} is not listed in ${join(dir, MANIFEST_FILE)}`);
  const bytes = await readFile(join(dir, file));
  const actual = sha256(bytes);
  if (actual !== entry.sha256)
    throw new Error(
      `${join(dir, file)} is not the model ${MANIFEST_FILE} names: SHA-256 ${actual} (${bytes.length} bytes), ` +
        `expected ${entry.sha256} (${entry.bytes} bytes)`,
    );
  return bytes;
}
