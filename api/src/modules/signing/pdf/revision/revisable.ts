import { PDF } from '@libpdf/core';
import { DocumentNotSignableError, type DocumentInput } from '../engine';
import { NotAppendableError, SigningDocument } from './document';

/**
 * The document, readable for appending. One whose structure does not allow an update (its cross-reference data does
 * not read exactly, it is encrypted) is rewritten whole by @libpdf/core first when it carries no signature (a rewrite
 * harms nothing then), and refused when it does (DocumentNotSignableError: each would break).
 */
export async function revisable(input: DocumentInput): Promise<SigningDocument> {
  const document = input instanceof SigningDocument ? input : SigningDocument.of(input);
  try {
    document.structure();
    return document;
  } catch (err) {
    if (!(err instanceof NotAppendableError)) throw err;
    const pdf = await PDF.load(document.bytes);
    const signed =
      pdf
        .getForm()
        ?.getSignatureFields()
        .some((f) => f.isSigned()) ?? false;
    if (signed || pdf.isEncrypted) throw new DocumentNotSignableError(err.message);
    const rewritten = SigningDocument.of(await pdf.save({ useXRefStream: false }));
    try {
      rewritten.structure();
    } catch (again) {
      if (again instanceof NotAppendableError) throw new DocumentNotSignableError(again.message);
      throw again;
    }
    return rewritten;
  }
}
