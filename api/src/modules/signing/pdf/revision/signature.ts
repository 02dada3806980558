import {
  isDict,
  PdfLexer,
  PdfName,
  PdfRawObject,
  PdfRef,
  PdfStreamValue,
  PdfString,
  textOf,
  valueText,
  type PdfDict,
  type PdfValue,
} from '@esign/pdf-syntax';
import type { FieldSpec, WidgetPlace } from '../engine';
import type { SigningDocument } from './document';
import type { Revision } from './revision';

/*
 * A signature's part of a revision (issue 23): the signature dictionary with its /ByteRange and a zero-filled
 * /Contents as placeholders, the field merged with its widget, the form and the page's /Annots; then, once the
 * revision is written, the /ByteRange patched in place and the digest it covers taken from the document's running
 * SHA-256 (the document's bytes are not hashed again); and, once the CMS (or the timestamp token) comes, the
 * /Contents filled in. As @libpdf/core's sign() made them before (see external.ts for the prepared file's format).
 */

/** Ten digits per number: room for any offset below 10 GB, patched in place once the offsets are known. */
const BYTE_RANGE_PLACEHOLDER = '0 9999999999 9999999999 9999999999';
const MIN_PLACEHOLDER_BYTES = 1_024;
const MAX_PLACEHOLDER_BYTES = 1_048_576;

