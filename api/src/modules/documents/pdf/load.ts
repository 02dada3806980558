import {
  exactCrossReference,
  firstUnparsableObject,
  readCrossReference,
  type CrossReference,
  type ObjectStreamCache,
} from '@esign/pdf-syntax';
import { PDF, PdfArray, PdfDict, PdfName, PdfRef, type PdfObject } from '@libpdf/core';
import { AppError } from '../../../common/app-error';
import { damaged, encrypted } from './messages';

/**
 * @libpdf/core's reading of the bytes, strict. It reads the objects where this product's reader of the cross-reference
 * data (@esign/pdf-syntax) finds them: the library reads offsets to the byte and startxref only near the end of the
 * file, where readers (and the upload check) accept a few bytes of drift, so it is handed the same data written
 * exactly (exactCrossReference, appended to a copy). No recovery of its own (lenient: false): a file whose
 * cross-reference data does not read is damaged here (inspectPdf rebuilds one first). Every object the data lists
 * must parse (an object that does not is an error, not a null, as pdf-lib's throwOnInvalidObject once made it), and
 * nothing is added to the document. Anything it throws becomes the 4xx damaged (or encrypted) error. `xref`: the
 * file's cross-reference data when the caller has read it already.
 */
export async function loadPdf(bytes: Uint8Array, xref?: CrossReference): Promise<PDF> {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const read = xref ?? readCrossReference(buf);
  if (read.trailers.some((trailer) => trailer.has('Encrypt'))) throw encrypted();
  if (read.problems.length > 0) throw damaged();
  // Every object must parse (read by @esign/pdf-syntax: three times faster than the library on 85,000 objects).
  const streams: ObjectStreamCache = new Map();
  if (firstUnparsableObject(buf, read.entries, undefined, streams) !== undefined) throw damaged();
  const exact = exactCrossReference(buf, read, streams);
  if (!exact) throw damaged();
  try {
    return await PDF.load(exact, { lenient: false });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw damaged();
  }
}

/** A reference resolved through the document (a direct object as it is). */
export const lookup = (doc: PDF, value: PdfObject | undefined): PdfObject | undefined =>
  value instanceof PdfRef ? (doc.getObject(value) ?? undefined) : value;

/**
 * Digital signatures in the form: signature fields whose value is a signature dictionary (/ByteRange, or /Type /Sig
 * or /DocTimeStamp with /Contents). Usage-rights signatures (/Perms /UR3, Adobe Reader extensions) are not counted:
 * they are not anyone's signature of the content.
 */
export function countSignatures(doc: PDF): number {
  const acroForm = lookup(doc, doc.getCatalog().get('AcroForm'));
  if (!(acroForm instanceof PdfDict)) return 0;
  const signatures = new Set<PdfDict>();
  const seen = new Set<PdfObject>();
  const stack: PdfObject[] = [];
  const pushAll = (list: PdfObject | undefined) => {
    const array = lookup(doc, list);
    if (array instanceof PdfArray) for (let i = 0; i < array.length; i++) stack.push(array.at(i) as PdfObject);
  };
  pushAll(acroForm.get('Fields'));
  while (stack.length > 0) {
    const item = stack.pop() as PdfObject;
    if (seen.has(item)) continue;
    seen.add(item);
    const field = lookup(doc, item);
    if (!(field instanceof PdfDict) || seen.has(field)) continue;
    seen.add(field);
    const value = lookup(doc, field.get('V'));
    if (value instanceof PdfDict && isSignatureDictionary(value)) signatures.add(value);
    pushAll(field.get('Kids'));
  }
  return signatures.size;
}

function isSignatureDictionary(dict: PdfDict): boolean {
  if (dict.get('ByteRange')) return true;
  const type = dict.get('Type');
  return type instanceof PdfName && (type.value === 'Sig' || type.value === 'DocTimeStamp') && dict.has('Contents');
}
