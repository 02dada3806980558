import { Limits, pdfFileNameProblem } from '@esign/contract';
import {
  endsInsideObject,
  isDict,
  nameOf,
  objectByEntries,
  PdfObjects,
  rebuildCrossReference,
} from '@esign/pdf-syntax';
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject } from '@libpdf/core';
import { AppError } from '../../../common/app-error';
import type { PageGeometry } from './geometry';
import { appendBlocker } from './incremental';
import { countSignatures, loadPdf, lookup } from './load';
import { damaged, encrypted, fileNameDots, invalidFormat, signedAndDamaged, tooLarge } from './messages';
import { toRuns } from './pageRuns';
import { analyseStructure, type StructureReport } from './structure';

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
 * A file whose cross-reference data is wrong (or whose trailer names something other than the catalog) but whose
 * objects all parse, with a trailer naming the catalog somewhere, is repaired: its objects are found where they really
 * are (@esign/pdf-syntax's rebuildCrossReference, the newest definition of each) and @libpdf/core rewrites the whole
 * file from them (unless it carries signatures, which a rewrite breaks). A file with no trailer at all, objects that do
 * not parse, or no pages is refused as damaged. Every refusal is a 4xx AppError with a message for the user.
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
  // Cut off in the middle of an object: damaged, even when a first cross-reference section (at the start of a
  // linearized file) still reads.
  if (endsInsideObject(bytes)) throw damaged();
  let needsRepair = structure.problems.length > 0;
  // Nothing to rebuild from: refused before anything is parsed.
  if (needsRepair && (!mayRepair || !structure.trailerWithRoot)) throw damaged();
  // Loading parses every object, which inflates every object stream (a Flate bomb there costs a GB and tens of
  // seconds): refused first.
  if (structure.loadTooCostly) throw damaged();
  // A catalog the trailer does not name is found by a rebuilding reader (as pdf-lib did), not by others: repaired.
  if (!needsRepair && !namesCatalog(bytes, structure)) {
    if (!mayRepair) throw damaged();
    needsRepair = true;
  }
  let doc: PDF;
  if (needsRepair) {
    const rebuilt = rebuildCrossReference(bytes, new PdfObjects(bytes));
    if (!rebuilt) throw damaged();
    doc = await loadPdf(rebuilt.bytes);
  } else doc = await loadPdf(bytes, structure.xref);
  checkPageTree(doc);
  if (doc.getPageCount() === 0) throw damaged();
  const signatureCount = countSignatures(doc);

  if (!needsRepair) {
    if (signatureCount > 0 && (await appendBlocker(bytes))) throw signedAndDamaged();
    return describe(doc, bytes, false, signatureCount);
  }

  if (signatureCount > 0 || structure.byteRangeSeen) throw signedAndDamaged();
  // The whole file written anew (a save without changes would hand the bytes back as they are).
  doc.getCatalog().set('Type', PdfName.of('Catalog'));
  const rewritten = Buffer.from(await doc.save({ useXRefStream: false, compressStreams: false }));
  // The rewrite must itself pass, as written, without another repair.
  const again = await examine(rewritten, false);
  return { ...again, repaired: true };
}

/** Whether the object the trailer names as /Root is a /Type /Catalog dictionary where the cross-reference data says. */
function namesCatalog(bytes: Buffer, structure: StructureReport): boolean {
  if (structure.root === undefined) return false;
  const catalog = objectByEntries(bytes, structure.xref.entries, structure.root);
  return isDict(catalog) && nameOf(catalog.get('Type')) === 'Catalog';
}

/** Bound on the nodes of a page tree: a 5 MB file holds fewer than 100,000 page objects. */
const MAX_PAGE_TREE_NODES = 200_000;

/**
 * The page tree must be a tree: a page or Pages node reached twice (a Kids array listing the same page thousands of
 * times, a node among its own Kids) or a page among its own /Parent ancestors is refused as damaged, as pdf-lib once
 * needed (it walked the tree recursively and page by page: a loop overflowed its stack, a million-entry tree of one
 * repeated page took it 42 s). @libpdf/core skips a node it has seen; what the pages are must not depend on such a
 * choice.
 */
