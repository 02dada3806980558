import { PdfArray, PdfDict, PdfName, PdfNumber, PdfStream, type PdfRef } from '@libpdf/core';
import type { FieldDrawing } from './engine';
import type { DejaVuFace } from './fonts';
import { ascii, boxMatrix, num, shownToUser, type PageShown } from './page-content';
import { glyphHex, type Canvas } from './revision/canvas';
import { extentOf, hasGlyph, oneLine, runsOf, truncated, widthOf, type TextRun } from './text-runs';

/*
 * A party's filled fields (issue 21), drawn flattened into the revision that carries their signature: the values are
 * page content, covered by that signature, not form fields anyone could change afterwards.
 *
 * Each page that carries fields gets one form XObject holding all of them and one stream placing it; every form uses
 * the same font resources (one dictionary per revision), and the fonts are embedded only when a value needs them.
 * Pages without fields are not touched: on a 352-page book a party's fields add a handful of objects, not thousands.
 */

/** A value's text is fitted to its box, at most this size (a form's usual body text) ... */
const MAX_PT = 11;
/** ... and not below this one: smaller, it is cut with an ellipsis instead. */
const MIN_PT = 4;
/** A radio group's options are stacked when each line can be this large, else written on one line. */
const STACKED_MIN_PT = 6;
/** Filled values, in near-black; the checkbox's and radio buttons' frames a little lighter. */
const INK = '0.1 0.1 0.1';
const FRAME = '0.3 0.3 0.3';

const CHECK = '\u2713';
const RADIO_OFF = '\u25CB';
const RADIO_ON = '\u25CF';
const PAPERCLIP = '\u{1F4CE}';

/** A rectangle in a field's own w×h space (the box as the reader sees it, origin bottom-left). */
interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The font resources one revision's fields share: a name per font, given on first use. */
class FontResources {
  readonly dict = new PdfDict();
  private readonly names = new Map<PdfRef, string>();
  private ref: PdfRef | null = null;

  constructor(private readonly canvas: Canvas) {}

  /** The run's font name and glyphs (the shared subset of its face, or the revision's own). */
  encode(run: TextRun): { name: string; hex: string } {
    const { ref, gids } = this.canvas.fonts.encode(run.key, run.text);
    let name = this.names.get(ref);
    if (!name) {
      name = `F${this.names.size}`;
      this.names.set(ref, name);
      this.dict.set(name, ref);
    }
    return { name, hex: glyphHex(gids) };
  }

  /** The resources dictionary every page's form points at, registered when the first form needs it. */
  resources(): PdfRef {
    this.ref ??= this.canvas.scratch.context.register(new PdfDict([['Font', this.dict]]));
    return this.ref;
  }
}

/** How a line of text sits in an area: its runs, size and baseline. */
interface FittedLine {
  runs: TextRun[];
  size: number;
  x: number;
  baseline: number;
}

/**
 * One line of `text` fitted to `area`: as large as fits its width and height (at most `max`), not below MIN_PT unless
 * the height demands it, cut with an ellipsis when it still does not fit; vertically centred (by the fonts' ascent
 * and descent, what text extraction reports as the words' box), left-aligned or centred.
 */
function fitLine(text: string, face: DejaVuFace, area: Area, align: 'left' | 'centre' = 'left', max = MAX_PT) {
  const whole = runsOf(text, face);
  if (!whole.length || area.w <= 0 || area.h <= 0) return null;
  const { ascent, descent } = extentOf(whole);
  const byHeight = area.h / (ascent + descent);
  const byWidth = area.w / Math.max(widthOf(whole, 1), 0.001);
  const size = Math.min(max, byHeight, Math.max(byWidth, MIN_PT));
  const runs = byWidth >= size ? whole : truncated(text, face, size, area.w);
  if (!runs.length) return null;
  const width = widthOf(runs, size);
  return {
    runs,
    size,
    x: align === 'centre' ? area.x + (area.w - width) / 2 : area.x,
    baseline: area.y + (area.h - (ascent + descent) * size) / 2 + descent * size,
  } satisfies FittedLine;
}

/** The line as content: one text object, a font change per run, the runs advancing by their own widths. */
function lineContent(fonts: FontResources, line: FittedLine): string {
  const shown = line.runs.map((run) => {
    const { name, hex } = fonts.encode(run);
    return `/${name} ${num(line.size)} Tf <${hex}> Tj`;
  });
  return `BT ${INK} rg ${num(line.x)} ${num(line.baseline)} Td ${shown.join(' ')} ET`;
}

/** A square frame (and its check mark when checked) at the left of `area`, the label beside it when there is room. */
function checkboxContent(fonts: FontResources, field: FieldDrawing, area: Area): string[] {
  const side = Math.min(area.h, area.w, MAX_PT);
  const square: Area = { x: area.x, y: area.y + (area.h - side) / 2, w: side, h: side };
  const stroke = Math.max(side / 16, 0.4);
  const parts = [
    `q ${FRAME} RG ${num(stroke)} w ${num(square.x + stroke / 2)} ${num(square.y + stroke / 2)} ${num(side - stroke)} ${num(side - stroke)} re S Q`,
  ];
  if (field.value === 'true') {
    const inset = side * 0.12;
    const mark = fitLine(
      CHECK,
      'regular',
      { x: square.x + inset, y: square.y + inset, w: side - 2 * inset, h: side - 2 * inset },
      'centre',
      side,
    );
    if (mark) parts.push(lineContent(fonts, mark));
  }
  const gap = side * 0.4;
  const rest: Area = { x: area.x + side + gap, y: area.y, w: area.w - side - gap, h: area.h };
  const label = oneLine(field.label);
  // A label only where a few letters of it fit at the smallest size.
  if (label && rest.w >= 3 * MIN_PT) {
    const line = fitLine(label, 'regular', rest);
    if (line) parts.push(lineContent(fonts, line));
  }
  return parts;
}

