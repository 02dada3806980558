// Only the worker's address (a string in this chunk): the worker itself is fetched when it is started.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

/**
 * How much pdf.js asks for at a time. The first page of a 352-page document needs its header, the cross-reference
 * data at the end, the page tree's path to page 1 and that page's content and fonts: a few hundred KB in a handful of
 * requests. Larger chunks mean fewer round trips (each range is read and checked against the document's hash on the
 * server), smaller ones fewer bytes before the first page.
 */
export const RANGE_CHUNK_BYTES = 256 * 1024;

/** The chunks read from the start of a signing link's document before pdf.js has loaded. */
const FIRST_CHUNKS = 2;

let port: Worker | null = null;

/**
 * pdf.js's worker thread, started once per page: by boot.ts for a signing link, before the app's own modules are
 * evaluated (issue 23: the thread downloads and compiles its 1 MB script meanwhile), else by the first document shown.
 */
export function pdfWorkerPort(): Worker {
  port ??= new Worker(workerUrl, { type: 'module' });
  return port;
}

/** A document's bytes read ahead of pdf.js (readStart): what a range transport serves it first. */
export interface Prefetched {
  url: string;
  headers: Record<string, string>;
  /** The document's size, as every range's Content-Range gave it. */
  length: number;
  /** Its first bytes: FIRST_CHUNKS chunks, or all of it when the server answered without ranges. */
  initial: Uint8Array;
  /** Chunks read ahead, by their first byte (the last one: where pdf.js looks first). */
  ahead: Map<number, Promise<Uint8Array>>;
}

/**
 * Bytes [begin, end) of the document, as a 206 whose Content-Range names exactly them and a document of `length`
 * bytes; anything else (another size: the document changed since its start was read) is an error.
 */
export async function readRange(
  url: string,
  headers: Record<string, string>,
  begin: number,
  end: number,
  length: number,
): Promise<Uint8Array> {
  const response = await fetch(url, { headers: { ...headers, Range: `bytes=${begin}-${end - 1}` } });
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('Content-Range') ?? '');
  if (response.status !== 206 || !range || Number(range[1]) !== begin || Number(range[2]) !== end - 1) {
    void response.body?.cancel();
    throw new Error(`bytes ${begin}-${end - 1} of the document were answered ${response.status}`);
  }
  if (Number(range[3]) !== length) throw new Error('the document changed while it was read');
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length !== end - begin) throw new Error(`bytes ${begin}-${end - 1} of the document were cut short`);
  return bytes;
}

/**
 * Reads a signing link's document's start before pdf.js has loaded (issue 23; pdf.ts openEarly): its first chunks,
 * and once their answer gives the size, its last chunk, where pdf.js looks first. The server answers only where the
 * viewer would show the document; a refusal rejects.
 */
export async function readStart(url: string, headers: Record<string, string>): Promise<Prefetched> {
  const first = FIRST_CHUNKS * RANGE_CHUNK_BYTES;
  const response = await fetch(url, { headers: { ...headers, Range: `bytes=0-${first - 1}` } });
  if (response.status === 200) {
    // No ranges here (a proxy that drops them): the whole document, as pdf.js would have read it.
    const all = new Uint8Array(await response.arrayBuffer());
    return { url, headers, length: all.length, initial: all, ahead: new Map() };
  }
  const range = /^bytes 0-(\d+)\/(\d+)$/.exec(response.headers.get('Content-Range') ?? '');
  if (response.status !== 206 || !range) {
    void response.body?.cancel();
    throw new Error(`the document was answered ${response.status}`);
  }
  const length = Number(range[2]);
  const ahead = new Map<number, Promise<Uint8Array>>();
  const last = Math.floor((length - 1) / RANGE_CHUNK_BYTES) * RANGE_CHUNK_BYTES;
  if (last >= first) {
    const tail = readRange(url, headers, last, length, length);
    tail.catch(() => undefined); // asked again by pdf.ts when it failed
    ahead.set(last, tail);
  }
  const initial = new Uint8Array(await response.arrayBuffer());
  if (initial.length !== Math.min(length, first)) throw new Error('the start of the document was cut short');
  return { url, headers, length, initial, ahead };
}
