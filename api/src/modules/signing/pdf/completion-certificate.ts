import { FIELD_KIND_LABELS, formatDateTime, type FieldKind, type SignatureLevel } from '@esign/contract';
import { ops, PdfDict, PdfString, type PDF, type PdfRef, type PDFImage, type PDFPage } from '@libpdf/core';
import { PNG } from 'pngjs';
import { measuringFont, type DejaVuFace } from './fonts';
import { RevisionFonts } from './revision/canvas';
import { oneLine, runsOf, widthOf } from './text-runs';

export interface CertificateParty {
  order: number;
  name: string;
  email: string;
  phoneNumber: string;
  role: 'Signer' | 'Receives a copy';
  /** e.g. completed */
  status: string;
  /** e.g. 'e-Signature (drawn)', 'e-Signature (typed, italic)', 'Aadhaar eSign', 'DSC' */
  method: string | null;
  invitedAt: Date | null;
  openedAt: Date | null;
  acceptedAt: Date | null;
  signedAt: Date | null;
  ip: string | null;
  /** e.g. 'Chrome 120 on Windows 10' */
  userAgent: string | null;
  location: { latitude: number; longitude: number; country: string | null } | null;
  /** null: no OTP was required or used. */
  otpVerifiedAt: Date | null;
  /** thumbnail: JPEG or PNG bytes of the selfie. */
  face: { checked: boolean; thumbnail: Uint8Array | null } | null;
  liveness: { score: number; threshold: number; passed: boolean } | null;
  /** The signing certificate. */
  certificate: { subject: string; issuer: string; serialNumber: string } | null;
  /** The level the signature reached when it was applied, and its signature-timestamp (issue 19). */
  evidence?: { level: SignatureLevel; timestampedAt: Date | null; tsa: string | null } | null;
}

/** A field a signer filled (issue 21), as the certificate lists it: who filled it, what, when, and its SHA-256. */
export interface CertificateField {
  signer: number;
  signerName: string;
  kind: FieldKind;
  label: string;
  /** As stored ('true'/'false' for a checkbox; an attachment's file name); null: left empty. */
  value: string | null;
  filledAt: Date | null;
  /** SHA-256 (hex) of the value's UTF-8 text, or of the attachment's bytes. */
  sha256: string | null;
  attachment: { name: string; type: string; size: number } | null;
}

export interface CertificateEvent {
  at: Date;
  type: string;
  actor: string;
  ip: string | null;
  detail: string | null;
  hash: string;
}

export interface CompletionCertificateInput {
  organisation: string;
  filename: string;
  refId: number;
  totalPages: number;
  /** SHA-256 (hex) of the uploaded document. */
  originalSha256: string;
  /** SHA-256 (hex) of the signed document before the certificate pages were appended. */
  signedSha256: string;
  submittedAt: Date;
  completedAt: Date;
  parties: CertificateParty[];
  /** The audit trail, in order. */
  events: CertificateEvent[];
  chainIntact: boolean;
  lastHash: string;
  /** The organisation's time zone (IANA): every time is written in it with its label; Asia/Kolkata when absent. */
  timeZone?: string | null;
  /** The level the organisation requires, and who timestamps (issue 19). */
  evidence?: { level: SignatureLevel; timestamps: { builtIn: boolean; tsas: string[] } } | null;
  /** Every field value with who filled it and when; attachments with their SHA-256 (issue 21). */
  fields?: CertificateField[] | null;
}

/** What a PAdES level means for the people who keep the document, one line each. */
const LEVEL_TEXT: Record<SignatureLevel, string> = {
  'B-B': 'B-B: signed, with no trusted time and no revocation data',
  'B-T': 'B-T: signed, with a trusted timestamp proving when',
  'B-LT': 'B-LT: timestamped, with every certificate and its revocation data in the document',
  'B-LTA': 'B-LTA: B-LT under an archive timestamp over the whole document, renewable for decades',
};

/**
 * Appends the certificate of completion (A4 portrait pages) to `pdf` and answers how many pages were added. The
 * signing engine draws it in a scratch document of its own (never in the signed document, which it does not load)
 * with `fonts` sharing the job's font subsets, and copies the pages into the seal's revision (revision/canvas.ts).
 * Without `fonts`, the fonts are `pdf`'s own: save with `subsetFonts: true` (else both DejaVu faces, about 1.4 MB).
 */
export function appendCompletionCertificate(
  pdf: PDF,
  input: CompletionCertificateInput,
  fonts: RevisionFonts = new RevisionFonts(pdf, { shared: false }),
): number {
  const layout = new Layout(pdf, input, fonts);
  layout.title();
  layout.documentCard();
  layout.parties();
  layout.fields();
  layout.attachments();
  layout.auditTrail();
  return layout.finish();
}

const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN = 40;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const CONTENT_TOP = PAGE_HEIGHT - MARGIN;
const CONTENT_BOTTOM = 50;

