import { pagesOfRuns } from '@esign/contract';
import type { SignerBox } from '@esign/contract';
import type { PDFDocumentProxy, PageViewport, RenderTask } from 'pdfjs-dist';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { Button, PleaseWait } from '../components';
import { useI18n } from '../i18n';
import { openPdf } from './pdf';

/** A box on screen: CSS pixels from the page's top-left corner. */
interface ScreenBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A box in PDF user space onto the drawn page (pdf.js turns it through the page's crop box and rotation). */
const onScreen = (viewport: PageViewport, box: SignerBox): ScreenBox => {
  const [x1, y1, x2, y2] = viewport.convertToViewportRectangle([box.x, box.y, box.x + box.width, box.y + box.height]);
  return {
    left: Math.min(x1, x2),
    top: Math.min(y1, y2),
    width: Math.abs(x2 - x1),
    height: Math.abs(y2 - y1),
  };
};

/** The page drawn now, for what is laid over it: its number, its size as displayed (points) and the drawing's scale. */
export interface ShownPage {
  page: number;
  width: number;
  height: number;
  scale: number;
}

export interface ViewerProps {
  url: string;
  /** This signer's boxes, outlined on their pages. */
  boxes?: SignerBox[] | null;
  /** Changed by 'Go to my signature box': the viewer turns to the first box's page and highlights it. */
  focus?: number;
  /** Drawn over the page once it is drawn, in a layer the page's size (the signer's fields). */
  overlay?: (shown: ShownPage) => ReactNode;
  /** Turns to this page whenever `seq` changes (the fields step moving to a field on another page). */
  turnTo?: { page: number; seq: number } | null;
}

/**
 * The document, one page at a time at the width of the screen (sharp on high-density screens), with previous / next
 * and 'Page x/total', and the signer's own boxes outlined on it. This module and pdf.js load only when the document
 * is shown.
 */
const Viewer = ({ url, boxes, focus = 0, overlay, turnTo }: ViewerProps) => {
  const { t } = useI18n();
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [failed, setFailed] = useState(false);
  const [page, setPage] = useState(1);
  const [viewport, setViewport] = useState<{ page: number; viewport: PageViewport } | null>(null);
  const [highlight, setHighlight] = useState(false);
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
      // A new address (the link is signed again after Accept) replaces the document: the old one is gone at once, so
      // nothing asks it for a page after it is destroyed.
      setDoc(null);
      if (opened) void opened.destroy();
    };
  }, [url]);

  useEffect(() => {
    if (!doc) return;
    let task: RenderTask | null = null;
    let cancelled = false;
    setRendered(null);
    let pending: ReturnType<PDFDocumentProxy['getPage']>;
    try {
      pending = doc.getPage(page);
    } catch {
      // A document destroyed under this effect (replaced by a new address) answers nothing: its successor draws.
      return;
    }
    void pending.then((p) => {
      performance.mark('esign:page');
      const element = canvas.current;
      const box = frame.current;
      // The frame's width inside its padding: the canvas is drawn at the size it is shown, so boxes laid over it fit.
      const padding = box
        ? parseFloat(getComputedStyle(box).paddingLeft) + parseFloat(getComputedStyle(box).paddingRight)
        : 0;
      const width = box ? box.clientWidth - (padding || 0) : 600;
      if (cancelled || !element) return;
      const base = p.getViewport({ scale: 1 });
      const viewport = p.getViewport({ scale: Math.min(width, 1000) / base.width });
      const ratio = Math.min(window.devicePixelRatio || 1, 2);
      element.width = Math.floor(viewport.width * ratio);
      element.height = Math.floor(viewport.height * ratio);
      element.style.width = `${Math.floor(viewport.width)}px`;
      element.style.height = `${Math.floor(viewport.height)}px`;
      setViewport({ page, viewport });
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
  /** The pages each box is on, and the first page with one of this signer's boxes. */
  const placed = useMemo(
    () => (boxes ?? []).map((box) => ({ box, pages: new Set(pagesOfRuns(box.pages, total || 100_000)) })),
    [boxes, total],
  );
  const firstBoxPage = useMemo(
    () => Math.min(...placed.flatMap(({ pages }) => [...pages].slice(0, 1)), Number.POSITIVE_INFINITY),
    [placed],
  );

  useEffect(() => {
    if (!focus || !Number.isFinite(firstBoxPage)) return;
    setPage(firstBoxPage);
    setHighlight(true);
  }, [focus, firstBoxPage]);
  useEffect(() => {
    if (turnTo) setPage(turnTo.page);
  }, [turnTo]);
  const highlighted = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (highlight && viewport?.page === page)
      highlighted.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlight, viewport, page]);

  const shown = viewport && viewport.page === page && rendered !== null ? viewport.viewport : null;
  const onThisPage = shown ? placed.filter(({ pages }) => pages.has(page)).map(({ box }) => onScreen(shown, box)) : [];

  return (
    <section className="viewer" aria-label={t('page.documentLabel')}>
      <div className="viewer-bar">
        <Button
          variant="outline"
          aria-label={t('page.previous')}
          disabled={page <= 1}
          onClick={() => setPage(page - 1)}
        >
          ‹
        </Button>
        <span data-testid="page-of-total">{total ? t('page.pageOfTotal', { page, total }) : ''}</span>
        <Button
          variant="outline"
          aria-label={t('page.next')}
          disabled={!total || page >= total}
          onClick={() => setPage(page + 1)}
        >
          ›
        </Button>
      </div>
      <div ref={frame} className="viewer-frame">
        {failed ? null : !doc ? <PleaseWait /> : null}
        <div className="viewer-page">
          {/* The drawn page's text alternative; its words are in the document the trouble link opens. */}
          <canvas
            ref={canvas}
            role="img"
            aria-label={total ? t('page.pageImage', { page, total }) : undefined}
            data-testid="pdf-canvas"
            data-rendered={rendered !== null ? 'true' : 'false'}
            data-rendered-at={rendered ?? undefined}
            hidden={!doc}
          />
          {onThisPage.map((box, index) => (
            <div
              key={index}
              ref={index === 0 && highlight && page === firstBoxPage ? highlighted : undefined}
              className={highlight && page === firstBoxPage && index === 0 ? 'my-box my-box-focus' : 'my-box'}
              data-testid="my-box"
              role="img"
              aria-label={t('page.myBoxLabel')}
              style={{ left: box.left, top: box.top, width: box.width, height: box.height }}
            />
          ))}
          {shown && overlay && (
            <div className="viewer-overlay" style={{ height: Math.floor(shown.height) }}>
              {overlay({
                page,
                width: shown.width / shown.scale,
                height: shown.height / shown.scale,
                scale: shown.scale,
              })}
            </div>
          )}
        </div>
      </div>
      <a className="trouble-link" href={url} target="_blank" rel="noopener noreferrer">
        {t('page.troubleViewing')}
      </a>
    </section>
  );
};

export default Viewer;
