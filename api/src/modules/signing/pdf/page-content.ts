import { PdfArray, PdfDict, PdfNumber, PdfRef, PdfStream, type PDF, type PdfObject, type PDFPage } from '@libpdf/core';

/*
 * What the stamp (stamp.ts) and the fields (fields-draw.ts) share to draw into a page of a revision: numbers as a
 * content stream writes them, where a box the reader sees lies in the page's user space, and how a drawing joins a
 * page's content and resources without disturbing what the page already shows.
 */

/** One number as a content stream writes it (no exponent, at most 4 decimals). */
export const num = (n: number): string => String(Math.round(n * 10_000) / 10_000 + 0);
export const ascii = (text: string) => new TextEncoder().encode(text);

/**
 * The matrix that puts a stamp drawn upright in its own w×h space (as the reader sees the box) onto the box in the
 * page's user space, turned counter-clockwise by the page's rotation so that it reads upright once displayed.
 */
export function boxMatrix(box: { x: number; y: number; width: number; height: number }, turn: number): number[] {
  switch (turn) {
    case 90:
      return [0, 1, -1, 0, box.x + box.width, box.y];
    case 180:
      return [-1, 0, 0, -1, box.x + box.width, box.y + box.height];
    case 270:
      return [0, -1, 1, 0, box.x, box.y + box.height];
    default:
      return [1, 0, 0, 1, box.x, box.y];
  }
}

/** The `q` and `Q` streams of one revision, shared by every page it draws on (the stamp's and the fields'). */
const isolations = new WeakMap<PDF, { open: PdfRef; close: PdfRef }>();
export function isolation(pdf: PDF): { open: PdfRef; close: PdfRef } {
  let streams = isolations.get(pdf);
  if (!streams) {
    const register = (content: string) => pdf.context.register(PdfStream.fromDict({}, ascii(content)));
    streams = { open: register('q\n'), close: register('\nQ\n') };
    isolations.set(pdf, streams);
  }
  return streams;
}

/**
 * Appends a content stream to the page, after its own content put between `q` and `Q` (a page may leave its graphics
 * state changed: a matrix, a clip, a colour). A page this revision already drew on is isolated once: the new stream
 * only follows the ones added before.
 */
export function appendContent(pdf: PDF, page: PDFPage, stream: PdfRef): void {
  const { open, close } = isolation(pdf);
  const own = page.dict.get('Contents');
  const resolved = own instanceof PdfRef ? pdf.context.resolve(own) : own;
  const existing: PdfObject[] =
    resolved instanceof PdfArray
      ? Array.from({ length: resolved.length }, (_, i) => resolved.at(i) as PdfObject)
      : own
        ? [own]
        : [];
  const is = (item: PdfObject | undefined, ref: PdfRef) =>
    item instanceof PdfRef && item.objectNumber === ref.objectNumber;
  const isolated = is(existing[0], open) && existing.some((item) => is(item, close));
  page.dict.set('Contents', new PdfArray(isolated ? [...existing, stream] : [open, ...existing, close, stream]));
}

/**
 * Names the stamp's form XObject in the page's resources. A page without its own /Resources inherits its parent's:
 * those are copied onto the page first (PDFPage.getResources would start an empty dictionary and the page would lose
 * its fonts). A dictionary shared by several pages only gains a name the others never use.
 */
export function addForm(pdf: PDF, page: PDFPage, name: string, form: PdfRef): void {
  const resolve = (ref: PdfRef) => pdf.context.resolve(ref);
  let resources = page.dict.get('Resources', resolve);
  if (!(resources instanceof PdfDict)) {
    let node = page.dict.get('Parent', resolve);
    let inherited: PdfDict | null = null;
    for (let depth = 0; node instanceof PdfDict && !inherited && depth < 64; depth++) {
      const found = node.get('Resources', resolve);
      if (found instanceof PdfDict) inherited = found;
      node = node.get('Parent', resolve);
    }
    resources = inherited ? inherited.clone() : new PdfDict();
    page.dict.set('Resources', resources);
  }
  const current = (resources as PdfDict).get('XObject', resolve);
  const xobjects = current instanceof PdfDict ? current : new PdfDict();
  xobjects.set(name, form);
  if (!(current instanceof PdfDict)) (resources as PdfDict).set('XObject', xobjects);
}

/** A box in the page's user space (points, y upward). */
export interface UserBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How a viewer shows a page: its visible box (the crop box within the media box) and its quarter turn. */
export interface PageShown {
  /** [x, y, width, height] in user space. */
  crop: [number, number, number, number];
  turn: 0 | 90 | 180 | 270;
}

