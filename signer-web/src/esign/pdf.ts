import type * as PdfJs from 'pdfjs-dist';
import type { DocumentInitParameters } from 'pdfjs-dist/types/src/display/api';
import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFWorker } from 'pdfjs-dist';
import { type Prefetched, pdfWorkerPort, RANGE_CHUNK_BYTES, readRange, readStart } from './pdf-early';

/** Where the build puts pdf.js's data files (admin/pdfjs-assets.ts, used by vite.config.ts). */
const ASSETS = '/signer-assets/pdfjs/';

let library: Promise<{ lib: typeof PdfJs; worker: PDFWorker }> | null = null;

/**
 * pdf.js and its worker, loaded only for a page that shows a document (their own chunks), side by side: the worker
 * thread (started by boot.ts on a signing link, else here) downloads and compiles its script while the main library
 * loads, instead of after it. One worker serves every document of the page.
 */
function pdfjs(): Promise<{ lib: typeof PdfJs; worker: PDFWorker }> {
  if (!library) {
    const port = pdfWorkerPort();
    library = import('pdfjs-dist').then((lib) => {
      performance.mark('esign:pdfjs');
      // pdf.js's typings declare `port` as null only; its code and documentation take a Worker.
      return { lib, worker: new lib.PDFWorker({ port: port as unknown as null }) };
    });
  }
  return library;
}

/** How every document is opened, whichever way its bytes come. */
const OPTIONS: DocumentInitParameters = {
  withCredentials: false,
  rangeChunkSize: RANGE_CHUNK_BYTES,
  // The rest of the document is fetched only as pages are shown, so the first page is drawn before it has all arrived.
  disableAutoFetch: true,
  // Ranges instead of the whole answer's stream: the first request is cancelled once its headers say the link
  // answers ranges, instead of pulling all 2.6 MB in alongside the ranges the first page needs.
  disableStream: true,
  cMapUrl: `${ASSETS}cmaps/`,
  cMapPacked: true,
  standardFontDataUrl: `${ASSETS}standard_fonts/`,
  wasmUrl: `${ASSETS}wasm/`,
  iccUrl: `${ASSETS}iccs/`,
  isEvalSupported: false,
  // No WebAssembly: its first use compiles a module inside the worker with a blocking fetch (about 150 ms before the
  // first page here). JPEG 2000, JBIG2 and CCITT images decode with pdf.js's JavaScript decoders instead; embedded ICC
  // profiles give way to their alternate colour space, which for a document under review is the same picture.
  useWasm: false,
};

/** Where the document is read from: its signed link, or the signer's own call with the link token in headers. */
interface Source {
  url: string;
  httpHeaders?: Record<string, string>;
}

/**
 * Opens a document with pdf.js's range loading (issue 23): the server answers HTTP Range requests, so pdf.js reads the
 * length from the first answer, stops it, and asks for the ranges the first page needs; the rest is fetched only as
 * pages are shown. A server or proxy that answers without ranges still works: pdf.js then reads the whole answer.
 */
async function open(source: Source): Promise<PDFDocumentProxy> {
  const { lib, worker } = await pdfjs();
  const doc = await lib.getDocument({ ...OPTIONS, ...source, worker }).promise;
  // The steps to the first page, as performance marks (the benchmark prints them).
  performance.mark('esign:document');
  return doc;
}

/**
 * Opens a document whose start boot.ts read before pdf.js had loaded (issue 23): pdf.js gets its first chunks at once
 * and every further range through a transport that serves the chunks read ahead and fetches the others with the same
 * headers (each checked to be exactly the range asked for, of a document of the same size). A range that cannot be
 * had, even asked twice, ends the document's loading: the viewer then shows nothing rather than a page half read.
 */
async function openPrefetched(bytes: Prefetched): Promise<PDFDocumentProxy> {
  const { lib, worker } = await pdfjs();
  const transport = new lib.PDFDataRangeTransport(bytes.length, bytes.initial);
  let task: PDFDocumentLoadingTask | null = null;
  const read = async (begin: number, end: number): Promise<Uint8Array> => {
    const ahead = bytes.ahead.get(begin);
    bytes.ahead.delete(begin);
    const kept = ahead ? await ahead.catch(() => null) : null;
    if (kept && kept.length === end - begin) return kept;
    try {
      return await readRange(bytes.url, bytes.headers, begin, end, bytes.length);
    } catch {
      return readRange(bytes.url, bytes.headers, begin, end, bytes.length);
    }
  };
  transport.requestDataRange = (begin: number, end: number) => {
    read(begin, end).then(
      (chunk) => {
        try {
          transport.onDataRange(begin, chunk);
        } catch {
          // The document was closed while this range was on its way (a new address replaced it): nothing waits for it.
        }
      },
      (error: unknown) => {
        console.error('The document could not be read:', error);
        void task?.destroy();
      },
    );
  };
  task = lib.getDocument({ ...OPTIONS, range: transport, worker });
  const doc = await task.promise;
  performance.mark('esign:document');
  return doc;
}

/**
 * How long a document opened early stays the one to show. It is the document the reference's uploadUrl names at the
 * time; a signer who reaches the viewer later (after the identity checks) gets it from the link again, which shows a
 * signature another party has added since.
 */
const EARLY_FRESH_MS = 10_000;

let early: { opened: Promise<PDFDocumentProxy>; at: number } | null = null;

/**
 * Opens the signer's document by its own call (GET /v1/document/…, the link token in headers) from boot.ts, before
 * the app's own modules have been evaluated and beside the reference call instead of after its answer (issue 23):
 * pdf.js loads while the document's start is read, and opens it from those bytes. The server gives the document only
 * where uploadUrl would be given (a live request, a signer, the OTP verified in this browser); otherwise it fails
 * quietly and the viewer asks by the link when it is shown. The viewer takes it once (openPdf); one not taken in
 * time is closed.
 */
export function openEarly(url: string, httpHeaders: Record<string, string>): void {
  void pdfjs();
  const opened = readStart(url, httpHeaders).then(openPrefetched);
  const mine = { opened, at: performance.now() };
  early = mine;
  opened.catch(() => undefined);
  setTimeout(() => {
    if (early !== mine) return;
    early = null;
    void opened.then(
      (doc) => doc.destroy(),
      () => undefined,
    );
  }, EARLY_FRESH_MS);
}

/**
 * The document of a signed link, for the viewer: the one opened early when there is one still fresh (the same
 * document, already on its way), else by the link itself (whose address carries its own permission; no cookie).
 */
export async function openPdf(url: string): Promise<PDFDocumentProxy> {
  const taken = early && performance.now() - early.at < EARLY_FRESH_MS ? early.opened : null;
  early = null;
  if (taken) {
    try {
      return await taken;
    } catch {
      // Refused early (the answer came with other news) or failed: the link is asked itself.
    }
  }
  return open({ url });
}
