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
 * One worker serves every document of the page. A signing link starts them as the app starts (preloadPdfjs), beside
 * the request's first call, instead of once its answer has come.
 */
export function pdfjs(): Promise<{ lib: typeof PdfJs; worker: PDFWorker }> {
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

/**
 * Opens the document by its address with pdf.js's range loading (issue 23): the link answers HTTP Range requests, so
 * pdf.js reads the length from the first answer, stops it, and asks for the ranges the first page needs; the rest is
 * fetched only as pages are shown (disableAutoFetch), so the first page is drawn before the whole file has arrived.
 * A server or proxy that answers without ranges still works: pdf.js then reads the whole answer as it streams in.
 * The link carries its own permission (no cookie is sent). pdf.js and its worker are loaded side by side meanwhile.
 */
export async function openPdf(url: string): Promise<PDFDocumentProxy> {
  const { lib, worker } = await pdfjs();
  const doc = await lib.getDocument({
    url,
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
