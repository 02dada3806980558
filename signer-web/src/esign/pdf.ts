import type * as PdfJs from 'pdfjs-dist';
import type { PDFDocumentProxy, PDFWorker } from 'pdfjs-dist';
// Only the worker's address (a string in this chunk): the worker itself is fetched when a document is shown.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

/** Where the build puts pdf.js's data files (admin/pdfjs-assets.ts, used by vite.config.ts). */
const ASSETS = '/signer-assets/pdfjs/';

let library: Promise<{ lib: typeof PdfJs; worker: PDFWorker }> | null = null;

/**
 * pdf.js and its worker, loaded only when a document is shown (their own chunks), side by side: the worker thread is
 * started at once and downloads and compiles its script while the main library loads, instead of after it. One worker
 * serves every document of the page.
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

/** The document's bytes, fetched while pdf.js loads (the link carries its own permission). */
async function bytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) throw new Error(`The document answered ${res.status}.`);
  const data = new Uint8Array(await res.arrayBuffer());
  performance.mark('esign:pdf-bytes');
  return data;
}

export async function openPdf(url: string): Promise<PDFDocumentProxy> {
  const [{ lib, worker }, data] = await Promise.all([pdfjs(), bytes(url)]);
  const doc = await lib.getDocument({
    data,
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
