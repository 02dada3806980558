import { Limits, Messages } from '@esign/contract';
import type { PageGeometry, PlacedBox } from './geometry';
import { validation } from './messages';
import { pageIndex, toRuns, type PageView } from './pageRuns';

/** Each page as a viewer shows it: width and height in points (the crop box, turned by /Rotate); null: no such page. */
export function shownPageSizes(geometry: PageGeometry[]): (page: number) => { width: number; height: number } | null {
  const viewOf = pageIndex(geometry);
  return (page) => {
    try {
      const view = viewOf(page);
      const [, , w, h] = view.cropBox;
      const quarter = Math.abs(Math.round(view.rotation / 90)) % 2 === 1;
      return quarter ? { width: h, height: w } : { width: w, height: h };
    } catch {
      return null;
    }
  };
}

/**
 * The console's signature box (spec section 5, DESIGN.md section 4) and where it lands on the real pages.
 *
 * The console shows each page as displayed by a PDF viewer (its visible crop box, turned by its /Rotate), scaled
 * uniformly so that it is 840 points tall, and sends the box as 'x1,y1,x2,y2' from the top-left corner of that picture,
 * y growing downward. The default, never-dragged box '0,790,150,840' is the bottom-left corner.
 */

/** A box in the console's convention: 840-point-tall displayed page, origin top-left, y downward. */
export interface Rectangle {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A box in the page's PDF user space (points, y upward), as drawing operators and a /Rect take it. */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Parses and checks the rectangle text; applies the spec's rule that '0,0,150,100' becomes '0,0,150,50'. */
export function normaliseRectangle(text: string): Rectangle {
  if (typeof text !== 'string') throw validation(Messages.invalidRectangle);
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length !== 4 || !parts.every((part) => NUMBER.test(part))) throw validation(Messages.invalidRectangle);
  const [x1, y1, x2, y2] = parts.map(Number);
  if (![x1, y1, x2, y2].every(Number.isFinite) || x2 <= x1 || y2 <= y1) throw validation(Messages.invalidRectangle);
  if (x1 === 0 && y1 === 0 && x2 === Limits.defaultBoxWidth && y2 === 2 * Limits.defaultBoxHeight) {
    return { x1: 0, y1: 0, x2: Limits.defaultBoxWidth, y2: Limits.defaultBoxHeight };
  }
  return { x1, y1, x2, y2 };
}

const round = (value: number) => Math.round(value * 1000) / 1000 + 0;
const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * The box in the page's user space. s = displayed height / 840 scales both axes (the console scales the page
 * uniformly). The box is moved inside the visible area when dropped partly off it (and shrunk when larger), then
 * turned back through the page's rotation (/Rotate turns the page clockwise for display):
 *
 *   rotation   displayed top-left is user-space   right on screen is   down on screen is
 *   0          (cropX, cropY + cropH)             +x                   -y
 *   90         (cropX, cropY)                     +y                   +x
 *   180        (cropX + cropW, cropY)             -x                   +y
 *   270        (cropX + cropW, cropY + cropH)     -y                   -x
 */
export function toPageBox(rect: Rectangle, page: PageView): PageBox {
  const [cx, cy, cw, ch] = page.cropBox;
  const rotation = (((Math.round(page.rotation / 90) * 90) % 360) + 360) % 360;
  const quarter = rotation === 90 || rotation === 270;
  const shownWidth = quarter ? ch : cw;
  const shownHeight = quarter ? cw : ch;
  const s = shownHeight / Limits.pageHeightPoints;

  // Displayed coordinates, in points, from the displayed top-left corner.
  const w = Math.min((rect.x2 - rect.x1) * s, shownWidth);
  const h = Math.min((rect.y2 - rect.y1) * s, shownHeight);
  const left = clamp(rect.x1 * s, 0, shownWidth - w);
  const top = clamp(rect.y1 * s, 0, shownHeight - h);

  let box: PageBox;
  switch (rotation) {
    case 90:
      box = { x: cx + top, y: cy + left, width: h, height: w };
      break;
    case 180:
      box = { x: cx + cw - left - w, y: cy + top, width: w, height: h };
      break;
    case 270:
      box = { x: cx + cw - top - h, y: cy + ch - left - w, width: h, height: w };
      break;
    default:
      box = { x: cx + left, y: cy + ch - top - h, width: w, height: h };
  }
  return { x: round(box.x), y: round(box.y), width: round(box.width), height: round(box.height) };
}

export interface PlaceBoxesInput {
  rectangle: string;
  /** 1-based pages (spec `pageNo`); ignored when applyAll. */
  pageNo: number[];
  applyAll: boolean;
  totalPages: number;
  geometry: PageGeometry[];
}

/** One box per page to be signed, pages with the same box grouped into runs ("1-3,7"), in page order. */
export function placeBoxes(input: PlaceBoxesInput): PlacedBox[] {
  const rect = normaliseRectangle(input.rectangle);
  const total = input.totalPages;
  if (!Number.isInteger(total) || total < 1) throw validation(Messages.invalidRequest);

  let pages: number[];
  if (input.applyAll === true) {
    pages = Array.from({ length: total }, (_, i) => i + 1);
  } else {
    if (!Array.isArray(input.pageNo) || input.pageNo.length === 0) throw validation(Messages.noPagesSelected);
    const bad = input.pageNo.filter((page) => !Number.isInteger(page) || page < 1 || page > total);
    if (bad.length > 0) throw validation(Messages.pageOutOfRange, { page: JSON.stringify(bad[0]) ?? '?', total });
    pages = [...new Set(input.pageNo)].sort((a, b) => a - b);
  }

  const viewOf = pageIndex(input.geometry);
  const groups = new Map<string, { box: PageBox; pages: number[] }>();
  for (const page of pages) {
    const box = toPageBox(rect, viewOf(page));
    const key = `${box.x},${box.y},${box.width},${box.height}`;
    const group = groups.get(key);
    if (group) group.pages.push(page);
    else groups.set(key, { box, pages: [page] });
  }
  return [...groups.values()].map(({ box, pages: runPages }) => ({ pages: toRuns(runPages), ...box }));
}
