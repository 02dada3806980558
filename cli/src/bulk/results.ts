import { writeFileSync } from 'node:fs';
import type { RowResult } from './send';

const cell = (value: string | number | null): string => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** The results CSV: row,reference,refId,status,error, one line per data row in the order of the input. */
export function writeResults(file: string, results: RowResult[]): void {
  const lines = ['row,reference,refId,status,error'];
  for (const r of [...results].sort((a, b) => a.row - b.row))
    lines.push([r.row, r.reference, r.refId, r.status, r.error].map(cell).join(','));
  writeFileSync(file, `${lines.join('\n')}\n`);
}
