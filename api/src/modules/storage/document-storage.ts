/**
 * Where documents (and logos, signature images, signed PDFs) live. Content-addressed by SHA-256: the same bytes get
 * the same key and nothing is ever overwritten. Chosen by configuration in storage.module.ts (local now, S3 later).
 */
export abstract class DocumentStorage {
  /** Stores the bytes and answers their key (hex SHA-256). Storing bytes already present is a no-op. */
  abstract put(bytes: Buffer): Promise<{ key: string; size: number }>;
  /** The bytes of a key, checked against the key; NOT_FOUND when absent. */
  abstract get(key: string): Promise<Buffer>;
  abstract exists(key: string): Promise<boolean>;
}

export const STORAGE_KEY = /^[0-9a-f]{64}$/;
