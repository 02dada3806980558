import { Limits, pdfFileNameProblem } from '@esign/contract';
import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFNull,
  PDFNumber,
  PDFPageLeaf,
  PDFRef,
  type PDFDocument,
  type PDFObject,
} from 'pdf-lib';
import { AppError } from '../../../common/app-error';
import type { PageGeometry } from './geometry';
import { appendBlocker } from './incremental';
import { countSignatures, loadPdf } from './load';
import { damaged, encrypted, fileNameDots, invalidFormat, signedAndDamaged, tooLarge } from './messages';
import { toRuns } from './pageRuns';
import { analyseStructure } from './structure';

export interface InspectPdfInput {
  bytes: Buffer;
  filename: string;
  mimeType: string;
}

export interface InspectedPdf {
  /** The bytes to store: the upload itself, or its repaired rewrite when `repaired`. */
  bytes: Buffer;
  repaired: boolean;
  totalPages: number;
  /** Pages with the same media box, crop box and rotation share one entry ("1-3,7"). */
  geometry: PageGeometry[];
  /** Digital signatures already in the form (see countSignatures); a signed file is never rewritten. */
  signatureCount: number;
  /** The catalog has an AcroForm with at least one field. */
  hasAcroForm: boolean;
  /** Height of page 1 as displayed, in points: its visible (crop) box, turned by its rotation. */
  firstPageHeight: number;
}

const PDF_MIME = 'application/pdf';
const HEADER = Buffer.from('%PDF-', 'latin1');
/** Readers assume US Letter for a page without a usable MediaBox. */
const DEFAULT_MEDIA_BOX: [number, number, number, number] = [0, 0, 612, 792];

/**
 * The upload check (spec section 5 plus what the server must add): format, size, header, encryption, structure, pages.
 *
 * A file whose cross-reference data is wrong but whose objects pdf-lib reads, with a trailer naming the catalog
 * somewhere, is repaired by rewriting it with pdf-lib (unless it carries signatures, which a rewrite breaks). A file
 * with no trailer at all, objects pdf-lib cannot parse, or no pages is refused as damaged. Every refusal is a 4xx
 * AppError with a message for the user.
 */
export async function inspectPdf(input: InspectPdfInput): Promise<InspectedPdf> {
  const { bytes, filename, mimeType } = input;
  const mime = typeof mimeType === 'string' ? mimeType.split(';')[0].trim().toLowerCase() : '';
  if (mime !== PDF_MIME || typeof filename !== 'string') throw invalidFormat();
  // 'my.contract.pdf' is told the rule it breaks (one dot, before pdf); any other name is not a PDF's.
  const nameProblem = pdfFileNameProblem(filename);
  if (nameProblem === 'dots') throw fileNameDots();
  if (nameProblem) throw invalidFormat();
  if (!Buffer.isBuffer(bytes)) throw invalidFormat();
  if (bytes.length >= Limits.maxFileBytes) throw tooLarge();
  if (bytes.length < HEADER.length || !bytes.subarray(0, HEADER.length).equals(HEADER)) throw invalidFormat();
  try {
    return await examine(bytes, true);
  } catch (e) {
    // Whatever a malformed file makes a parser throw is the user's damaged file, never a 500.
    if (e instanceof AppError) throw e;
    throw damaged();
  }
}

async function examine(bytes: Buffer, mayRepair: boolean): Promise<InspectedPdf> {
  const structure = analyseStructure(bytes);
  if (structure.encrypted) throw encrypted();
  let needsRepair = structure.problems.length > 0;
  // Nothing to rebuild from: refused before pdf-lib spends time on it.
  if (needsRepair && (!mayRepair || !structure.trailerWithRoot)) throw damaged();
  // pdf-lib would inflate every object stream at load, unbounded (a Flate bomb there costs a GB and tens of seconds).
  if (structure.loadTooCostly) throw damaged();
  const doc = await loadPdf(bytes);
  checkPageTree(doc);
  if (doc.getPageCount() === 0) throw damaged();
  // pdf-lib finds the catalog by scanning when /Root names something else; other readers do not.
  const root = doc.context.trailerInfo.Root;
  if (!(root instanceof PDFRef) || root.objectNumber !== structure.root) needsRepair = true;
  const signatureCount = countSignatures(doc);

  if (!needsRepair) {
    if (signatureCount > 0 && (await appendBlocker(bytes))) throw signedAndDamaged();
    return describe(doc, bytes, false, signatureCount);
  }
  if (!mayRepair) throw damaged();

  if (signatureCount > 0 || structure.byteRangeSeen) throw signedAndDamaged();
  const rewritten = Buffer.from(
    await doc.save({
      useObjectStreams: false,
      addDefaultPage: false,
      updateFieldAppearances: false,
      objectsPerTick: Infinity,
    }),
  );
  // The rewrite must itself pass, as written, without another repair.
  const again = await examine(rewritten, false);
  return { ...again, repaired: true };
}

