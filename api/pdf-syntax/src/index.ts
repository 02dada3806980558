/**
 * @esign/pdf-syntax: the one reader of PDF syntax in the product. The API's upload check reads a file's
 * cross-reference structure with it (and rebuilds a file whose cross-reference data is wrong); the verifier (the API's
 * verification report and `esign-cli verify`) reads signature fields, object streams and the DSS with it. It also
 * writes one incremental update (write.ts): the signing engine appends each revision of a document with it, reading
 * only the objects the revision changes (ARCHITECTURE.md, "The incremental writer"). Drawing (pages, fonts, images)
 * is @libpdf/core's.
 */
export {
  endsToken,
  isDelimiter,
  isDict,
  isDigit,
  isWhitespace,
  listOf,
  nameOf,
  numberOf,
  PdfLexer,
  PdfName,
  PdfRef,
  PdfString,
  sameValue,
  startsWithAt,
  SyntaxProblem,
  textOf,
  valueAt,
  type PdfDict,
  type PdfValue,
} from './lexer';
export {
  decodeStream,
  inflate,
  isBeyondBudget,
  streamBounds,
  unbounded,
  type InflateBudget,
  type StreamBounds,
} from './streams';
export {
  isObjectHeader,
  locate,
  MAX_DICT_BYTES,
  readCrossReference,
  readObjectHeader,
  readStartxref,
  scanTrailerDictionaries,
  XREF_DICT_LOOKBACK,
  type CrossReference,
  type XrefEntries,
  type XrefEntry,
} from './xref';
export {
  endsInsideObject,
  firstUnparsableObject,
  indexInObjectStream,
  objectByEntries,
  objectKindByEntries,
  objectStreamByEntries,
  objectStreamIndex,
  PdfObjects,
  scanObjectHeaders,
  streamByEntries,
  type CompressedObject,
  type IndirectObject,
  type ObjectHeader,
  type ObjectStream,
  type ObjectStreamIndex,
  type ObjectStreamCache,
} from './objects';
export {
  nameText,
  numberText,
  objectBytes,
  PdfRawObject,
  PdfStreamValue,
  valueText,
  writeUpdate,
  type PdfObjectBody,
  type UpdateTrailer,
  type WrittenUpdate,
} from './write';
export {
  appendCrossReference,
  exactCrossReference,
  rebuildCrossReference,
  type RebuiltCrossReference,
  type TrailerEntries,
} from './rebuild';
