import { Limits } from '@esign/contract';
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfStream, type PdfObject, type PdfRef } from '@libpdf/core';
import type { PlacedBox } from '../../documents/pdf/geometry';
import { fromRuns } from '../../documents/pdf/pageRuns';
import type { StampInput, WidgetPlace } from './engine';
import { embedAttachments } from './attachments';
import { drawFields } from './fields-draw';
import { measuringFont, type DejaVuFace } from './fonts';
import { ascii, boxMatrix, num } from './page-content';
import { embedSignatureImage, type EmbeddedImage } from './png-image';
import { glyphHex, type Canvas } from './revision/canvas';

/** The typed name: 24 CSS px (spec section 9) is 18 pt. */
const TYPED_NAME_PT = (Limits.nameSignatureFontPx * 72) / 96;
/** The visible signature's lines (issue 19), at most this size. */
const SIGNED_BY_PT = 7;
/** The visible signature's frame. */
const FRAME_PT = 0.6;
/** Room left around a stamp inside its box. */
const PADDING = 0.06;

/** A rectangle inside a stamp's own w×h space. */
interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The stamp's drawing: the image or name (in a DejaVu face), and in the first box the signature's lines and frame. */
interface StampLook {
  image: EmbeddedImage | null;
  face: DejaVuFace | null;
  name: string | null;
  /** The visible signature's lines (DejaVu Sans), in the first box only. */
  signedBy?: string[] | null;
}

/** The image fitted and centred in `area`, or the typed name (18 pt at most) centred in it. */
function markContent(
  canvas: Canvas,
  look: StampLook,
  area: Area,
  resources: { xobjects: [string, PdfRef][]; fonts: [string, PdfRef][] },
): string {
  const parts: string[] = [];
  if (look.image) {
    const scale = Math.min(area.w / look.image.width, area.h / look.image.height);
    const [w, h] = [look.image.width * scale, look.image.height * scale];
    resources.xobjects.push(['Im0', look.image.ref]);
    parts.push(
      `q ${num(w)} 0 0 ${num(h)} ${num(area.x + (area.w - w) / 2)} ${num(area.y + (area.h - h) / 2)} cm /Im0 Do Q`,
    );
  }
  if (look.face && look.name) {
    const widthAt1 = Math.max(measuringFont(look.face).widthOfTextAtSize(look.name, 1), 0.001);
    const size = Math.min(TYPED_NAME_PT, area.w / widthAt1, area.h / 1.2);
    const { ref, gids } = canvas.fonts.encode(look.face, look.name);
    resources.fonts.push(['F0', ref]);
    // The baseline a third of the size below the centre puts the letters' middle on the centre.
    const x = area.x + (area.w - widthAt1 * size) / 2;
    const y = area.y + area.h / 2 - size * 0.33;
    parts.push(`BT /F0 ${num(size)} Tf ${num(x)} ${num(y)} Td <${glyphHex(gids)}> Tj ET`);
  }
  return parts.join('\n');
}

/** The visible signature's lines, left-aligned in `area`, the size fitted to the longest line (7 pt at most). */
function signedByContent(
  canvas: Canvas,
  lines: string[],
  area: Area,
  resources: { fonts: [string, PdfRef][] },
): string {
  const widest = Math.max(...lines.map((line) => measuringFont('regular').widthOfTextAtSize(line, 1)), 0.001);
  const size = Math.min(SIGNED_BY_PT, area.w / widest, area.h / (lines.length * 1.25));
  const leading = size * 1.25;
  const top = area.y + (area.h + lines.length * leading) / 2 - size;
  return lines
    .map((line, i) => {
      // A line with a character outside the shared subset gets the revision's own subset: a name per font.
      const { ref, gids } = canvas.fonts.encode('regular', line);
      let name = resources.fonts.find(([, known]) => known === ref)?.[0];
      if (!name) {
        name = `F${resources.fonts.length + 1}`;
        resources.fonts.push([name, ref]);
      }
      return `BT /${name} ${num(size)} Tf ${num(area.x)} ${num(top - i * leading)} Td <${glyphHex(gids)}> Tj ET`;
    })
    .join('\n');
}

/**
 * What a stamp shows in a w×h box: the image or name; in the signer's first box, the signature's lines beside it (or
 * under it, in a narrow box) inside a thin frame.
 */
function stampContent(
  canvas: Canvas,
  look: StampLook,
  width: number,
  height: number,
): { content: string; resources: PdfDict } {
  const pad = { x: width * PADDING, y: height * PADDING };
  const full: Area = { x: pad.x, y: pad.y, w: width - 2 * pad.x, h: height - 2 * pad.y };
  const used = { xobjects: [] as [string, PdfRef][], fonts: [] as [string, PdfRef][] };
  const parts: string[] = [];
  if (look.signedBy) {
    // A thin frame just inside the box, in the product's purple.
    parts.push(
      `q 0.37 0.21 0.69 RG ${num(FRAME_PT)} w ${num(FRAME_PT / 2)} ${num(FRAME_PT / 2)} ${num(width - FRAME_PT)} ${num(height - FRAME_PT)} re S Q`,
    );
    const wide = full.w >= 1.4 * full.h;
    const mark: Area = wide
      ? { x: full.x, y: full.y, w: full.w * 0.4, h: full.h }
      : { x: full.x, y: full.y + full.h * 0.5, w: full.w, h: full.h * 0.5 };
    const text: Area = wide
      ? { x: full.x + full.w * 0.44, y: full.y, w: full.w * 0.56, h: full.h }
      : { x: full.x, y: full.y, w: full.w, h: full.h * 0.48 };
    parts.push(markContent(canvas, look, mark, used));
    parts.push(signedByContent(canvas, look.signedBy, text, used));
  } else {
    parts.push(markContent(canvas, look, full, used));
  }
  const resources = new PdfDict();
  if (used.xobjects.length) resources.set('XObject', new PdfDict(used.xobjects));
  if (used.fonts.length) resources.set('Font', new PdfDict(used.fonts));
  return { content: parts.filter(Boolean).join('\n'), resources };
}

