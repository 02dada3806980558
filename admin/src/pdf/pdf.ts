import type * as PdfJs from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';

/** Where the build puts pdf.js's data files (admin/pdfjs-assets.ts). */
const ASSETS = '/admin-assets/pdfjs/';

let library: Promise<typeof PdfJs> | null = null;

/** pdf.js, loaded on first use (its own chunk) with its worker from this origin. */
export function pdfjs(): Promise<typeof PdfJs> {
  library ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(
    ([lib, worker]) => {
      lib.GlobalWorkerOptions.workerSrc = worker.default;
      return lib;
    },
  );
  return library;
}

/** Opens a PDF from a same-origin URL or from bytes (a file the user picked). */
export async function openPdf(source: string | ArrayBuffer): Promise<PDFDocumentProxy> {
  const lib = await pdfjs();
  const common = {
    cMapUrl: `${ASSETS}cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${ASSETS}standard_fonts/`,
    wasmUrl: `${ASSETS}wasm/`,
    iccUrl: `${ASSETS}iccs/`,
    isEvalSupported: false,
  };
  const task =
    typeof source === 'string'
      ? lib.getDocument({ url: source, ...common })
      : lib.getDocument({ data: new Uint8Array(source.slice(0)), ...common });
  return task.promise;
}