type Colour = readonly [number, number, number];
const INK: Colour = [0.13, 0.13, 0.13];
const MUTED: Colour = [0.4, 0.4, 0.4];
const ACCENT: Colour = [0x6a / 255, 0x1b / 255, 0x9a / 255];
const ACCENT_TINT: Colour = [0xf3 / 255, 0xe5 / 255, 0xf5 / 255];
const RULE: Colour = [0.85, 0.85, 0.85];
const ZEBRA: Colour = [0.975, 0.975, 0.975];
const ALERT: Colour = [0.72, 0.11, 0.11];
const WHITE: Colour = [1, 1, 1];

/** Selfies are drawn in a 64 pt square; PNGs larger than twice that are scaled down before they are embedded. */
const THUMBNAIL_POINTS = 64;
const THUMBNAIL_PIXELS = 2 * THUMBNAIL_POINTS;

interface Style {
  face: 'regular' | 'bold';
  size: number;
  colour: Colour;
  /**
   * Text people typed in any script (issue 21's field values): drawn with this DejaVu face where it has the
   * characters, with the Noto face of an Indian script for that script's (text-runs.ts). Without it, a character the
   * font lacks is written '?'.
   */
  fallback?: DejaVuFace;
}

/** The text's width in the style. */
const measureIn = (style: Style, text: string) =>
  style.fallback ? widthOf(runsOf(text, style.fallback), style.size) : plainWidth(style.face, text, style.size);

/** Each character's advance (thousandths of an em) in each face, as the font gives it: measured once per process. */
const advances = new Map<DejaVuFace, Map<string, number>>();

/**
 * The width the font's own measure gives (the sum of its characters' advances: @libpdf/core applies no kerning), from
 * remembered advances: wrapping measures a growing line again for every word, and the audit trail's hashes and
 * addresses one character at a time (issue 23: this was half of the certificate's drawing time).
 */
function plainWidth(face: DejaVuFace, text: string, size: number): number {
  let known = advances.get(face);
  if (!known) advances.set(face, (known = new Map()));
  let total = 0;
  for (const char of text) {
    let advance = known.get(char);
    if (advance === undefined) {
      advance = measuringFont(face).widthOfTextAtSize(char, 1000);
      known.set(char, advance);
    }
    total += advance;
  }
  return (total * size) / 1000;
}

/** Wrapped lines of one text, ready to draw. */
interface TextBlock {
  lines: string[];
  style: Style;
  height: number;
}

interface Thumbnail {
  image: PDFImage;
  width: number;
  height: number;
}

/** One label/value row of a card; the value may carry the selfie under its text. */
interface Row {
  label: TextBlock;
  value: TextBlock;
  thumbnail?: Thumbnail;
  height: number;
}

interface RowOptions {
  style?: Style;
  /** Shown, muted, when the value is null. */
  missing?: string;
  maxLines?: number;
  thumbnail?: Thumbnail;
}

interface Paint {
  fill?: Colour;
  stroke?: Colour;
  lineWidth?: number;
  radius?: number;
}

const lineHeight = (style: Style) => style.size * 1.35;

/** The baseline of a line whose box starts at `top`, with the capitals centred in the box. */
const baseline = (top: number, style: Style) => top - lineHeight(style) / 2 - style.size * 0.36;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The text as one line the font can draw. @libpdf/core does not throw on characters the font lacks: it writes glyph 0
 * (an empty box) and maps it back to whichever of those characters it met first, so copied text comes out wrong.
 * Each user-perceived character the font cannot draw becomes '?' instead.
 */
function printable(text: string, face: DejaVuFace): string {
  const font = measuringFont(face);
  const flat = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  if (font.canEncode(flat)) return flat;
  let out = '';
  for (const { segment } of graphemes.segment(flat)) {
    if (font.canEncode(segment)) out += segment;
    else if (!/^\p{Cf}+$/u.test(segment)) out += '?';
  }
  return out;
}

/** Characters after which an over-long word (a hash, an address, a user agent) is preferably broken. */
const BREAK_AFTER = new Set(['/', '.', '-', '_', '@', ',', ';', ':', '=', '&', '?', ')']);

