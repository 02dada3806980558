import { Limits } from '@esign/contract';
import {
  PDF,
  PdfArray,
  PdfDict,
  PdfName,
  PdfNumber,
  PdfRef,
  PdfStream,
  type EmbeddedFont,
  type PdfObject,
  type PDFImage,
  type PDFPage,
} from '@libpdf/core';
import { fromRuns } from '../../documents/pdf/pageRuns';
import { appendCompletionCertificate, type CompletionCertificateInput } from './completion-certificate';
import { DocumentNotSignableError, SigningEngine, type SignatureSpec, type StampInput } from './engine';
import { dejaVuFont } from './fonts';

/** The typed name: 24 CSS px (spec section 9) is 18 pt. */
const TYPED_NAME_PT = (Limits.nameSignatureFontPx * 72) / 96;
/** The caption under a stamp (the Aadhaar and DSC stamps' method line), at most this size. */
const CAPTION_PT = 8;
/** Room left around a stamp inside its box. */
const PADDING = 0.06;
/** CMS size reserved in /Contents: certificate chain of three, signed attributes, room to spare. */
const SIGNATURE_BYTES = 16_384;

/** One number as a content stream writes it (no exponent, at most 4 decimals). */
const num = (n: number): string => String(Math.round(n * 10_000) / 10_000 + 0);
const ascii = (text: string) => new TextEncoder().encode(text);

/** The quarter turn of a page, 0, 90, 180 or 270: /Rotate turns the page clockwise for display. */
const turnOf = (page: PDFPage) => (((page.rotation ?? 0) % 360) + 360) % 360;

/**
 * The matrix that puts a stamp drawn upright in its own w×h space (as the reader sees the box) onto the box in the
 * page's user space, turned counter-clockwise by the page's rotation so that it reads upright once displayed.
 */
