import type { PdfObjects } from '@esign/pdf-syntax';
import { onlyValidationData } from './pdf-objects';
import { revisionEnds, type ByteRange } from './pdf';

export interface CoverageReport {
  fileSize: number;
  /** Where the newest signature's (or document timestamp's) coverage ends. */
  coveredUpTo: number;
  /** Bytes after the newest signature's /ByteRange. */
  uncoveredBytes: number;
  /**
   * What the uncovered bytes look like: nothing, whitespace, only validation data (DSS updates, which PAdES allows
   * after the signatures), an unsigned incremental update, or not a PDF update at all.
   */
  uncovered: 'none' | 'whitespace' | 'validation data' | 'incremental update' | 'not a PDF update';
  /** Earlier signatures whose coverage does not end at a revision's end (%%EOF). */
  problems: string[];
}

/**
 * What the signatures cover, oldest first (`signed`: every signature and document timestamp with its label): only
 * the newest may reach the end of the file, each earlier one must end where a revision ends, and what follows the
 * newest is either nothing or validation data.
 */
export function coverageOf(
  bytes: Buffer,
  objects: PdfObjects,
  signed: { label: string; byteRange: ByteRange }[],
): CoverageReport {
  const ends = revisionEnds(bytes);
  const last = signed.at(-1);
  const coveredUpTo = last ? last.byteRange[2] + last.byteRange[3] : 0;
  const tail = bytes.subarray(Math.min(coveredUpTo, bytes.length));
  const tailText = tail.toString('latin1');
  const isUpdate = /(xref|\/Type\s*\/XRef)[\s\S]*startxref\s+\d+\s+%%EOF\s*$/.test(tailText);
  const uncovered: CoverageReport['uncovered'] =
    !last || tail.length === 0
      ? 'none'
      : /^[\s\0]*$/.test(tailText)
        ? 'whitespace'
        : isUpdate && onlyValidationData(objects, bytes, coveredUpTo)
          ? 'validation data'
          : isUpdate
            ? 'incremental update'
            : 'not a PDF update';
  const coverage: CoverageReport = {
    fileSize: bytes.length,
    coveredUpTo,
    uncoveredBytes: last ? Math.max(0, bytes.length - coveredUpTo) : 0,
    uncovered,
    problems: [],
  };
  for (const [i, s] of signed.entries()) {
    const end = s.byteRange[2] + s.byteRange[3];
    if (i < signed.length - 1 && !ends.includes(end) && !/^[\s\0]*$/.test(bytes.toString('latin1', end, end + 2)))
      coverage.problems.push(`${s.label} does not end at the end of a revision`);
  }
  if (last && (uncovered === 'incremental update' || uncovered === 'not a PDF update'))
    coverage.problems.push(
      uncovered === 'incremental update'
        ? `the document was modified after signing: ${coverage.uncoveredBytes} bytes after ${last.label} are an unsigned incremental update`
        : `the document was modified after signing: ${coverage.uncoveredBytes} bytes after ${last.label} are not covered by any signature (not a PDF update)`,
    );
  return coverage;
}