/** A page attribute it inherits from the page tree when it has none (ISO 32000-1, 7.7.3.4). */
function inheritedOf(pdf: PDF, page: PDFPage, key: string): PdfObject | undefined {
  const resolve = (ref: PdfRef) => pdf.context.resolve(ref);
  let node: PdfObject | undefined = page.dict;
  for (let depth = 0; node instanceof PdfDict && depth < 64; depth++) {
    const value = node.get(key, resolve);
    if (value !== undefined) return value;
    node = node.get('Parent', resolve);
  }
  return undefined;
}

function numbersOf(pdf: PDF, page: PDFPage, key: string): number[] | null {
  const array = inheritedOf(pdf, page, key);
  if (!(array instanceof PdfArray)) return null;
  const values: number[] = [];
  for (let i = 0; i < array.length; i++) {
    const item = array.at(i);
    const value = item instanceof PdfRef ? pdf.context.resolve(item) : item;
    if (!(value instanceof PdfNumber)) return null;
    values.push(value.value);
  }
  return values;
}

/** A box array as [x, y, width, height], or null when it is not four finite numbers enclosing an area. */
function boxOf(values: number[] | null): [number, number, number, number] | null {
  if (!values || values.length !== 4 || !values.every(Number.isFinite)) return null;
  const [x1, y1, x2, y2] = values;
  const box: [number, number, number, number] = [
    Math.min(x1, x2),
    Math.min(y1, y2),
    Math.abs(x2 - x1),
    Math.abs(y2 - y1),
  ];
  return box[2] > 0 && box[3] > 0 ? box : null;
}

/**
 * The page as a viewer shows it from its (own or inherited) media box, crop box and /Rotate, read as the upload's
 * inspection reads them: the crop box within the media box (US Letter without a media box), a quarter turn.
 */
export function shownFrom(mediaBox: number[] | null, cropBox: number[] | null, rotate: number): PageShown {
  const media = boxOf(mediaBox) ?? [0, 0, 612, 792];
  const crop = boxOf(cropBox) ?? media;
  const x1 = Math.max(crop[0], media[0]);
  const y1 = Math.max(crop[1], media[1]);
  const x2 = Math.min(crop[0] + crop[2], media[0] + media[2]);
  const y2 = Math.min(crop[1] + crop[3], media[1] + media[3]);
  const angle = Number.isInteger(rotate) && rotate % 90 === 0 ? rotate : 0;
  return {
    crop: x2 > x1 && y2 > y1 ? [x1, y1, x2 - x1, y2 - y1] : media,
    turn: (((angle % 360) + 360) % 360) as PageShown['turn'],
  };
}

/** The page as a viewer shows it, read as the upload's inspection reads it (inherited boxes and /Rotate). */
export function pageShown(pdf: PDF, page: PDFPage): PageShown {
  const rotate = inheritedOf(pdf, page, 'Rotate');
  return shownFrom(
    numbersOf(pdf, page, 'MediaBox'),
    numbersOf(pdf, page, 'CropBox'),
    rotate instanceof PdfNumber ? rotate.value : 0,
  );
}

/**
 * A box given as the reader sees the page ([x1, y1, x2, y2] in points from the displayed top-left corner, y down:
 * what pdf.js's viewport at scale 1 and `pdftotext -bbox` use) in the page's user space. As toPageBox
 * (documents/pdf/placement.ts) turns the console's boxes, without its 840-point scaling; moved inside the visible
 * area when it reaches past it.
 */
export function shownToUser(box: [number, number, number, number], shown: PageShown): UserBox {
  const [cx, cy, cw, ch] = shown.crop;
  const quarter = shown.turn === 90 || shown.turn === 270;
  const [shownWidth, shownHeight] = quarter ? [ch, cw] : [cw, ch];
  const w = Math.min(Math.abs(box[2] - box[0]), shownWidth);
  const h = Math.min(Math.abs(box[3] - box[1]), shownHeight);
  const left = Math.min(Math.max(Math.min(box[0], box[2]), 0), shownWidth - w);
  const top = Math.min(Math.max(Math.min(box[1], box[3]), 0), shownHeight - h);
  switch (shown.turn) {
    case 90:
      return { x: cx + top, y: cy + left, width: h, height: w };
    case 180:
      return { x: cx + cw - left - w, y: cy + top, width: w, height: h };
    case 270:
      return { x: cx + cw - top - h, y: cy + ch - left - w, width: h, height: w };
    default:
      return { x: cx + left, y: cy + ch - top - h, width: w, height: h };
  }
}
