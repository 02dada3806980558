import { Box, CircularProgress } from '@mui/material';
import type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import { useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { openPdf } from './pdf';

/** Opens a PDF (URL or bytes) with pdf.js; `doc` is null until it is read, `error` set when it cannot be. */
export function usePdfDocument(source: string | ArrayBuffer | null): { doc: PDFDocumentProxy | null; error: boolean } {
  // Each outcome is kept with the source it belongs to, so a new (or no) source never shows the last one's document
  // or error, not even for the render before the effect below runs.
  const [state, setState] = useState<{
    source: string | ArrayBuffer;
    doc: PDFDocumentProxy | null;
    error: boolean;
  } | null>(null);
  useEffect(() => {
    if (!source) return;
    let cancelled = false;
    let opened: PDFDocumentProxy | null = null;
    openPdf(source).then(
      (doc) => {
        opened = doc;
        if (cancelled) void doc.destroy();
        else setState({ source, doc, error: false });
      },
      () => !cancelled && setState({ source, doc: null, error: true }),
    );
    return () => {
      cancelled = true;
      if (opened) void opened.destroy();
    };
  }, [source]);
  return state && source && state.source === source
    ? { doc: state.doc, error: state.error }
    : { doc: null, error: false };
}

export interface PageSize {
  /** CSS pixels of the page as shown (its crop box, turned by its /Rotate). */
  width: number;
  height: number;
}

/**
 * One page drawn at `height` CSS pixels (sharp on high-density screens), with `children` laid over it in the same
 * pixel space: the placement boxes and the template's form fields are positioned inside this box.
 */
export const PdfPageView = ({
  doc,
  pageNumber,
  height,
  onSize,
  children,
}: {
  doc: PDFDocumentProxy;
  pageNumber: number;
  height: number;
  onSize?: (size: PageSize) => void;
  children?: ReactNode;
}) => {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState<PageSize | null>(null);

  useEffect(() => {
    let task: RenderTask | null = null;
    let cancelled = false;
    void doc.getPage(pageNumber).then((page) => {
      if (cancelled || !canvas.current) return;
      const base = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: height / base.height });
      const ratio = window.devicePixelRatio || 1;
      const element = canvas.current;
      element.width = Math.floor(viewport.width * ratio);
      element.height = Math.floor(viewport.height * ratio);
      element.style.width = `${viewport.width}px`;
      element.style.height = `${viewport.height}px`;
      const shown = { width: viewport.width, height: viewport.height };
      setSize(shown);
      onSize?.(shown);
      task = page.render({
        canvas: element,
        viewport,
        transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
      });
      task.promise.catch(() => undefined);
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
    // onSize is a callback prop; re-rendering on its identity would redraw the page for nothing.
  }, [doc, pageNumber, height]);

  return (
    <Box
      data-testid="pdf-page"
      data-page={pageNumber}
      sx={{ position: 'relative', display: 'inline-block', boxShadow: 3, bgcolor: 'common.white', lineHeight: 0 }}
    >
      <canvas ref={canvas} />
      {!size && (
        <Box
          sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', minWidth: 200, minHeight: 200 }}
        >
          <CircularProgress />
        </Box>
      )}
      {size && <Box sx={{ position: 'absolute', inset: 0 }}>{children}</Box>}
    </Box>
  );
};
