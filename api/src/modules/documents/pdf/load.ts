import {
  EncryptedPDFError,
  ParseSpeeds,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRef,
  type PDFObject,
} from 'pdf-lib';
import { AppError } from '../../../common/app-error';
import { damaged, encrypted } from './messages';

/**
 * pdf-lib's reading of the bytes, strict: an object it cannot parse is an error (not skipped), and nothing is added
 * to the document (no Producer or ModDate). Anything pdf-lib throws becomes the 4xx damaged (or encrypted) error.
 */
export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(bytes, {
      updateMetadata: false,
      throwOnInvalidObject: true,
      parseSpeed: ParseSpeeds.Fastest,
    });
  } catch (e) {
    if (e instanceof AppError) throw e;
    if (e instanceof EncryptedPDFError) throw encrypted();
    throw damaged();
  }
}

/**
 * Digital signatures in the form: signature fields whose value is a signature dictionary (/ByteRange, or /Type /Sig
 * or /DocTimeStamp with /Contents). Usage-rights signatures (/Perms /UR3, Adobe Reader extensions) are not counted:
 * they are not anyone's signature of the content.
 */
export function countSignatures(doc: PDFDocument): number {
  const context = doc.context;
  const acroForm = context.lookup(doc.catalog.get(PDFName.of('AcroForm')));
  if (!(acroForm instanceof PDFDict)) return 0;
  const signatures = new Set<PDFDict>();
  const seen = new Set<PDFObject>();
  const stack: PDFObject[] = [];
  const pushAll = (list: PDFObject | undefined) => {
    const array = context.lookup(list);
    if (array instanceof PDFArray) for (let i = 0; i < array.size(); i++) stack.push(array.get(i));
  };
  pushAll(acroForm.get(PDFName.of('Fields')));
  while (stack.length > 0) {
    const item = stack.pop() as PDFObject;
    if (seen.has(item)) continue;
    seen.add(item);
    const field = item instanceof PDFRef ? context.lookup(item) : item;
    if (!(field instanceof PDFDict) || seen.has(field)) continue;
    seen.add(field);
    const value = context.lookup(field.get(PDFName.of('V')));
    if (value instanceof PDFDict && isSignatureDictionary(value)) signatures.add(value);
    pushAll(field.get(PDFName.of('Kids')));
  }
  return signatures.size;
}

function isSignatureDictionary(dict: PDFDict): boolean {
  if (dict.get(PDFName.of('ByteRange'))) return true;
  const type = dict.get(PDFName.of('Type'));
  return (type === PDFName.of('Sig') || type === PDFName.of('DocTimeStamp')) && dict.has(PDFName.of('Contents'));
}
