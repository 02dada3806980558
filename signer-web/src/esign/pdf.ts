import type * as PdfJs from 'pdfjs-dist';
import type { PDFDocumentProxy, PDFWorker } from 'pdfjs-dist';
// Only the worker's address (a string in this chunk): the worker itself is fetched when a document is shown.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

/** Where the build puts pdf.js's data files (admin/pdfjs-assets.ts, used by vite.config.ts). */
const ASSETS = '/signer-assets/pdfjs/';

let library: Promise<{ lib: typeof PdfJs; worker: PDFWorker }> | null = null;

/**
 * pdf.js and its worker, loaded only for a page that shows a document (their own chunks), side by side: the worker
 * thread is started at once and downloads and compiles its script while the main library loads, instead of after it.
 * One worker serves every document of the page. A signing link starts them as the app starts (openEarly), beside
 * the request's first call, instead of once its answer has come.
 */
function pdfjs(): Promise<{ lib: typeof PdfJs; worker: PDFWorker }> {
  if (!library) {
    const port = new Worker(workerUrl, { type: 'module' });
    library = import('pdfjs-dist').then((lib) => {
      performance.mark('esign:pdfjs');
      // pdf.js's typings declare `port` as null only; its code and documentation take a Worker.
      return { lib, worker: new lib.PDFWorker({ port: port as unknown as null }) };
    });
  }
  return library;
}

/**
 * How much pdf.js asks for at a time. The first page of a 352-page document needs its header, the cross-reference
 * data at the end, the page tree's path to page 1 and that page's content and fonts: a few hundred KB in a handful of
 * requests. Larger chunks mean fewer round trips (each range is read and checked against the document's hash on the
 * server), smaller ones fewer bytes before the first page.
 */
const RANGE_CHUNK_BYTES = 256 * 1024;

/** Where the document is read from: its signed link, or the signer's own call with the link token in headers. */
interface Source {
  url: string;
  httpHeaders?: Record<string, string>;
}

/**
 * Opens a document with pdf.js's range loading (issue 23): the server answers HTTP Range requests, so pdf.js reads the
 * length from the first answer, stops it, and asks for the ranges the first page needs; the rest is fetched only as
 * pages are shown (disableAutoFetch), so the first page is drawn before the whole file has arrived. A server or proxy
 * that answers without ranges still works: pdf.js then reads the whole answer as it streams in.
 */
async function open(source: Source): Promise<PDFDocumentProxy> {
  const { lib, worker } = await pdfjs();
  const doc = await lib.getDocument({
    ...source,
    withCredentials: false,
    rangeChunkSize: RANGE_CHUNK_BYTES,
    disableAutoFetch: true,
    // Ranges instead of the whole answer's stream: the first request is cancelled once its headers say the link
    // answers ranges, instead of pulling all 2.6 MB in alongside the ranges the first page needs.
    disableStream: true,
    worker,
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
  }).promise;
  // The steps to the first page, as performance marks (the benchmark prints them).
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
 * Opens the signer's document by its own call (GET /v1/document/…, the link token in headers) as the app starts,
 * beside the reference call instead of after its answer (issue 23). The server gives it only where uploadUrl would be
 * given (a live request, a signer, the OTP verified in this browser); otherwise it fails quietly and nothing is shown
 * until the answer says so. The viewer takes it once (openPdf); one not taken in time is closed.
 */
export function openEarly(url: string, httpHeaders: Record<string, string>): void {
  const opened = open({ url, httpHeaders });
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