function checkPageTree(doc: PDF): void {
  const seen = new Set<PdfObject>();
  const stack: (PdfObject | undefined)[] = [doc.getCatalog().get('Pages')];
  while (stack.length > 0) {
    const node = lookup(doc, stack.pop());
    if (!(node instanceof PdfDict)) continue;
    if (seen.has(node) || seen.size >= MAX_PAGE_TREE_NODES) throw damaged();
    seen.add(node);
    if (isPage(node)) {
      checkParents(doc, node);
      continue;
    }
    const kids = lookup(doc, node.get('Kids'));
    if (kids instanceof PdfArray) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids.at(i));
  }
}

/** A page's /Parent chain must end: a page that is its own ancestor has no page tree to inherit from. */
function checkParents(doc: PDF, page: PdfDict): void {
  const seen = new Set<PdfDict>([page]);
  for (let node = lookup(doc, page.get('Parent')); node instanceof PdfDict; node = lookup(doc, node.get('Parent'))) {
    if (seen.has(node) || seen.size >= MAX_PAGE_TREE_NODES) throw damaged();
    seen.add(node);
  }
}

const isPage = (node: PdfDict) => {
  const type = node.get('Type');
  return type instanceof PdfName && type.value === 'Page';
};

function describe(doc: PDF, bytes: Buffer, repaired: boolean, signatureCount: number): InspectedPdf {
  const groups = new Map<string, { entry: Omit<PageGeometry, 'pages'>; pages: number[] }>();
  let firstPageHeight = 0;
  doc.getPages().forEach((page, i) => {
    const node = page.dict;
    const mediaBox = readBox(doc, node, 'MediaBox') ?? DEFAULT_MEDIA_BOX;
    const cropBox = clip(readBox(doc, node, 'CropBox') ?? mediaBox, mediaBox);
    const rotation = readRotation(doc, node);
    if (i === 0) firstPageHeight = rotation % 180 === 0 ? cropBox[3] : cropBox[2];
    const key = JSON.stringify([mediaBox, cropBox, rotation]);
    const group = groups.get(key);
    if (group) group.pages.push(i + 1);
    else groups.set(key, { entry: { mediaBox, cropBox, rotation }, pages: [i + 1] });
  });

  const acroForm = lookup(doc, doc.getCatalog().get('AcroForm'));
  const fields = acroForm instanceof PdfDict ? lookup(doc, acroForm.get('Fields')) : undefined;

  return {
    bytes,
    repaired,
    totalPages: doc.getPageCount(),
    geometry: [...groups.values()].map(({ entry, pages }) => ({ pages: toRuns(pages), ...entry })),
    signatureCount,
    hasAcroForm: fields instanceof PdfArray && fields.length > 0,
    firstPageHeight,
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000 + 0;

/** An attribute a page inherits from its ancestors in the page tree when it has none (ISO 32000-1, 7.7.3.4). */
function inherited(doc: PDF, node: PdfDict, key: string): PdfObject | undefined {
  const seen = new Set<PdfDict>();
  for (let current = node as PdfObject | undefined; current instanceof PdfDict && !seen.has(current);) {
    seen.add(current);
    const value = current.get(key);
    if (value !== undefined) return lookup(doc, value);
    current = lookup(doc, current.get('Parent'));
  }
  return undefined;
}

/** A page box (inherited when the page has none) as [x, y, width, height], normalised; undefined when unusable. */
function readBox(doc: PDF, node: PdfDict, name: string): [number, number, number, number] | undefined {
  const array = inherited(doc, node, name);
  if (!(array instanceof PdfArray) || array.length !== 4) return undefined;
  const values: number[] = [];
  for (let i = 0; i < 4; i++) {
    const item = lookup(doc, array.at(i));
    if (!(item instanceof PdfNumber) || !Number.isFinite(item.value)) return undefined;
    values.push(item.value);
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
function readRotation(doc: PDF, node: PdfDict): number {
  const value = inherited(doc, node, 'Rotate');
  const angle = value instanceof PdfNumber ? value.value : 0;
  if (!Number.isInteger(angle) || angle % 90 !== 0) return 0;
  return ((angle % 360) + 360) % 360;
}