function boxMatrix(box: { x: number; y: number; width: number; height: number }, turn: number): number[] {
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

/** What a stamp shows in a w×h box: the image fitted and centred, or the typed name (18 pt at most) centred. */
function stampContent(
  pdf: PDF,
  stamp: {
    image: PDFImage | null;
    font: EmbeddedFont | null;
    name: string | null;
    caption?: { font: EmbeddedFont; text: string } | null;
  },
  width: number,
  height: number,
): { content: string; resources: PdfDict } {
  const full = { w: width * (1 - 2 * PADDING), h: height * (1 - 2 * PADDING) };
  // A caption (e.g. 'Signed using Aadhaar eSign') takes the bottom quarter; the name or image the rest, above it.
  const captionH = stamp.caption ? full.h * 0.28 : 0;
  const room = { w: full.w, h: full.h - captionH };
  const lift = captionH / 2;
  const fonts: [string, PdfRef][] = [];
  const resources = new PdfDict();
  const parts: string[] = [];
  if (stamp.image) {
    const scale = Math.min(room.w / stamp.image.width, room.h / stamp.image.height);
    const [w, h] = [stamp.image.width * scale, stamp.image.height * scale];
    resources.set('XObject', new PdfDict([['Im0', stamp.image.ref]]));
    parts.push(`q ${num(w)} 0 0 ${num(h)} ${num((width - w) / 2)} ${num((height - h) / 2 + lift)} cm /Im0 Do Q`);
  }
  if (stamp.font && stamp.name) {
    const widthAt1 = Math.max(stamp.font.widthOfTextAtSize(stamp.name, 1), 0.001);
    const size = Math.min(TYPED_NAME_PT, room.w / widthAt1, room.h / 1.2);
    const glyphs = stamp.font
      .encodeTextToGids(stamp.name)
      .map((gid) => gid.toString(16).padStart(4, '0'))
      .join('');
    fonts.push(['F0', pdf.fonts.getRef(stamp.font)]);
    // The baseline a third of the size below the centre puts the letters' middle on the centre.
    const x = (width - widthAt1 * size) / 2;
    const y = height / 2 + lift - size * 0.33;
    parts.push(`BT /F0 ${num(size)} Tf ${num(x)} ${num(y)} Td <${glyphs}> Tj ET`);
  }
  if (stamp.caption) {
    const { font, text } = stamp.caption;
    const widthAt1 = Math.max(font.widthOfTextAtSize(text, 1), 0.001);
    const size = Math.min(CAPTION_PT, full.w / widthAt1, captionH / 1.2);
    const glyphs = font
      .encodeTextToGids(text)
      .map((gid) => gid.toString(16).padStart(4, '0'))
      .join('');
    fonts.push(['F1', pdf.fonts.getRef(font)]);
    const x = (width - widthAt1 * size) / 2;
    const y = height * PADDING + captionH / 2 - size * 0.33;
    parts.push(`BT /F1 ${num(size)} Tf ${num(x)} ${num(y)} Td <${glyphs}> Tj ET`);
  }
  if (fonts.length) resources.set('Font', new PdfDict(fonts));
  return { content: parts.join('\n'), resources };
}

/**
 * Stamps the party's boxes. Pages share everything they can: one form XObject per box size, one content stream per
 * distinct placement, one `q` and one `Q` stream for isolating each page's own content (a page may leave its graphics
 * state changed). Drawing through PDFPage.drawImage instead would add three objects to every page: for a 352-page book
 * signed by six parties, thousands of objects written and hashed.
 */
function stampBoxes(
  pdf: PDF,
  stamp: StampInput,
  name: string | null,
  font: EmbeddedFont | null,
  caption: { font: EmbeddedFont; text: string } | null = null,
): void {
  const image = stamp.image ? pdf.embedImage(stamp.image) : null;
  const pages = pdf.getPages();
  const register = (content: string, dict: Record<string, PdfObject> = {}) =>
    pdf.context.register(PdfStream.fromDict(dict, ascii(content)));
  const open = register('q\n');
  const close = register('\nQ\n');
  const forms = new Map<string, { ref: PdfRef; name: string }>();
  const placements = new Map<string, PdfRef>();
  // Unique among the names the pages already use: the stream object numbers are new in this document.
  const prefix = `EsignStamp${open.objectNumber}_`;

  for (const box of stamp.boxes) {
    for (const pageNo of fromRuns(box.pages)) {
      const page = pages[pageNo - 1];
      if (!page) continue;
      const turn = turnOf(page);
      const [w, h] = turn === 90 || turn === 270 ? [box.height, box.width] : [box.width, box.height];
      const sizeKey = `${num(w)}x${num(h)}`;
      let form = forms.get(sizeKey);
      if (!form) {
        const { content, resources } = stampContent(pdf, { image, font, name, caption }, w, h);
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
      let placed = placements.get(placeKey);
      if (!placed) {
        placed = register(`\nq ${matrix} cm /${form.name} Do Q\n`);
        placements.set(placeKey, placed);
      }
      addForm(pdf, page, form.name, form.ref);
      const own = page.dict.get('Contents');
      const resolved = own instanceof PdfRef ? pdf.context.resolve(own) : own;
      const existing: PdfObject[] =
        resolved instanceof PdfArray
          ? Array.from({ length: resolved.length }, (_, i) => resolved.at(i) as PdfObject)
          : own
            ? [own]
            : [];
      page.dict.set('Contents', new PdfArray([open, ...existing, close, placed]));
    }
  }
}

/**
 * Names the stamp's form XObject in the page's resources. A page without its own /Resources inherits its parent's:
 * those are copied onto the page first (PDFPage.getResources would start an empty dictionary and the page would lose
 * its fonts). A dictionary shared by several pages only gains a name the others never use.
 */
function addForm(pdf: PDF, page: PDFPage, name: string, form: PdfRef): void {
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

/** Characters the font has no glyph for would render as nothing: show them as '?' instead. */
function encodable(font: EmbeddedFont, text: string): string {
  return [...text].map((ch) => (font.canEncode(ch) ? ch : '?')).join('');
}

/**
 * Loads a document for a new signature. One that carries signatures but cannot be saved incrementally is refused
 * (DocumentNotSignableError): without signatures a full rewrite harms nothing; with them it would turn each into a
 * digest mismatch. Shared with external signing (external.ts).
 */
export async function openForSigning(document: Uint8Array): Promise<PDF> {
  const pdf = await PDF.load(document);
  const signed =
    pdf
      .getForm()
      ?.getSignatureFields()
      .some((field) => field.isSigned()) ?? false;
  const blocker = pdf.canSaveIncrementally();
  if (signed && blocker) throw new DocumentNotSignableError(blocker);
  return pdf;
}

/** Stamps the party's boxes: their image, or their name typed in DejaVu. Shared with external signing (external.ts). */
export function stampParty(pdf: PDF, stamp: StampInput): void {
  const font = stamp.text ? pdf.embedFont(dejaVuFont(stamp.text.italic ? 'oblique' : 'regular')) : null;
  const name = font && stamp.text ? encodable(font, stamp.text.value) : null;
  const captionFont = stamp.caption ? pdf.embedFont(dejaVuFont('regular')) : null;
  const caption =
    captionFont && stamp.caption ? { font: captionFont, text: encodable(captionFont, stamp.caption) } : null;
  stampBoxes(pdf, stamp, name, font, caption);
}

/**
 * To call before the save that carries a signature. sign() saves without subsetting, which would embed whole DejaVu
 * faces (~700 KB each); finalizing first keeps only the glyphs drawn (sign()'s own finalize is then a no-op).
 */
export function subsetFonts(pdf: PDF): void {
  pdf.fonts.finalize(true);
}

/** The signing engine on @libpdf/core (ARCHITECTURE.md, "Signing engine"). */
export class LibPdfEngine extends SigningEngine {
  private async sign(pdf: PDF, spec: SignatureSpec): Promise<Uint8Array> {
    subsetFonts(pdf);
    const result = await pdf.sign({
      signer: spec.signer,
      fieldName: spec.fieldName,
      reason: spec.reason,
      location: spec.location ?? undefined,
      contactInfo: spec.contactInfo ?? undefined,
      signingTime: spec.signingTime,
      subFilter: 'ETSI.CAdES.detached',
      level: 'B-B',
      estimatedSize: SIGNATURE_BYTES,
    });
    const rewrite = result.warnings.find((w) => /incremental save not possible/i.test(w.message));
    if (rewrite) throw new DocumentNotSignableError(rewrite.message);
    return result.bytes;
  }

  async signParty(document: Uint8Array, stamp: StampInput, signature: SignatureSpec): Promise<Uint8Array> {
    const pdf = await openForSigning(document);
    stampParty(pdf, stamp);
    return this.sign(pdf, signature);
  }

  async complete(
    document: Uint8Array,
    certificate: CompletionCertificateInput,
    seal: SignatureSpec,
  ): Promise<Uint8Array> {
    const pdf = await openForSigning(document);
    await appendCompletionCertificate(pdf, certificate);
    return this.sign(pdf, seal);
  }
}
