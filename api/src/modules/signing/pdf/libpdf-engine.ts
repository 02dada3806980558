import { Limits } from '@esign/contract';
import { PDF, type PDFImage, type PDFPage, type EmbeddedFont } from '@libpdf/core';
import { fromRuns } from '../../documents/pdf/pageRuns';
import { appendCompletionCertificate, type CompletionCertificateInput } from './completion-certificate';
import { DocumentNotSignableError, SigningEngine, type SignatureSpec, type StampInput } from './engine';
import { dejaVuFont } from './fonts';

/** The typed name: 24 CSS px (spec section 9) is 18 pt. */
const TYPED_NAME_PT = (Limits.nameSignatureFontPx * 72) / 96;
/** Room left around a stamp inside its box. */
const PADDING = 0.06;
/** CMS size reserved in /Contents: certificate chain of three, signed attributes, room to spare. */
const SIGNATURE_BYTES = 16_384;

interface Placement {
  /** Centre of the box in user space. */
  cx: number;
  cy: number;
  /** The box as the reader sees it (turned by the page's /Rotate). */
  width: number;
  height: number;
  /** Counter-clockwise degrees that undo the page's clockwise /Rotate, so the stamp reads upright. */
  angle: number;
}

function placementOf(page: PDFPage, box: { x: number; y: number; width: number; height: number }): Placement {
  const rotation = (((page.rotation ?? 0) % 360) + 360) % 360;
  const quarter = rotation === 90 || rotation === 270;
  return {
    cx: box.x + box.width / 2,
    cy: box.y + box.height / 2,
    width: quarter ? box.height : box.width,
    height: quarter ? box.width : box.height,
    angle: rotation,
  };
}

function drawImage(page: PDFPage, image: PDFImage, at: Placement): void {
  const room = { w: at.width * (1 - 2 * PADDING), h: at.height * (1 - 2 * PADDING) };
  const scale = Math.min(room.w / image.width, room.h / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  page.drawImage(image, {
    x: at.cx - width / 2,
    y: at.cy - height / 2,
    width,
    height,
    ...(at.angle ? { rotate: { angle: at.angle, origin: { x: at.cx, y: at.cy } } } : {}),
  });
}

function drawName(page: PDFPage, font: EmbeddedFont, name: string, at: Placement): void {
  const room = { w: at.width * (1 - 2 * PADDING), h: at.height * (1 - 2 * PADDING) };
  const widthAt1 = Math.max(font.widthOfTextAtSize(name, 1), 0.001);
  const size = Math.min(TYPED_NAME_PT, room.w / widthAt1, room.h / 1.2);
  const width = widthAt1 * size;
  page.drawText(name, {
    x: at.cx - width / 2,
    // The baseline a third of the size below the centre puts the letters' middle on the centre.
    y: at.cy - size * 0.33,
    font,
    size,
    ...(at.angle ? { rotate: { angle: at.angle, origin: { x: at.cx, y: at.cy } } } : {}),
  });
}

/** Characters the font has no glyph for would render as nothing: show them as '?' instead. */
function encodable(font: EmbeddedFont, text: string): string {
  return [...text].map((ch) => (font.canEncode(ch) ? ch : '?')).join('');
}

/** The signing engine on @libpdf/core (ARCHITECTURE.md, "Signing engine"). */
export class LibPdfEngine extends SigningEngine {
  private async open(document: Uint8Array): Promise<PDF> {
    const pdf = await PDF.load(document);
    const signed =
      pdf
        .getForm()
        ?.getSignatureFields()
        .some((field) => field.isSigned()) ?? false;
    const blocker = pdf.canSaveIncrementally();
    // Without signatures a full rewrite harms nothing; with them it would turn each into a digest mismatch.
    if (signed && blocker) throw new DocumentNotSignableError(blocker);
    return pdf;
  }

  private async sign(pdf: PDF, spec: SignatureSpec): Promise<Uint8Array> {
    // sign() saves without subsetting, which would embed whole DejaVu faces (~700 KB each); finalizing first keeps
    // only the glyphs drawn (sign()'s own finalize is then a no-op).
    pdf.fonts.finalize(true);
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
    const pdf = await this.open(document);
    const pages = pdf.getPages();
    const image = stamp.image ? pdf.embedImage(stamp.image) : null;
    const font = stamp.text ? pdf.embedFont(dejaVuFont(stamp.text.italic ? 'oblique' : 'regular')) : null;
    const name = font && stamp.text ? encodable(font, stamp.text.value) : null;
    for (const box of stamp.boxes) {
      for (const pageNo of fromRuns(box.pages)) {
        const page = pages[pageNo - 1];
        if (!page) continue;
        const at = placementOf(page, box);
        if (image) drawImage(page, image, at);
        if (font && name) drawName(page, font, name, at);
      }
    }
    return this.sign(pdf, signature);
  }

  async complete(
    document: Uint8Array,
    certificate: CompletionCertificateInput,
    seal: SignatureSpec,
  ): Promise<Uint8Array> {
    const pdf = await this.open(document);
    await appendCompletionCertificate(pdf, certificate);
    return this.sign(pdf, seal);
  }
}