/** The options, each after its mark (the chosen one filled): stacked when the box is tall enough, else in a line. */
function radioContent(fonts: FontResources, field: FieldDrawing, area: Area): string[] {
  const options = (field.options ?? []).map(oneLine).filter(Boolean);
  if (!options.length) return [];
  const texts = options.map((option) => `${option === oneLine(field.value ?? '') ? RADIO_ON : RADIO_OFF} ${option}`);
  const rows = options.length;
  const { ascent, descent } = extentOf(texts.flatMap((text) => runsOf(text, 'regular')));
  if (area.h / rows >= STACKED_MIN_PT * (ascent + descent)) {
    const rowHeight = area.h / rows;
    // One size for every option: the largest at which each fits its row.
    const size = Math.min(...texts.map((text) => fitLine(text, 'regular', { ...area, h: rowHeight })?.size ?? MAX_PT));
    return texts.flatMap((text, i) => {
      const row: Area = { x: area.x, y: area.y + area.h - (i + 1) * rowHeight, w: area.w, h: rowHeight };
      const line = fitLine(text, 'regular', row, 'left', size);
      return line ? [lineContent(fonts, line)] : [];
    });
  }
  const line = fitLine(texts.join('   '), 'regular', area);
  return line ? [lineContent(fonts, line)] : [];
}

/** What one field draws in its w×h space (empty: nothing to draw). */
function fieldContent(fonts: FontResources, field: FieldDrawing, w: number, h: number): string[] {
  const pad = { x: Math.min(2, w * 0.06), y: Math.min(1.5, h * 0.1) };
  const area: Area = { x: pad.x, y: pad.y, w: w - 2 * pad.x, h: h - 2 * pad.y };
  if (field.kind === 'checkbox') return checkboxContent(fonts, field, area);
  if (field.kind === 'radio') return radioContent(fonts, field, area);
  const value = oneLine(field.value ?? '');
  if (!value) return [];
  let text = value;
  if (field.kind === 'attachment') text = `${hasGlyph('regular', PAPERCLIP) ? `${PAPERCLIP} ` : ''}Attached: ${value}`;
  const line = fitLine(text, field.kind === 'initials' ? 'oblique' : 'regular', area);
  return line ? [lineContent(fonts, line)] : [];
}

/**
 * Draws the party's fields, flattened, into their pages (call before the signature field is placed, in the same
 * incremental update). Each value is drawn upright as the page is displayed, inside its box ([x1, y1, x2, y2] from
 * the displayed page's top-left corner), on one line fitted to the box. Fields on pages the document lacks are
 * skipped.
 */
export function drawFields(canvas: Canvas, fields: FieldDrawing[]): void {
  if (!fields.length) return;
  const byPage = new Map<number, FieldDrawing[]>();
  for (const field of fields) {
    if (!(field.page >= 1 && field.page <= canvas.pageCount)) continue;
    byPage.set(field.page, [...(byPage.get(field.page) ?? []), field]);
  }
  const fonts = new FontResources(canvas);
  for (const [pageNo, onPage] of [...byPage].sort(([a], [b]) => a - b)) {
    const shown: PageShown = canvas.shown(pageNo);
    const parts: string[] = [];
    for (const field of onPage) {
      const box = shownToUser(field.box, shown);
      const quarter = shown.turn === 90 || shown.turn === 270;
      const [w, h] = quarter ? [box.height, box.width] : [box.width, box.height];
      const content = fieldContent(fonts, field, w, h);
      if (!content.length) continue;
      // Clipped to the box: nothing a value draws reaches past it.
      const matrix = boxMatrix(box, shown.turn).map(num).join(' ');
      parts.push(`q ${matrix} cm 0 0 ${num(w)} ${num(h)} re W n\n${content.join('\n')}\nQ`);
    }
    if (!parts.length) continue;
    const [cx, cy, cw, ch] = shown.crop;
    const form = canvas.scratch.context.register(
      PdfStream.fromDict(
        {
          Type: PdfName.of('XObject'),
          Subtype: PdfName.of('Form'),
          BBox: new PdfArray([cx, cy, cx + cw, cy + ch].map((v) => PdfNumber.of(v))),
          Resources: fonts.resources(),
        },
        ascii(parts.join('\n')),
      ),
    );
    // A name of its own on each page (pages may share one resources dictionary), unique to the revision.
    const name = `EsignFields${canvas.uniqueNumber}_${pageNo}`;
    canvas.addForm(pageNo, name, form);
    canvas.appendContent(pageNo, canvas.scratch.context.register(PdfStream.fromDict({}, ascii(`\nq /${name} Do Q\n`))));
  }
}
