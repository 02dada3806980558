import type * as PdfJs from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';

/** Where the build puts pdf.js's data files (admin/pdfjs-assets.ts, used by vite.config.ts). */
const ASSETS = '/signer-assets/pdfjs/';

let library: Promise<typeof PdfJs> | null = null;

/** pdf.js and its worker, loaded only when a document is shown (their own chunks). */
function pdfjs(): Promise<typeof PdfJs> {
  library ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(
    ([lib, worker]) => {
      lib.GlobalWorkerOptions.workerSrc = worker.default;
      return lib;
    },
  );
  return library;
}

export async function openPdf(url: string): Promise<PDFDocumentProxy> {
  const lib = await pdfjs();
  return lib.getDocument({
    url,
    cMapUrl: `${ASSETS}cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${ASSETS}standard_fonts/`,
    wasmUrl: `${ASSETS}wasm/`,
    iccUrl: `${ASSETS}iccs/`,
    isEvalSupported: false,
  }).promise;
}