/**
 * Stamps the party's boxes. Pages share everything they can: one form XObject per box size, one content stream per
 * distinct placement, one `q` and one `Q` stream for isolating each page's own content (a page may leave its graphics
 * state changed). Drawing through PDFPage.drawImage instead would add three objects to every page: for a 352-page book
 * signed by six parties, thousands of objects written and hashed.
 */
function stampBoxes(
  canvas: Canvas,
  stamp: StampInput,
  name: string | null,
  face: DejaVuFace | null,
  signedBy: string[] | null = null,
): WidgetPlace | null {
  const { scratch } = canvas;
  const image = stamp.image ? embedSignatureImage(scratch, stamp.image) : null;
  const register = (content: string, dict: Record<string, PdfObject> = {}) =>
    scratch.context.register(PdfStream.fromDict(dict, ascii(content)));
  const forms = new Map<string, { ref: PdfRef; name: string }>();
  const placements = new Map<string, PdfRef>();
  // Unique among the names the pages already use: the number is new in this document.
  const prefix = `EsignStamp${canvas.uniqueNumber}_`;
  // The signer's first box (the lowest page, then the first box listed) carries the visible signature.
  const placed: { box: PlacedBox; page: number }[] = stamp.boxes.flatMap((box) =>
    fromRuns(box.pages)
      .filter((page) => page >= 1 && page <= canvas.pageCount)
      .map((page) => ({ box, page })),
  );
  const first = placed.reduce<(typeof placed)[number] | null>(
    (best, p) => (best === null || p.page < best.page ? p : best),
    null,
  );

  for (const { box, page: pageNo } of placed) {
    const signed = signedBy !== null && first !== null && first.box === box && first.page === pageNo;
    // The turn the upload's inspection saw (an inherited /Rotate too): the console placed the box on that view.
    const turn = canvas.shown(pageNo).turn;
    const [w, h] = turn === 90 || turn === 270 ? [box.height, box.width] : [box.width, box.height];
    const sizeKey = `${num(w)}x${num(h)}${signed ? ':signed' : ''}`;
    let form = forms.get(sizeKey);
    if (!form) {
      const look = { image, face, name, signedBy: signed ? signedBy : null };
      const { content, resources } = stampContent(canvas, look, w, h);
      const ref = register(content, {
        Type: PdfName.of('XObject'),
        Subtype: PdfName.of('Form'),
        BBox: new PdfArray([0, 0, w, h].map((v) => PdfNumber.of(v))),
        Resources: resources,
      });
      form = { ref, name: `${prefix}${forms.size}` };
      forms.set(sizeKey, form);
    }
    const matrix = boxMatrix(box, turn).map(num).join(' ');
    const placeKey = `${form.name}@${matrix}`;
    let placement = placements.get(placeKey);
    if (!placement) {
      placement = register(`\nq ${matrix} cm /${form.name} Do Q\n`);
      placements.set(placeKey, placement);
    }
    canvas.addForm(pageNo, form.name, form.ref);
    canvas.appendContent(pageNo, placement);
  }
  return first
    ? { page: first.page, x: first.box.x, y: first.box.y, width: first.box.width, height: first.box.height }
    : null;
}

/** Characters the face has no glyph for would render as nothing: show them as '?' instead. */
function encodable(face: DejaVuFace, text: string): string {
  const font = measuringFont(face);
  return [...text].map((ch) => (font.canEncode(ch) ? ch : '?')).join('');
}

/**
 * Stamps the party's boxes: their image, or their name typed in DejaVu; in the first box, the visible signature's
 * lines in a frame. Then, in the same revision, draws the party's fields and embeds their attachments (issue 21), so
 * that the signature covers exactly what the party filled. `at` dates the attachments (the signing time). Answers
 * the first box (the signature's widget), or null when no box is on a page.
 */
export function stampParty(canvas: Canvas, stamp: StampInput, at: Date = new Date()): WidgetPlace | null {
  const face: DejaVuFace | null = stamp.text ? (stamp.text.italic ? 'oblique' : 'regular') : null;
  const name = face && stamp.text ? encodable(face, stamp.text.value) : null;
  const signedBy = stamp.signedBy?.length ? stamp.signedBy.map((line) => encodable('regular', line)) : null;
  const widget = stampBoxes(canvas, stamp, name, face, signedBy);
  if (stamp.fields?.length) drawFields(canvas, stamp.fields);
  if (stamp.attachments?.length) embedAttachments(canvas, stamp.attachments, at);
  return widget;
}
