import { SignerTexts } from '@esign/contract';
import type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import { useEffect, useRef, useState } from 'react';
import { fill } from '../api';
import { Button, PleaseWait } from '../components';
import { openPdf } from './pdf';

/**
 * The document, one page at a time at the width of the screen (sharp on high-density screens), with previous / next
 * and 'Page x/total'. This module and pdf.js load only when the document is shown.
 */
const Viewer = ({ url }: { url: string }) => {
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [failed, setFailed] = useState(false);
  const [page, setPage] = useState(1);
  /** performance.now() when the page was first drawn (the benchmark reads it), else null. */
  const [rendered, setRendered] = useState<number | null>(null);
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    let live = true;
    let opened: PDFDocumentProxy | null = null;
    openPdf(url).then(
      (d) => {
        opened = d;
        if (live) setDoc(d);
        else void d.destroy();
      },
      (error: unknown) => {
        console.error('The document could not be shown:', error);
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
      if (opened) void opened.destroy();
    };
  }, [url]);

  useEffect(() => {
    if (!doc) return;
    let task: RenderTask | null = null;
    let cancelled = false;
    setRendered(null);
    void doc.getPage(page).then((p) => {
      performance.mark('esign:page');
      const element = canvas.current;
      const width = frame.current?.clientWidth ?? 600;
      if (cancelled || !element) return;
      const base = p.getViewport({ scale: 1 });
      const viewport = p.getViewport({ scale: Math.min(width, 1000) / base.width });
      const ratio = Math.min(window.devicePixelRatio || 1, 2);
      element.width = Math.floor(viewport.width * ratio);
      element.height = Math.floor(viewport.height * ratio);
      element.style.width = `${Math.floor(viewport.width)}px`;
      element.style.height = `${Math.floor(viewport.height)}px`;
      task = p.render({ canvas: element, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] });
      task.promise.then(
        () => {
          if (cancelled) return;
          performance.mark('esign:drawn');
          setRendered(performance.now());
        },
        () => undefined,
      );
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, page]);

  const total = doc?.numPages ?? 0;
  return (
    <section className="viewer" aria-label="Document">
      <div className="viewer-bar">
        <Button
          variant="outline"
          aria-label={SignerTexts.previous}
          disabled={page <= 1}
          onClick={() => setPage(page - 1)}
        >
          ‹
        </Button>
        <span data-testid="page-of-total">{total ? fill(SignerTexts.pageOfTotal, { page, total }) : ''}</span>
        <Button
          variant="outline"
          aria-label={SignerTexts.next}
          disabled={!total || page >= total}
          onClick={() => setPage(page + 1)}
        >
          ›
        </Button>
      </div>
      <div ref={frame} className="viewer-frame">
        {failed ? null : !doc ? <PleaseWait /> : null}
        <canvas
          ref={canvas}
          data-testid="pdf-canvas"
          data-rendered={rendered !== null ? 'true' : 'false'}
          data-rendered-at={rendered ?? undefined}
          hidden={!doc}
        />
      </div>
      <a className="trouble-link" href={url} target="_blank" rel="noopener noreferrer">
        {SignerTexts.troubleViewing}
      </a>
    </section>
  );
};

export default Viewer;