/** Bound on the nodes of a page tree: a 5 MB file holds fewer than 100,000 page objects. */
const MAX_PAGE_TREE_NODES = 200_000;

/**
 * The page tree must be a tree: a page or Pages node reached twice (a Kids array listing the same page thousands of
 * times, a node among its own Kids) is refused as damaged before pdf-lib walks it, which it would do recursively
 * (a loop overflows the stack) and page by page (a million-entry tree of one repeated page took it 42 s).
 */
function checkPageTree(doc: PDFDocument): void {
  const context = doc.context;
  const seen = new Set<PDFObject>();
  const stack: PDFObject[] = [doc.catalog.get(PDFName.of('Pages')) ?? PDFNull];
  while (stack.length > 0) {
    const node = context.lookup(stack.pop());
    if (!(node instanceof PDFDict)) continue;
    if (seen.has(node) || seen.size >= MAX_PAGE_TREE_NODES) throw damaged();
    seen.add(node);
    if (node instanceof PDFPageLeaf) continue;
    const kids = context.lookup(node.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) for (let i = kids.size() - 1; i >= 0; i--) stack.push(kids.get(i));
  }
}

function describe(doc: PDFDocument, bytes: Buffer, repaired: boolean, signatureCount: number): InspectedPdf {
  const groups = new Map<string, { entry: Omit<PageGeometry, 'pages'>; pages: number[] }>();
  let firstPageHeight = 0;
  doc.getPages().forEach((page, i) => {
    const node = page.node;
    const mediaBox = readBox(doc, node, 'MediaBox') ?? DEFAULT_MEDIA_BOX;
    const cropBox = clip(readBox(doc, node, 'CropBox') ?? mediaBox, mediaBox);
    const rotation = readRotation(doc, node);
    if (i === 0) firstPageHeight = rotation % 180 === 0 ? cropBox[3] : cropBox[2];
    const key = JSON.stringify([mediaBox, cropBox, rotation]);
    const group = groups.get(key);
    if (group) group.pages.push(i + 1);
    else groups.set(key, { entry: { mediaBox, cropBox, rotation }, pages: [i + 1] });
  });

  const acroForm = doc.context.lookup(doc.catalog.get(PDFName.of('AcroForm')));
  const fields = acroForm instanceof PDFDict ? doc.context.lookup(acroForm.get(PDFName.of('Fields'))) : undefined;

  return {
    bytes,
    repaired,
    totalPages: doc.getPageCount(),
    geometry: [...groups.values()].map(({ entry, pages }) => ({ pages: toRuns(pages), ...entry })),
    signatureCount,
    hasAcroForm: fields instanceof PDFArray && fields.size() > 0,
    firstPageHeight,
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000 + 0;

/** A page box (inherited when the page has none) as [x, y, width, height], normalised; undefined when unusable. */
function readBox(doc: PDFDocument, node: PDFPageLeaf, name: string): [number, number, number, number] | undefined {
  const array = doc.context.lookup(node.getInheritableAttribute(PDFName.of(name)));
  if (!(array instanceof PDFArray) || array.size() !== 4) return undefined;
  const values: number[] = [];
  for (let i = 0; i < 4; i++) {
    const item = doc.context.lookup(array.get(i));
    if (!(item instanceof PDFNumber) || !Number.isFinite(item.asNumber())) return undefined;
    values.push(item.asNumber());
  }
  const [x1, y1, x2, y2] = values;
  const box: [number, number, number, number] = [
    round(Math.min(x1, x2)),
    round(Math.min(y1, y2)),
    round(Math.abs(x2 - x1)),
    round(Math.abs(y2 - y1)),
  ];
  return box[2] > 0 && box[3] > 0 ? box : undefined;
}

/** The crop box clipped to the media box (ISO 32000-1, 14.11.2); the media box when they do not overlap. */
function clip(
  crop: [number, number, number, number],
  media: [number, number, number, number],
): [number, number, number, number] {
  const x1 = Math.max(crop[0], media[0]);
  const y1 = Math.max(crop[1], media[1]);
  const x2 = Math.min(crop[0] + crop[2], media[0] + media[2]);
  const y2 = Math.min(crop[1] + crop[3], media[1] + media[3]);
  return x2 > x1 && y2 > y1 ? [round(x1), round(y1), round(x2 - x1), round(y2 - y1)] : media;
}

/** /Rotate (inherited) as 0, 90, 180 or 270; a value that is not a multiple of 90 is ignored, as readers do. */
function readRotation(doc: PDFDocument, node: PDFPageLeaf): number {
  const value = doc.context.lookup(node.getInheritableAttribute(PDFName.of('Rotate')));
  const angle = value instanceof PDFNumber ? value.asNumber() : 0;
  if (!Number.isInteger(angle) || angle % 90 !== 0) return 0;
  return ((angle % 360) + 360) % 360;
}
