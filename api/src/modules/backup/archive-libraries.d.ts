/**
 * tar-stream 2 and adm-zip ship no types: the little of them the backups (a streamed tar) and a signer's export (a
 * ZIP made in memory) use.
 */
declare module 'tar-stream' {
  import type { Readable, Writable } from 'node:stream';

  interface Headers {
    name: string;
    size?: number;
    mode?: number;
    mtime?: Date;
    type?: 'file' | 'directory' | 'symlink' | 'link' | string;
  }

  interface Pack extends Readable {
    entry(headers: Headers, buffer: Buffer | string, callback?: (err?: Error | null) => void): Writable;
    entry(headers: Headers, callback?: (err?: Error | null) => void): Writable;
    finalize(): void;
  }

  interface Extract extends Writable {
    on(event: 'entry', listener: (headers: Headers, stream: Readable, next: (err?: Error) => void) => void): this;
    on(event: 'finish' | 'close', listener: () => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
  }

  export function pack(): Pack;
  export function extract(): Extract;
}

declare module 'adm-zip' {
  interface ZipEntry {
    entryName: string;
    isDirectory: boolean;
    getData(): Buffer;
  }

  export default class AdmZip {
    constructor(input?: Buffer | string);
    addFile(entryName: string, content: Buffer, comment?: string): void;
    getEntries(): ZipEntry[];
    toBuffer(): Buffer;
  }
}