/** D:YYYYMMDDHHmmSSZ, in UTC, as @libpdf/core writes /M. */
export const pdfDate = (date: Date): string => `D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

/** A text string (ISO 32000-1, 7.9.2.2): PDFDocEncoding when Latin-1 holds it, else UTF-16BE with its mark. */
function textString(text: string): PdfString {
  if (/^[\u0020-\u007e\u00a0-\u00ff]*$/.test(text)) return new PdfString(Buffer.from(text, 'latin1'));
  const utf16 = Buffer.from(text, 'utf16le').swap16();
  return new PdfString(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16]));
}

/** The signature or document timestamp a revision carries, before its bytes are written. */
export interface PlacedSignature {
  ref: PdfRef;
  placeholderBytes: number;
}

/**
 * Adds the signature dictionary (`kind` Sig: a CAdES signature; DocTimeStamp: an RFC 3161 document timestamp) with
 * its placeholders, and its field merged with the widget (the signer's first box, or an invisible widget on the
 * first page), to the revision. The field's name must be new in the document.
 */
export function placeSignature(
  revision: Revision,
  spec: Omit<FieldSpec, 'widget' | 'placeholderBytes'>,
  widget: WidgetPlace | null,
  placeholderBytes: number,
  kind: 'Sig' | 'DocTimeStamp' = 'Sig',
): PlacedSignature {
  if (
    !Number.isInteger(placeholderBytes) ||
    placeholderBytes < MIN_PLACEHOLDER_BYTES ||
    placeholderBytes > MAX_PLACEHOLDER_BYTES
  )
    throw new RangeError(
      `placeholderBytes must be an integer from ${MIN_PLACEHOLDER_BYTES} to ${MAX_PLACEHOLDER_BYTES}`,
    );
  const entries: [string, PdfValue][] = [['Type', new PdfName(kind)]];
  entries.push(['Filter', new PdfName('Adobe.PPKLite')]);
  entries.push(['SubFilter', new PdfName(kind === 'Sig' ? 'ETSI.CAdES.detached' : 'ETSI.RFC3161')]);
  const tail: [string, PdfValue][] = [];
  if (kind === 'Sig') {
    tail.push(['M', textString(pdfDate(spec.signingTime))]);
    if (spec.name) tail.push(['Name', textString(spec.name)]);
    if (spec.reason) tail.push(['Reason', textString(spec.reason)]);
    if (spec.location) tail.push(['Location', textString(spec.location)]);
    if (spec.contactInfo) tail.push(['ContactInfo', textString(spec.contactInfo)]);
  }
  const head = `<<${entries.map(([k, v]) => `/${k} ${valueText(v)}`).join(' ')} /ByteRange [`;
  const contents = `] /Contents <${'0'.repeat(placeholderBytes * 2)}>`;
  const text = `${head}${BYTE_RANGE_PLACEHOLDER}${contents}${tail.map(([k, v]) => ` /${k} ${valueText(v)}`).join('')}>>`;
  const bytes = Buffer.from(text, 'latin1');
  const ref = revision.add(
    new PdfRawObject(bytes, { byteRange: head.length, contents: head.length + BYTE_RANGE_PLACEHOLDER.length + 12 }),
  );
  addField(revision, spec.fieldName, ref, widget);
  return { ref, placeholderBytes };
}

/** The form's top-level field names (signature fields are top-level here). */
function fieldNames(revision: Revision, fields: PdfValue[]): string[] {
  return fields.flatMap((field) => {
    const dict = revision.resolve(field);
    const name = isDict(dict) ? revision.resolve(dict.get('T')) : undefined;
    return name instanceof PdfString ? [textOf(name)] : [];
  });
}

/**
 * The signature field merged with its widget: with a place, the widget is that box on that page, listed in the page's
 * /Annots with an empty appearance (the stamp itself is in the page's content), so clicking it in a reader opens the
 * signature's details; without, an invisible widget on the first page. The form is made when there is none, and its
 * /SigFlags say it holds signatures and is to be appended to.
 */
function addField(revision: Revision, name: string, signature: PdfRef, place: WidgetPlace | null): void {
  const catalog = revision.catalog();
  const own = catalog.get('AcroForm');
  let form: PdfDict;
  if (own instanceof PdfRef && isDict(revision.value(own.num))) form = revision.edit(own.num);
  else if (isDict(own)) form = own;
  else {
    form = new Map();
    catalog.set('AcroForm', revision.add(form));
  }
  const existing = revision.resolve(form.get('Fields'));
  const fields = Array.isArray(existing) ? existing : [];
  if (fieldNames(revision, fields).includes(name)) throw new Error(`The document already has a field named "${name}".`);
  const pageNo = place?.page ?? 1;
  const field: PdfDict = new Map<string, PdfValue>([
    ['FT', new PdfName('Sig')],
    ['T', textString(name)],
    ['V', signature],
    ['Type', new PdfName('Annot')],
    ['Subtype', new PdfName('Widget')],
    ['F', 132], // Print | Locked
    ['P', revision.pageRef(pageNo)],
  ]);
  const ref = revision.add(field);
  form.set('Fields', [...fields, ref]);
  const flags = revision.resolve(form.get('SigFlags'));
  form.set('SigFlags', (typeof flags === 'number' ? flags : 0) | 3);
  if (!place) {
    field.set('Rect', [0, 0, 0, 0]);
    return;
  }
  field.set('Rect', [place.x, place.y, place.x + place.width, place.y + place.height]);
  const appearance = revision.add(
    new PdfStreamValue(
      new Map<string, PdfValue>([
        ['Type', new PdfName('XObject')],
        ['Subtype', new PdfName('Form')],
        ['BBox', [0, 0, place.width, place.height]],
      ]),
      Buffer.alloc(0),
    ),
  );
  field.set('AP', new Map([['N', appearance]]));
  revision.addAnnotation(pageNo, ref);
}

/** A revision written with its signature's placeholders: the /ByteRange final, the digest it covers, /Contents empty. */
export interface WrittenSignature {
  /** The document the revision was appended to. */
  base: SigningDocument;
  /** The revision's bytes (the /ByteRange patched, /Contents zeros). */
  update: Buffer;
  /** The SHA-256 the /ByteRange covers. */
  digest: Buffer;
  /** Where /Contents's hex digits are in `update`, and how many. */
  contents: { offset: number; hexLength: number };
  /** The signature dictionary's object number and where its body starts in `update`. */
  signature: { num: number; offset: number };
}

/** Writes the revision, patches the /ByteRange and takes the digest from the document's running hash. */
export function writeSigned(
  revision: Revision,
  placed: PlacedSignature,
): WrittenSignature & {
  structure: ReturnType<Revision['write']>['structure'];
} {
  const base = revision.document;
  const { update, structure } = revision.write();
  const at = (absolute: number) => absolute - base.length;
  const lt = update.marks.contents;
  const hexLength = placed.placeholderBytes * 2;
  const gt = lt + 1 + hexLength;
  const total = base.length + update.bytes.length;
  const byteRange = [0, lt, gt + 1, total - gt - 1];
  const text = `0 ${byteRange
    .slice(1)
    .map((n) => String(n).padEnd(10, ' '))
    .join(' ')}`;
  if (text.length !== BYTE_RANGE_PLACEHOLDER.length) throw new Error('ByteRange overflow');
  const bytes = update.bytes;
  bytes.write(text, at(update.marks.byteRange), 'latin1');
  const digest = base.digestWith(bytes.subarray(0, at(lt)), bytes.subarray(at(gt + 1)));
  const offset = update.offsets.get(placed.ref.num)!;
  const bodyStart = at(offset) + bytes.indexOf('obj\n', at(offset)) - at(offset) + 4;
  return {
    base,
    update: bytes,
    digest,
    contents: { offset: at(lt) + 1, hexLength },
    signature: { num: placed.ref.num, offset: bodyStart },
    structure,
  };
}

/** The signature dictionary as it reads once /Contents holds the CMS (for the next revisions of the job). */
export function signatureValue(update: Buffer, signature: { offset: number }): PdfValue {
  return new PdfLexer(update, signature.offset).readValue();
}
