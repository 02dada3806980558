import type { ShownPageSize } from '@esign/contract';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { useCallback, useEffect, useState } from 'react';

/**
 * Every page's size as a viewer displays it, in points (pdf.js's viewport at scale 1: the crop box turned by /Rotate),
 * the space fields are placed in. `sizeOf(page)` is null until the page was read (or for a page the document lacks).
 */
export function usePageSizes(doc: PDFDocumentProxy | null): {
  sizes: Record<number, ShownPageSize>;
  sizeOf: (page: number) => ShownPageSize | null;
  ready: boolean;
} {
  const [state, setState] = useState<{ doc: PDFDocumentProxy; sizes: Record<number, ShownPageSize> } | null>(null);
  useEffect(() => {
    if (!doc) return;
    let cancelled = false;
    const pages = Array.from({ length: doc.numPages }, (_, i) => i + 1);
    Promise.all(
      pages.map((n) =>
        doc.getPage(n).then((page) => {
          const { width, height } = page.getViewport({ scale: 1 });
          return [n, { width, height }] as const;
        }),
      ),
    ).then(
      (read) => !cancelled && setState({ doc, sizes: Object.fromEntries(read) }),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [doc]);
  const sizes = state && state.doc === doc ? state.sizes : null;
  const sizeOf = useCallback((page: number) => sizes?.[page] ?? null, [sizes]);
  return { sizes: sizes ?? {}, sizeOf, ready: sizes !== null };
}
