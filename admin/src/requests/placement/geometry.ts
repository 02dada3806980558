import { DEFAULT_RECTANGLE, Limits } from '@esign/contract';

/**
 * The placement box's coordinate maths, free of React and the DOM.
 *
 * The contract's convention (api/src/modules/documents/pdf/placement.ts): every page is taken as displayed by a PDF
 * viewer (its crop box, turned by its /Rotate: exactly pdf.js's viewport), scaled uniformly so that it is
 * Limits.pageHeightPoints (840) units tall; a box is 'x1,y1,x2,y2' from that picture's top-left corner, y downward.
 * The screen shows the same picture at some CSS pixel size, so one factor (displayed height / 840) converts both ways.
 */

/** A box in page units (840-unit-tall page, origin top-left, y downward). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A page as shown on screen, in CSS pixels (PdfPageView's PageSize). */
export interface ShownSize {
  width: number;
  height: number;
}

export const PAGE_UNITS = Limits.pageHeightPoints;

/** CSS pixels per page unit for a page shown at this size. */
export const pixelsPerUnit = (shown: ShownSize): number => shown.height / PAGE_UNITS;

/** The page's size in units: 840 tall, as wide as its aspect ratio makes it. */
export const pageUnits = (shown: ShownSize): ShownSize => ({
  width: (shown.width / shown.height) * PAGE_UNITS,
  height: PAGE_UNITS,
});

const clampValue = (value: number, min: number, max: number): number =>
  Math.min(Math.max(value, min), Math.max(min, max));

/** The box moved (never resized unless larger than the page) so that it lies inside a page of `page` units. */
export function clampBox(box: Box, page: ShownSize): Box {
  const width = Math.min(box.width, page.width);
  const height = Math.min(box.height, page.height);
  return {
    x: clampValue(box.x, 0, page.width - width),
    y: clampValue(box.y, 0, page.height - height),
    width,
    height,
  };
}

/** The box after a drag of (dx, dy) CSS pixels on a page shown at `shown`, kept inside the page. */
export function dragBy(box: Box, dxPixels: number, dyPixels: number, shown: ShownSize): Box {
  const k = pixelsPerUnit(shown);
  return clampBox({ ...box, x: box.x + dxPixels / k, y: box.y + dyPixels / k }, pageUnits(shown));
}

/** The box in CSS pixels of the overlay of a page shown at `shown`. */
export function toPixels(box: Box, shown: ShownSize): Box {
  const k = pixelsPerUnit(shown);
  return { x: box.x * k, y: box.y * k, width: box.width * k, height: box.height * k };
}

/** Two decimals are far below a pixel (and `+ 0` turns -0 into 0). */
export const round2 = (value: number): number => Math.round(value * 100) / 100 + 0;

/** Trailing zeros dropped, so the default box stays '0,790,150,840'. */
const unitText = (value: number): string => String(round2(value));

/** The rectangle text /v1/save expects: 'x1,y1,x2,y2'. */
export const toRectangle = (box: Box): string =>
  [box.x, box.y, box.x + box.width, box.y + box.height].map(unitText).join(',');

/** A stored rectangle text back to a box; null when it is not four numbers with x2 > x1 and y2 > y1. */
export function parseRectangle(text: unknown): Box | null {
  if (typeof text !== 'string') return null;
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length !== 4 || parts.some((part) => part === '')) return null;
  const [x1, y1, x2, y2] = parts.map(Number);
  if (![x1, y1, x2, y2].every(Number.isFinite) || x2 <= x1 || y2 <= y1) return null;
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/** The never-dragged box: the contract's DEFAULT_RECTANGLE (bottom-left, 150 × 50). */
export const DEFAULT_BOX: Box = parseRectangle(DEFAULT_RECTANGLE) ?? {
  x: 0,
  y: Limits.defaultBoxTop,
  width: Limits.defaultBoxWidth,
  height: Limits.defaultBoxHeight,
};

/**
 * Where a box never dragged is shown (issue 18, point 15): near the top of the page, in view as the page opens, each
 * signer's a step lower and further right than the one before, so no box hides another (six signers reach y = 404 of
 * 840 and x = 374, inside even a narrow portrait page). What SAVE sends for such a box is still DEFAULT_RECTANGLE.
 */
export const STAGED_OFFSET = { x: 24, y: 24, stepX: 40, stepY: 66 } as const;

export const stagedBox = (index: number): Box => ({
  x: STAGED_OFFSET.x + STAGED_OFFSET.stepX * index,
  y: STAGED_OFFSET.y + STAGED_OFFSET.stepY * index,
  width: Limits.defaultBoxWidth,
  height: Limits.defaultBoxHeight,
});

/** Pages 1..total. */
export const allPages = (total: number): number[] => Array.from({ length: Math.max(0, total) }, (_, i) => i + 1);

/** Fills the `{name}` marks of a catalogue text: fill(Messages.pageOfTotal, { page: 1, total: 3 }). */
export const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (mark, name: string) => (name in values ? String(values[name]) : mark));
