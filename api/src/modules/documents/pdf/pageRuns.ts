import { Messages } from '@esign/contract';
import type { PageGeometry } from './geometry';
import { validation } from './messages';

/** More pages than any PDF under the upload limit can have; bounds what a runs text may expand to. */
export const MAX_PAGES = 100_000;

/** A page's boxes (PDF points) and rotation, as one entry of PageGeometry describes them. */
export interface PageView {
  mediaBox: [number, number, number, number];
  cropBox: [number, number, number, number];
  rotation: number;
}

const badRuns = (runs: string) =>
  validation(`${Messages.invalidRequest} "${runs.slice(0, 40)}" is not a list of pages such as 1-3,7.`);

/** 1-based page numbers as runs: [7, 1, 2, 3, 3] → '1-3,7'. */
export function toRuns(pages: number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  for (const page of sorted) {
    if (!Number.isInteger(page) || page < 1 || page > MAX_PAGES) throw badRuns(String(page));
  }
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(',');
}

/** The pages of a runs text, ascending and without repeats: '1-3,7' → [1, 2, 3, 7]. */
export function fromRuns(runs: string): number[] {
  if (typeof runs !== 'string' || runs.trim() === '') throw badRuns(String(runs));
  const pages = new Set<number>();
  for (const part of runs.split(',')) {
    const match = /^\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?$/.exec(part);
    if (!match) throw badRuns(runs);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1 || last < first || last > MAX_PAGES) throw badRuns(runs);
    for (let page = first; page <= last; page++) pages.add(page);
  }
  return [...pages].sort((a, b) => a - b);
}

/** The boxes and rotation of one page (1-based); a 4xx error naming the page when the geometry has no such page. */
export function geometryOf(geometry: PageGeometry[], page: number): PageView {
  return pageIndex(geometry)(page);
}

/**
 * A lookup of page → its view, built once (placing a box on every page of a long book asks for each page).
 * Unknown pages are a 4xx error naming the page.
 */
export function pageIndex(geometry: PageGeometry[]): (page: number) => PageView {
  const byPage = new Map<number, PageView>();
  for (const entry of geometry) {
    const view: PageView = { mediaBox: entry.mediaBox, cropBox: entry.cropBox, rotation: entry.rotation };
    for (const page of fromRuns(entry.pages)) if (!byPage.has(page)) byPage.set(page, view);
  }
  return (page: number) => {
    const view = Number.isInteger(page) ? byPage.get(page) : undefined;
    if (!view) throw validation(Messages.pageOutOfRange, { page: String(page), total: byPage.size });
    return view;
  };
}
