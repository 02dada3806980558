import { Messages } from '@esign/contract';
import { AppError } from '../../../common/app-error';
import type { PageGeometry } from './geometry';
import { fromRuns, geometryOf, toRuns } from './pageRuns';

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected an AppError');
}

describe('page runs', () => {
  it('writes runs of consecutive pages, sorted, without repeats', () => {
    expect(toRuns([1, 2, 3, 7])).toBe('1-3,7');
    expect(toRuns([7, 3, 1, 2, 2, 9, 8])).toBe('1-3,7-9');
    expect(toRuns([5])).toBe('5');
    expect(toRuns([])).toBe('');
    expect(toRuns(Array.from({ length: 352 }, (_, i) => i + 1))).toBe('1-352');
  });

  it('reads runs back, tolerating spaces', () => {
    expect(fromRuns('1-3,7')).toEqual([1, 2, 3, 7]);
    expect(fromRuns(' 2 - 4 , 1 ')).toEqual([1, 2, 3, 4]);
    expect(fromRuns('3,3,1-2')).toEqual([1, 2, 3]);
  });

  it('round-trips', () => {
    const pages = [1, 2, 4, 5, 6, 10, 12, 13];
    expect(fromRuns(toRuns(pages))).toEqual(pages);
  });

  it.each(['', 'a', '0', '3-1', '1-', '-2', '1;2', '1.5', '1-999999'])('refuses %p with a 400', (text) => {
    expect(thrown(() => fromRuns(text)).status).toBe(400);
  });

  it('refuses pages that are not positive integers', () => {
    expect(thrown(() => toRuns([0])).status).toBe(400);
    expect(thrown(() => toRuns([1.5])).status).toBe(400);
  });
});

describe('geometryOf', () => {
  const geometry: PageGeometry[] = [
    { pages: '1,3', mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 0 },
    { pages: '2', mediaBox: [0, 0, 842, 595], cropBox: [10, 10, 800, 500], rotation: 90 },
  ];

  it("finds a page's entry", () => {
    expect(geometryOf(geometry, 2)).toEqual({ mediaBox: [0, 0, 842, 595], cropBox: [10, 10, 800, 500], rotation: 90 });
    expect(geometryOf(geometry, 3).mediaBox).toEqual([0, 0, 612, 792]);
  });

  it('names a page the document does not have', () => {
    const error = thrown(() => geometryOf(geometry, 4));
    expect(error.status).toBe(400);
    expect(error.message).toBe(Messages.pageOutOfRange.replace('{page}', '4').replace('{total}', '3'));
  });
});