/** Breaks the text into lines no wider than `width`; past `maxLines` the last line ends with an ellipsis. */
function wrap(text: string, style: Style, width: number, maxLines: number): string[] {
  const measure = (s: string) => measureIn(style, s);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (measure(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = word;
    while (measure(line) > width) {
      const [head, rest] = breakWord(line, width, measure);
      lines.push(head);
      line = rest;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = [...graphemes.segment(kept[maxLines - 1])].map((s) => s.segment);
  while (last.length > 0 && measure(`${last.join('')}…`) > width) last.pop();
  kept[maxLines - 1] = `${last.join('')}…`;
  return kept;
}

/** The longest head of `word` that fits, cut after a separator when one falls in its second half. */
function breakWord(word: string, width: number, measure: (s: string) => number): [string, string] {
  const pieces = [...graphemes.segment(word)].map((s) => s.segment);
  let fit = 0;
  let head = '';
  while (fit < pieces.length && measure(head + pieces[fit]) <= width) head += pieces[fit++];
  fit = Math.max(fit, 1);
  for (let i = fit - 1; i >= fit / 2; i--) {
    if (BREAK_AFTER.has(pieces[i]) && i + 1 < pieces.length) {
      fit = i + 1;
      break;
    }
  }
  return [pieces.slice(0, fit).join(''), pieces.slice(fit).join('')];
}

type Operator = ReturnType<typeof ops.fill>;

/**
 * One certificate page. Its drawing is collected and written as one content stream at the end: each of
 * PDFPage's draw* calls adds a content stream object of its own (a page of the audit trail would hold hundreds).
 */
class Sheet {
  readonly operators: Operator[] = [];
  /** The page's fonts by name (its own names, apart from the library's resource names). */
  private readonly fontNames = new Map<PdfRef, string>();

  constructor(
    readonly page: PDFPage,
    private readonly fonts: RevisionFonts,
  ) {}

  private fontName(ref: PdfRef): string {
    let name = this.fontNames.get(ref);
    if (!name) {
      name = `EF${this.fontNames.size}`;
      this.fontNames.set(ref, name);
    }
    return name;
  }

  /** Writes the page's content and names its fonts in its resources. */
  finish(): void {
    if (this.fontNames.size) {
      const resources = this.page.getResources();
      const existing = resources.get('Font');
      const dict = existing instanceof PdfDict ? existing : new PdfDict();
      for (const [ref, name] of this.fontNames) dict.set(name, ref);
      resources.set('Font', dict);
    }
    this.page.drawOperators(this.operators);
  }

  text(text: string, x: number, y: number, style: Style): void {
    if (!text) return;
    // A run per font, each after the one before (the text position advances by the glyphs' widths).
    const runs = style.fallback ? runsOf(text, style.fallback) : [{ key: style.face, text }];
    const shown = runs.flatMap((run) => {
      const { ref, gids } = this.fonts.encode(run.key, run.text);
      const bytes = new Uint8Array(gids.length * 2);
      gids.forEach((gid, i) => {
        bytes[2 * i] = gid >> 8;
        bytes[2 * i + 1] = gid & 0xff;
      });
      return [ops.setFont(this.fontName(ref), style.size), ops.showText(PdfString.fromBytes(bytes))];
    });
    this.operators.push(
      ops.beginText(),
      ops.setNonStrokingRGB(...style.colour),
      ops.setTextMatrix(1, 0, 0, 1, round(x), round(y)),
      ...shown,
      ops.endText(),
    );
  }

  box(x: number, y: number, width: number, height: number, paint: Paint): void {
    const operators: Operator[] = [ops.pushGraphicsState()];
    if (paint.fill) operators.push(ops.setNonStrokingRGB(...paint.fill));
    if (paint.stroke) operators.push(ops.setStrokingRGB(...paint.stroke), ops.setLineWidth(paint.lineWidth ?? 0.75));
    const [x0, y0, x1, y1] = [x, y, x + width, y + height].map(round);
    const r = Math.min(paint.radius ?? 0, width / 2, height / 2);
    if (r > 0) {
      // Quarter circles as Bézier curves: the control points sit 0.5523 r from the corners' ends.
      const k = r * 0.5523;
      operators.push(
        ops.moveTo(x0 + r, y0),
        ops.lineTo(x1 - r, y0),
        ops.curveTo(x1 - r + k, y0, x1, y0 + r - k, x1, y0 + r),
        ops.lineTo(x1, y1 - r),
        ops.curveTo(x1, y1 - r + k, x1 - r + k, y1, x1 - r, y1),
        ops.lineTo(x0 + r, y1),
        ops.curveTo(x0 + r - k, y1, x0, y1 - r + k, x0, y1 - r),
        ops.lineTo(x0, y0 + r),
        ops.curveTo(x0, y0 + r - k, x0 + r - k, y0, x0 + r, y0),
        ops.closePath(),
      );
    } else {
      operators.push(ops.rectangle(x0, y0, x1 - x0, y1 - y0));
    }
    operators.push(paint.fill && paint.stroke ? ops.fillAndStroke() : paint.fill ? ops.fill() : ops.stroke());
    this.operators.push(...operators, ops.popGraphicsState());
  }

  line(x: number, y: number, width: number, colour: Colour = RULE, thickness = 0.5): void {
    this.operators.push(
      ops.pushGraphicsState(),
      ops.setStrokingRGB(...colour),
      ops.setLineWidth(thickness),
      ops.moveTo(round(x), round(y)),
      ops.lineTo(round(x + width), round(y)),
      ops.stroke(),
      ops.popGraphicsState(),
    );
  }

  image(image: PDFImage, x: number, y: number, width: number, height: number): void {
    this.operators.push(
      ops.pushGraphicsState(),
      ops.concatMatrix(round(width), 0, 0, round(height), round(x), round(y)),
      ops.paintXObject(this.page.registerImage(image)),
      ops.popGraphicsState(),
    );
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

class Layout {
  private readonly sheets: Sheet[] = [];
  private sheet!: Sheet;
  private y = CONTENT_TOP;

  constructor(
    private readonly pdf: PDF,
    private readonly input: CompletionCertificateInput,
    private readonly fonts: RevisionFonts,
  ) {
    this.newPage();
  }

  /** '22 Nov 2026, 2:35 pm IST': the one way times are written for a person (formatDateTime), in the organisation's zone. */
  private time(date: Date): string {
    return formatDateTime(date, this.input.timeZone);
  }

  private style(weight: 'regular' | 'bold', size: number, colour: Colour = INK): Style {
    return { face: weight, size, colour };
  }

  private block(text: string, style: Style, width: number, maxLines = 3): TextBlock {
    const lines = wrap(style.fallback ? oneLine(text) : printable(text, style.face), style, width, maxLines);
    return { lines, style, height: lines.length * lineHeight(style) };
  }

  private width(block: TextBlock): number {
    return Math.max(...block.lines.map((line) => measureIn(block.style, line)));
  }

  private drawBlock(block: TextBlock, x: number, top: number): void {
    block.lines.forEach((line, i) => {
      this.sheet.text(line, x, baseline(top - i * lineHeight(block.style), block.style), block.style);
    });
  }

  private newPage(): void {
    this.sheet = new Sheet(this.pdf.addPage({ width: PAGE_WIDTH, height: PAGE_HEIGHT }), this.fonts);
    this.sheets.push(this.sheet);
    this.y = CONTENT_TOP;
    this.sheet.box(0, PAGE_HEIGHT - 5, PAGE_WIDTH, 5, { fill: ACCENT });
    if (this.sheets.length > 1) {
      const top = PAGE_HEIGHT - 17;
      this.drawBlock(this.block('Certificate of Completion', this.style('bold', 7.5, ACCENT), 200, 1), MARGIN, top);
      const name = this.block(this.input.filename, this.style('regular', 7.5, MUTED), 300, 1);
      this.drawBlock(name, PAGE_WIDTH - MARGIN - this.width(name), top);
    }
  }

  /** Starts a new page unless `height` fits below the cursor (or the page is still empty). */
  private reserve(height: number): void {
    if (this.y - height < CONTENT_BOTTOM && this.y < CONTENT_TOP) this.newPage();
  }

  title(): void {
    const title = this.block('Certificate of Completion', this.style('bold', 20, ACCENT), CONTENT_WIDTH, 1);
    this.drawBlock(title, MARGIN, this.y);
    this.y -= title.height + 2;
    const organisation = this.block(this.input.organisation, this.style('regular', 11, MUTED), CONTENT_WIDTH, 2);
    this.drawBlock(organisation, MARGIN, this.y);
    this.y -= organisation.height + 8;
    this.sheet.line(MARGIN, this.y, CONTENT_WIDTH, ACCENT, 1.2);
    this.y -= 8;
    const intro = this.block(
      'Every signer has completed this document. This certificate records who took part, how each signer was ' +
        'verified and every event of the audit trail. Times are Indian Standard Time (UTC+05:30).',
      this.style('regular', 8.5, MUTED),
      CONTENT_WIDTH,
      4,
    );
    this.drawBlock(intro, MARGIN, this.y);
    this.y -= intro.height + 14;
  }

  private heading(text: string): TextBlock {
    return this.block(text, this.style('bold', 12, ACCENT), CONTENT_WIDTH, 1);
  }

  private drawHeading(heading: TextBlock): void {
    this.drawBlock(heading, MARGIN, this.y);
    this.y -= heading.height + 6;
  }

  private row(label: string, value: string | null, width: number, labelWidth: number, options: RowOptions = {}): Row {
    const labelBlock = this.block(label, this.style('regular', 7.5, MUTED), labelWidth - 6, 3);
    const valueStyle = options.style ?? this.style('regular', 8.5, value === null ? MUTED : INK);
    const valueBlock = this.block(value ?? options.missing ?? '—', valueStyle, width - labelWidth, options.maxLines);
    const thumbnailHeight = options.thumbnail ? options.thumbnail.height + 4 : 0;
    const height = Math.max(labelBlock.height + 1.5, valueBlock.height + thumbnailHeight) + 4;
    return { label: labelBlock, value: valueBlock, thumbnail: options.thumbnail, height };
  }

  private drawRows(rows: Row[], x: number, top: number, labelWidth: number): void {
    let y = top;
    for (const row of rows) {
      // Labels are smaller than values: nudged down so both share a baseline.
      this.drawBlock(row.label, x, y - 1.04);
      this.drawBlock(row.value, x + labelWidth, y);
      if (row.thumbnail) {
        const { image, width, height } = row.thumbnail;
        const bottom = y - row.value.height - 4 - height;
        this.sheet.image(image, x + labelWidth, bottom, width, height);
        this.sheet.box(x + labelWidth, bottom, width, height, { stroke: RULE, lineWidth: 0.5 });
      }
      y -= row.height;
    }
  }

  documentCard(): void {
    const { input } = this;
    const padding = 10;
    const inner = CONTENT_WIDTH - 2 * padding;
    const labelWidth = 160;
    const hash = this.style('regular', 8);
    const rows = [
      this.row('File name', input.filename, inner, labelWidth),
      this.row('Ref ID', String(input.refId), inner, labelWidth),
      this.row('Pages', String(input.totalPages), inner, labelWidth),
      this.row('Sent', this.time(input.submittedAt), inner, labelWidth),
      this.row('Completed', this.time(input.completedAt), inner, labelWidth),
      this.row('SHA-256 of the original document', input.originalSha256, inner, labelWidth, { style: hash }),
      this.row('SHA-256 of the signed document (before this certificate)', input.signedSha256, inner, labelWidth, {
        style: hash,
      }),
      ...(input.evidence
        ? [
            this.row('Signature level', LEVEL_TEXT[input.evidence.level], inner, labelWidth),
            this.row(
              'Timestamp authority',
              input.evidence.timestamps.builtIn
                ? 'The built-in development timestamp authority (not for production)'
                : input.evidence.timestamps.tsas.join(', '),
              inner,
              labelWidth,
              { maxLines: 3 },
            ),
            this.row(
              'After this certificate',
              input.evidence.level === 'B-LTA'
                ? "the organisation's seal (timestamped), the validation data (DSS) and an archive timestamp"
                : input.evidence.level === 'B-LT'
                  ? "the organisation's seal (timestamped) and the validation data (DSS)"
                  : "the organisation's seal",
              inner,
              labelWidth,
            ),
          ]
        : []),
    ];
    const heading = this.heading('Document');
    const height = rows.reduce((sum, row) => sum + row.height, 0) + 2 * 8;
    this.reserve(heading.height + 6 + height);
    this.drawHeading(heading);
    this.drawRows(rows, MARGIN + padding, this.y - 8, labelWidth);
    this.sheet.box(MARGIN, this.y - height, CONTENT_WIDTH, height, { stroke: RULE });
    this.y -= height + 18;
  }

  parties(): void {
    const heading = this.heading('Parties');
    let first = true;
    for (const party of [...this.input.parties].sort((a, b) => a.order - b.order)) {
      const card = this.partyCard(party);
      this.reserve((first ? heading.height + 6 : 0) + card.height);
      if (first) this.drawHeading(heading);
      first = false;
      card.draw();
      this.y -= card.height + 12;
    }
    this.y -= 6;
  }

  private partyCard(party: CertificateParty): { height: number; draw: () => void } {
    const padding = 10;
    const inner = CONTENT_WIDTH - 2 * padding;
    const gap = 18;
    const column = (inner - gap) / 2;
    const labelWidth = 74;

    // The header strip: order badge and name on the left, role and status on the right.
    const badge = 16;
    const order = this.block(String(party.order), this.style('bold', 8, WHITE), 40, 1);
    const role = this.block(party.role, this.style('regular', 8.5, MUTED), 120, 1);
    const status = this.block(party.status.toUpperCase(), this.style('bold', 7, ACCENT), 120, 1);
    const statusWidth = this.width(status) + 12;
    const nameWidth = inner - badge - 8 - this.width(role) - statusWidth - 20;
    const name = this.block(party.name, this.style('bold', 11), nameWidth, 2);
    const stripHeight = Math.max(name.height, badge) + 12;

    const time = (date: Date | null) => (date ? this.time(date) : null);
    const location = party.location
      ? `${party.location.latitude.toFixed(5)}, ${party.location.longitude.toFixed(5)}` +
        (party.location.country ? ` · ${party.location.country}` : '')
      : null;
    const left = [
      this.row('E-mail', party.email, column, labelWidth),
      this.row('Phone', party.phoneNumber || null, column, labelWidth),
      this.row('Invited', time(party.invitedAt), column, labelWidth),
      this.row('Opened', time(party.openedAt), column, labelWidth),
      this.row('Accepted', time(party.acceptedAt), column, labelWidth),
      this.row('Signed', time(party.signedAt), column, labelWidth),
      this.row('IP address', party.ip, column, labelWidth, { missing: 'Not captured' }),
      this.row('Location', location, column, labelWidth, { missing: 'Not captured' }),
    ];
    const thumbnail = party.face?.checked && party.face.thumbnail ? this.thumbnail(party.face.thumbnail) : null;
    const face = !party.face
      ? null
      : !party.face.checked
        ? 'Not captured'
        : thumbnail === undefined
          ? 'Captured (image unreadable)'
          : 'Captured';
    const liveness = party.liveness
      ? `${party.liveness.passed ? 'Passed' : 'Failed'} · score ${formatScore(party.liveness.score)}, ` +
        `threshold ${formatScore(party.liveness.threshold)}`
      : null;
    const otp = party.otpVerifiedAt ? `Verified at ${this.time(party.otpVerifiedAt)}` : null;
    const right = [
      this.row('Signing method', party.method, column, labelWidth),
      this.row('OTP', otp, column, labelWidth, { missing: 'Not required' }),
      this.row('Face capture', face, column, labelWidth, {
        missing: 'Not required',
        thumbnail: thumbnail ?? undefined,
      }),
      this.row('Liveness', liveness, column, labelWidth, { missing: 'Not required' }),
      this.row('User agent', party.userAgent, column, labelWidth, { missing: 'Not captured', maxLines: 4 }),
    ];
    const evidence = party.evidence
      ? [
          this.row(
            'Signature level',
            party.evidence.timestampedAt
              ? `${party.evidence.level}, timestamped ${this.time(party.evidence.timestampedAt)}`
              : party.evidence.level,
            inner,
            labelWidth,
          ),
          ...(party.evidence.tsa ? [this.row('Timestamp authority', party.evidence.tsa, inner, labelWidth)] : []),
        ]
      : [];
    const certificate = party.certificate
      ? [
          this.row('Certificate', party.certificate.subject, inner, labelWidth),
          this.row('Issued by', party.certificate.issuer, inner, labelWidth),
          this.row('Serial number', party.certificate.serialNumber, inner, labelWidth),
          ...evidence,
        ]
      : [this.row('Certificate', null, inner, labelWidth, { missing: 'None' })];

    const sum = (rows: Row[]) => rows.reduce((total, row) => total + row.height, 0);
    const bodyHeight = Math.max(sum(left), sum(right));
    const height = stripHeight + 8 + bodyHeight + 6 + sum(certificate) + 6;

    const draw = () => {
      const top = this.y;
      const x = MARGIN + padding;
      const middle = top - stripHeight / 2;
      this.sheet.box(MARGIN, top - stripHeight, CONTENT_WIDTH, stripHeight, { fill: ACCENT_TINT });
      this.sheet.box(x, middle - badge / 2, badge, badge, { fill: ACCENT, radius: badge / 2 });
      this.drawBlock(order, x + (badge - this.width(order)) / 2, middle + order.height / 2);
      this.drawBlock(name, x + badge + 8, middle + name.height / 2);
      const statusX = MARGIN + CONTENT_WIDTH - padding - statusWidth;
      this.sheet.box(statusX, middle - 6.5, statusWidth, 13, { stroke: ACCENT, lineWidth: 0.6, radius: 6.5 });
      this.drawBlock(status, statusX + 6, middle + status.height / 2);
      this.drawBlock(role, statusX - 8 - this.width(role), middle + role.height / 2);

      const bodyTop = top - stripHeight - 8;
      this.drawRows(left, x, bodyTop, labelWidth);
      this.drawRows(right, x + column + gap, bodyTop, labelWidth);
      const certificateTop = bodyTop - bodyHeight - 3;
      this.sheet.line(x, certificateTop, inner);
      this.drawRows(certificate, x, certificateTop - 3, labelWidth);
      this.sheet.box(MARGIN, top - height, CONTENT_WIDTH, height, { stroke: RULE });
    };
    return { height, draw };
  }

  /** The selfie embedded and fitted into the thumbnail square; undefined when the bytes are not an image we can embed. */
  private thumbnail(bytes: Uint8Array): Thumbnail | undefined {
    let image: PDFImage;
    try {
      image = this.pdf.embedImage(shrinkPng(bytes, THUMBNAIL_PIXELS));
    } catch {
      return undefined;
    }
    const scale = THUMBNAIL_POINTS / Math.max(image.width, image.height);
    return { image, width: image.width * scale, height: image.height * scale };
  }

  /**
   * The fields the signers filled (issue 21), per signer: label, kind, value, when it was filled and the SHA-256 of
   * the value's text (of the file, for an attachment), each row's hash on a line of its own under it.
   */
  fields(): void {
    const fields = this.input.fields ?? [];
    if (!fields.length) return;
    const value = (field: CertificateField): string | null => {
      if (field.kind === 'checkbox') return field.value === 'true' ? 'Checked' : 'Not checked';
      return field.value === null || field.value === '' ? null : field.value;
    };
    this.groupedTable(
      'Fields',
      [
        { title: 'Field', width: 130, maxLines: 3 },
        { title: 'Kind', width: 72, maxLines: 1 },
        { title: 'Value', width: 183, maxLines: 4 },
        { title: 'Filled at', width: CONTENT_WIDTH - 385, maxLines: 2 },
      ],
      this.bySigner(fields).map(({ caption, rows }) => ({
        caption,
        rows: rows.map((field) => ({
          cells: [
            field.label,
            FIELD_KIND_LABELS[field.kind] ?? field.kind,
            value(field),
            field.filledAt ? this.time(field.filledAt) : null,
          ],
          sha256: field.sha256,
        })),
      })),
    );
  }

  /** The files the signers attached (embedded in their revisions): name, type, size and SHA-256. */
  attachments(): void {
    const attached = (this.input.fields ?? []).filter((field) => field.attachment);
    if (!attached.length) return;
    this.groupedTable(
      'Attachments',
      [
        { title: 'Field', width: 130, maxLines: 3 },
        { title: 'File name', width: 185, maxLines: 3 },
        { title: 'Type', width: 80, maxLines: 1 },
        { title: 'Size', width: CONTENT_WIDTH - 395, maxLines: 1 },
      ],
      this.bySigner(attached).map(({ caption, rows }) => ({
        caption,
        rows: rows.map((field) => ({
          cells: [
            field.label,
            field.attachment!.name,
            field.attachment!.type,
            `${field.attachment!.size.toLocaleString('en-US')} bytes`,
          ],
          sha256: field.sha256,
        })),
      })),
    );
  }

  /** Rows grouped by signer, in signing order, each group captioned with the signer's order and name. */
  private bySigner(fields: CertificateField[]): { caption: string; rows: CertificateField[] }[] {
    const groups = new Map<number, CertificateField[]>();
    for (const field of fields) groups.set(field.signer, [...(groups.get(field.signer) ?? []), field]);
    return [...groups]
      .sort(([a], [b]) => a - b)
      .map(([order, rows]) => ({ caption: `Signer ${order} · ${rows[0].signerName}`, rows }));
  }

  /**
   * A table in the audit trail's style whose rows come in captioned groups; its header repeats on every page it
   * reaches, a group's caption never ends a page, and each row may carry a SHA-256 line under its cells. Cells are
   * written with the Indian scripts' fonts as needed (what signers typed); a null cell is a muted dash.
   */
  private groupedTable(
    title: string,
    columns: { title: string; width: number; maxLines: number }[],
    groups: { caption: string; rows: { cells: (string | null)[]; sha256: string | null }[] }[],
  ): void {
    const padding = 4;
    const cellStyle: Style = { ...this.style('regular', 7.5), fallback: 'regular' };
    const missingStyle = this.style('regular', 7.5, MUTED);
    const hashStyle = this.style('regular', 7, MUTED);
    const headerStyle = this.style('bold', 7.5, ACCENT);
    const captionStyle: Style = { ...this.style('bold', 8), fallback: 'bold' };
    const headerCells = columns.map((c) => this.block(c.title, headerStyle, c.width - 2 * padding, 1));
    const headerHeight = lineHeight(headerStyle) + 8;
    const drawHeader = () => {
      this.sheet.box(MARGIN, this.y - headerHeight, CONTENT_WIDTH, headerHeight, { fill: ACCENT_TINT });
      let x = MARGIN;
      columns.forEach((column, i) => {
        this.drawBlock(headerCells[i], x + padding, this.y - 4);
        x += column.width;
      });
      this.y -= headerHeight;
    };
    const laidOut = groups.map((group) => {
      const caption = this.block(group.caption, captionStyle, CONTENT_WIDTH - 2 * padding, 2);
      const rows = group.rows.map((row) => {
        const cells = columns.map((c, i) =>
          this.block(
            row.cells[i] ?? '—',
            row.cells[i] === null ? missingStyle : cellStyle,
            c.width - 2 * padding,
            c.maxLines,
          ),
        );
        const hash = row.sha256 ? this.block(`SHA-256 ${row.sha256}`, hashStyle, CONTENT_WIDTH - 2 * padding, 2) : null;
        const cellsHeight = Math.max(...cells.map((cell) => cell.height));
        return { cells, hash, cellsHeight, height: cellsHeight + (hash ? hash.height + 1 : 0) + 6 };
      });
      const continued = this.block(`${group.caption} (continued)`, captionStyle, CONTENT_WIDTH - 2 * padding, 1);
      return { caption, continued, captionHeight: Math.max(caption.height, continued.height) + 6, rows };
    });

    const heading = this.heading(title);
    const first = laidOut[0];
    this.reserve(heading.height + 6 + headerHeight + first.captionHeight + (first.rows[0]?.height ?? 0));
    this.drawHeading(heading);
    drawHeader();
    const newPage = () => {
      this.sheet.line(MARGIN, this.y, CONTENT_WIDTH);
      this.newPage();
      drawHeader();
    };
    for (const group of laidOut) {
      // The caption stays with the group's first row.
      if (this.y - group.captionHeight - (group.rows[0]?.height ?? 0) < CONTENT_BOTTOM) newPage();
      this.sheet.line(MARGIN, this.y, CONTENT_WIDTH);
      this.drawBlock(group.caption, MARGIN + padding, this.y - 3);
      this.y -= group.captionHeight;
      group.rows.forEach((row, index) => {
        if (this.y - row.height < CONTENT_BOTTOM) {
          newPage();
          this.drawBlock(group.continued, MARGIN + padding, this.y - 3);
          this.y -= group.captionHeight;
        }
        if (index % 2 === 1) this.sheet.box(MARGIN, this.y - row.height, CONTENT_WIDTH, row.height, { fill: ZEBRA });
        let x = MARGIN;
        columns.forEach((column, i) => {
          this.drawBlock(row.cells[i], x + padding, this.y - 3);
          x += column.width;
        });
        if (row.hash) this.drawBlock(row.hash, MARGIN + padding, this.y - 3 - row.cellsHeight - 1);
        this.y -= row.height;
      });
    }
    this.sheet.line(MARGIN, this.y, CONTENT_WIDTH);
    this.y -= 18;
  }

  auditTrail(): void {
    const { input } = this;
    const columns: { title: string; width: number; maxLines: number; value: (e: CertificateEvent) => string }[] = [
      { title: 'Time', width: 110, maxLines: 2, value: (e) => this.time(e.at) },
      { title: 'Event', width: 96, maxLines: 4, value: (e) => e.type },
      { title: 'Actor', width: 110, maxLines: 4, value: (e) => e.actor },
      { title: 'IP address', width: 80, maxLines: 4, value: (e) => e.ip ?? '—' },
      { title: 'Details', width: CONTENT_WIDTH - 396, maxLines: 12, value: (e) => e.detail ?? '' },
    ];
    const padding = 4;
    const cellStyle = this.style('regular', 7.5);
    const headerStyle = this.style('bold', 7.5, ACCENT);
    const headerCells = columns.map((c) => this.block(c.title, headerStyle, c.width - 2 * padding, 1));
    const headerHeight = lineHeight(headerStyle) + 8;
    const drawHeader = () => {
      this.sheet.box(MARGIN, this.y - headerHeight, CONTENT_WIDTH, headerHeight, { fill: ACCENT_TINT });
      let x = MARGIN;
      columns.forEach((column, i) => {
        this.drawBlock(headerCells[i], x + padding, this.y - 4);
        x += column.width;
      });
      this.y -= headerHeight;
    };

    const heading = this.heading('Audit trail');
    const rows = input.events.map((event) => {
      const cells = columns.map((c) => this.block(c.value(event), cellStyle, c.width - 2 * padding, c.maxLines));
      return { cells, height: Math.max(...cells.map((cell) => cell.height)) + 6 };
    });
    this.reserve(heading.height + 6 + headerHeight + (rows[0]?.height ?? 0));
    this.drawHeading(heading);
    drawHeader();
    rows.forEach((row, index) => {
      if (this.y - row.height < CONTENT_BOTTOM) {
        this.sheet.line(MARGIN, this.y, CONTENT_WIDTH);
        this.newPage();
        drawHeader();
      }
      if (index % 2 === 1) this.sheet.box(MARGIN, this.y - row.height, CONTENT_WIDTH, row.height, { fill: ZEBRA });
      let x = MARGIN;
      columns.forEach((column, i) => {
        this.drawBlock(row.cells[i], x + padding, this.y - 3);
        x += column.width;
      });
      this.y -= row.height;
    });
    this.sheet.line(MARGIN, this.y, CONTENT_WIDTH);
    this.y -= 10;

    const chain = this.block(
      `Audit chain intact: ${input.chainIntact ? 'yes' : 'no'} · last hash ${input.lastHash}`,
      this.style(input.chainIntact ? 'regular' : 'bold', 8, input.chainIntact ? INK : ALERT),
      CONTENT_WIDTH,
      3,
    );
    this.reserve(chain.height);
    this.drawBlock(chain, MARGIN, this.y);
    this.y -= chain.height;
  }

  /** Draws the footers, whose page count is only known now, writes each page's content and answers the page count. */
  finish(): number {
    const style = this.style('regular', 7.5, MUTED);
    this.sheets.forEach((sheet, i) => {
      this.sheet = sheet;
      sheet.line(MARGIN, 40, CONTENT_WIDTH);
      const text = `Certificate of completion · Ref ID ${this.input.refId} · page ${i + 1} of ${this.sheets.length}`;
      const footer = this.block(text, style, CONTENT_WIDTH, 1);
      this.drawBlock(footer, (PAGE_WIDTH - this.width(footer)) / 2, 34);
      sheet.finish();
    });
    return this.sheets.length;
  }
}

function formatScore(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/**
 * A PNG selfie scaled down so its longer side is at most `maxSide` pixels (box-averaged, flattened onto white), as a
 * new RGB PNG. @libpdf/core embeds images at full size (a 640x480 PNG photo adds about 600 kB for a 64 pt thumbnail)
 * and decodes large PNGs slowly. pngjs reads every PNG flavour; what it cannot read (a JPEG, a damaged file) is
 * returned unchanged: JPEGs are embedded as they are, without re-encoding, and are small anyway.
 */
export function shrinkPng(bytes: Uint8Array, maxSide: number): Uint8Array {
  let source: PNG;
  try {
    source = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch {
    return bytes;
  }
  const { width, height, data: pixels } = source;
  if (Math.max(width, height) <= maxSide) return bytes;
  const scale = maxSide / Math.max(width, height);
  const out = new PNG({
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  });
  const sum = [0, 0, 0];
  for (let ty = 0; ty < out.height; ty++) {
    const y0 = Math.floor((ty * height) / out.height);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * height) / out.height));
    for (let tx = 0; tx < out.width; tx++) {
      const x0 = Math.floor((tx * width) / out.width);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * width) / out.width));
      sum.fill(0);
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const at = (y * width + x) * 4;
          const alpha = pixels[at + 3];
          for (let c = 0; c < 3; c++) sum[c] += (pixels[at + c] * alpha + 255 * (255 - alpha)) / 255;
        }
      const count = (y1 - y0) * (x1 - x0);
      const to = (ty * out.width + tx) * 4;
      for (let c = 0; c < 3; c++) out.data[to + c] = Math.round(sum[c] / count);
      out.data[to + 3] = 255;
    }
  }
  return PNG.sync.write(out, { colorType: 2 });
}
