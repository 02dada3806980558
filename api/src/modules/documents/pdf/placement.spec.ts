import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RECTANGLE, Messages } from '@esign/contract';
import { decodePng, type DecodedPng } from '@esign/test-support';
import { PDF, PdfArray, PdfNumber, rgb } from '@libpdf/core';
import { readFixture } from '../../../../test/support/fixtures';
import { AppError } from '../../../common/app-error';
import { inspectPdf } from './inspect';
import { geometryOf, type PageView } from './pageRuns';
import { normaliseRectangle, placeBoxes, toPageBox, type PageBox } from './placement';

const TOP_LEFT = '0,0,150,50';

const inspect = (bytes: Buffer) => inspectPdf({ bytes, filename: 'document.pdf', mimeType: 'application/pdf' });

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected an AppError');
}

/** The box placed on one page of a document, through inspectPdf's geometry as the API does it. */
async function boxOn(bytes: Buffer, page: number, rectangle: string): Promise<PageBox> {
  const { totalPages, geometry } = await inspect(bytes);
  const boxes = placeBoxes({ rectangle, pageNo: [page], applyAll: false, totalPages, geometry });
  expect(boxes).toHaveLength(1);
  const { pages, ...box } = boxes[0];
  expect(pages).toBe(String(page));
  return box;
}

function expectBox(actual: PageBox, expected: PageBox): void {
  for (const key of ['x', 'y', 'width', 'height'] as const) expect(actual[key]).toBeCloseTo(expected[key], 2);
}

/** A Letter page: the spec's page scale is s = 792 / 840. */
const letter: PageView = { mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 0 };
const view = (cropBox: [number, number, number, number], rotation = 0): PageView => ({
  mediaBox: cropBox,
  cropBox,
  rotation,
});

describe('normaliseRectangle', () => {
  it('reads x1,y1,x2,y2', () => {
    expect(normaliseRectangle('10, 20.5,160,70')).toEqual({ x1: 10, y1: 20.5, x2: 160, y2: 70 });
  });

  it('keeps the never-dragged default: it means the bottom-left corner', () => {
    expect(normaliseRectangle(DEFAULT_RECTANGLE)).toEqual({ x1: 0, y1: 790, x2: 150, y2: 840 });
  });

  it("turns '0,0,150,100' into '0,0,150,50'", () => {
    expect(normaliseRectangle('0,0,150,100')).toEqual({ x1: 0, y1: 0, x2: 150, y2: 50 });
    expect(normaliseRectangle('0,0,150,101')).toEqual({ x1: 0, y1: 0, x2: 150, y2: 101 });
  });

  it.each([
    '',
    '1,2,3',
    '1,2,3,4,5',
    'a,b,c,d',
    '0,0,150,',
    '10,0,5,50',
    '0,50,150,50',
    'NaN,0,1,1',
    '0,0,Infinity,50',
  ])('refuses %p with a 400 and a clear message', (text) => {
    const error = thrown(() => normaliseRectangle(text));
    expect(error.status).toBe(400);
    expect(error.message).toBe(Messages.invalidRectangle);
  });

  it('refuses what is not text', () => {
    expect(thrown(() => normaliseRectangle(undefined as unknown as string)).status).toBe(400);
  });
});

describe('toPageBox: exact numbers', () => {
  it('Letter (normal.pdf, 612x792): s = 792/840', async () => {
    const bytes = readFixture('pdfs', 'normal.pdf');
    expectBox(await boxOn(bytes, 1, DEFAULT_RECTANGLE), { x: 0, y: 0, width: 141.429, height: 47.143 });
    expectBox(await boxOn(bytes, 1, TOP_LEFT), { x: 0, y: 744.857, width: 141.429, height: 47.143 });
    expectBox(await boxOn(bytes, 2, '306,420,456,470'), { x: 288.514, y: 348.857, width: 141.429, height: 47.143 });
  });

  it('A4 (already_signed.pdf, 595.28x841.89): s = 841.89/840', async () => {
    const bytes = readFixture('pdfs', 'already_signed.pdf');
    const s = 841.89 / 840;
    expectBox(await boxOn(bytes, 1, TOP_LEFT), { x: 0, y: 841.89 - 50 * s, width: 150 * s, height: 50 * s });
    expectBox(await boxOn(bytes, 1, DEFAULT_RECTANGLE), { x: 0, y: 0, width: 150 * s, height: 50 * s });
  });

  it('landscape (american_flag.pdf, 988x520) and square (giraffe.pdf, 600x600) pages', async () => {
    const flag = readFixture('pdfs', 'american_flag.pdf');
    expectBox(await boxOn(flag, 1, TOP_LEFT), { x: 0, y: 489.048, width: 92.857, height: 30.952 });
    expectBox(await boxOn(flag, 1, DEFAULT_RECTANGLE), { x: 0, y: 0, width: 92.857, height: 30.952 });
    const giraffe = readFixture('pdfs', 'giraffe.pdf');
    expectBox(await boxOn(giraffe, 1, TOP_LEFT), { x: 0, y: 564.286, width: 107.143, height: 35.714 });
    expectBox(await boxOn(giraffe, 1, DEFAULT_RECTANGLE), { x: 0, y: 0, width: 107.143, height: 35.714 });
  });

  it('a real crop box (freeculture.pdf page 1: [61.2 28.8 550.8 763.2] in a Letter media box)', async () => {
    const bytes = readFixture('pdfs', 'freeculture.pdf');
    const s = 734.4 / 840;
    const topLeft = await boxOn(bytes, 1, TOP_LEFT);
    expect(topLeft.x).toBeCloseTo(61.2, 3);
    expect(topLeft.y + topLeft.height).toBeCloseTo(763.2, 3);
    expectBox(topLeft, { x: 61.2, y: 763.2 - 50 * s, width: 150 * s, height: 50 * s });
    const bottomLeft = await boxOn(bytes, 1, DEFAULT_RECTANGLE);
    expectBox(bottomLeft, { x: 61.2, y: 28.8, width: 150 * s, height: 50 * s });
  });

  it('with_cropbox.pdf: its crop box equals its media box on both pages; a smaller one set on page 2 is honoured', async () => {
    const original = readFixture('pdfs', 'with_cropbox.pdf');
    expect((await inspect(original)).geometry).toEqual([
      { pages: '1-2', mediaBox: [0, 0, 595, 842], cropBox: [0, 0, 595, 842], rotation: 0 },
    ]);
    const bytes = await withCropBoxOnPage2(original);
    expect(geometryOf((await inspect(bytes)).geometry, 2).cropBox).toEqual([60, 80, 400, 620]);
    const s = 620 / 840;
    const topLeft = await boxOn(bytes, 2, TOP_LEFT);
    expect(topLeft.x).toBeCloseTo(60, 3);
    expect(topLeft.y + topLeft.height).toBeCloseTo(700, 3);
    expectBox(topLeft, { x: 60, y: 700 - 50 * s, width: 150 * s, height: 50 * s });
    expectBox(await boxOn(bytes, 2, DEFAULT_RECTANGLE), { x: 60, y: 80, width: 150 * s, height: 50 * s });
    // Page 1 keeps the whole A4 page.
    expectBox(await boxOn(bytes, 1, DEFAULT_RECTANGLE), {
      x: 0,
      y: 0,
      width: 150 * (842 / 840),
      height: 50 * (842 / 840),
    });
  });

  it('rotated pages: the displayed top-left corner maps to the right corner of user space', () => {
    const s = 612 / 840; // turned a quarter, the Letter page shows 792 wide and 612 tall
    const w = 150 * s;
    const h = 50 * s;
    expectBox(toPageBox(normaliseRectangle(TOP_LEFT), { ...letter, rotation: 90 }), {
      x: 0,
      y: 0,
      width: h,
      height: w,
    });
    expectBox(toPageBox(normaliseRectangle(TOP_LEFT), { ...letter, rotation: 270 }), {
      x: 612 - h,
      y: 792 - w,
      width: h,
      height: w,
    });
    const t = 792 / 840;
    expectBox(toPageBox(normaliseRectangle(TOP_LEFT), { ...letter, rotation: 180 }), {
      x: 612 - 150 * t,
      y: 0,
      width: 150 * t,
      height: 50 * t,
    });
  });

  it('moves a box dropped partly off the page inside it, and shrinks one larger than the page', () => {
    const s = 792 / 840;
    expectBox(toPageBox(normaliseRectangle('800,0,950,50'), letter), {
      x: 612 - 150 * s,
      y: 792 - 50 * s,
      width: 150 * s,
      height: 50 * s,
    });
    expectBox(toPageBox(normaliseRectangle('-50,-20,100,30'), letter), {
      x: 0,
      y: 792 - 50 * s,
      width: 150 * s,
      height: 50 * s,
    });
    expectBox(toPageBox(normaliseRectangle('0,820,150,870'), letter), { x: 0, y: 0, width: 150 * s, height: 50 * s });
    expectBox(toPageBox(normaliseRectangle('0,0,5000,5000'), letter), { x: 0, y: 0, width: 612, height: 792 });
    expectBox(toPageBox(normaliseRectangle('0,0,5000,5000'), view([10, 20, 300, 400], 90)), {
      x: 10,
      y: 20,
      width: 300,
      height: 400,
    });
  });
});

describe('placeBoxes', () => {
  it('puts a box on every page with apply_all, one entry per distinct box', async () => {
    const { totalPages, geometry } = await inspect(readFixture('pdfs', 'freeculture.pdf'));
    const boxes = placeBoxes({ rectangle: DEFAULT_RECTANGLE, pageNo: [], applyAll: true, totalPages, geometry });
    expect(boxes.map((b) => b.pages)).toEqual(['1', '2', '3-352']);
    // Pages 3-352: crop box [41.76 41.76 396.48 594.48]; bottom-left is the crop box's corner.
    expect(boxes[2]).toMatchObject({ x: 41.76, y: 41.76 });
  });

  it('groups the listed pages into runs', async () => {
    const { totalPages, geometry } = await inspect(readFixture('pdfs', 'us_constitution.pdf'));
    const boxes = placeBoxes({ rectangle: TOP_LEFT, pageNo: [3, 1, 2, 2, 7], applyAll: false, totalPages, geometry });
    expect(boxes).toEqual([{ pages: '1-3,7', x: 0, y: 744.857, width: 141.429, height: 47.143 }]);
  });

  it('refuses no pages, and names a page the document does not have', async () => {
    const { totalPages, geometry } = await inspect(readFixture('pdfs', 'us_constitution.pdf'));
    const place = (pageNo: number[]) => () =>
      placeBoxes({ rectangle: TOP_LEFT, pageNo, applyAll: false, totalPages, geometry });
    expect(thrown(place([]))).toMatchObject({ code: 'VALIDATION_FAILED', message: Messages.noPagesSelected });
    expect(thrown(place([2, 20])).message).toBe('Page 20 does not exist in this document, which has 19 page(s).');
    expect(thrown(place([0])).message).toBe('Page 0 does not exist in this document, which has 19 page(s).');
    expect(thrown(place([1.5])).status).toBe(400);
    expect(
      thrown(() => placeBoxes({ rectangle: 'x', pageNo: [1], applyAll: false, totalPages, geometry })).message,
    ).toBe(Messages.invalidRectangle);
  });
});

// ---- Independent proof: draw the placed box into the page and let poppler show where it is. ----

type Image = DecodedPng;

/**
 * Page 1 rendered by poppler at 20 dpi, as viewers show it: the crop box (-cropbox; pdftoppm's default is the media
 * box), turned by /Rotate.
 */
function renderPage1(pdf: Uint8Array): Image {
  const dir = mkdtempSync(join(tmpdir(), 'placement-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', [
      '-r',
      '20',
      '-png',
      '-cropbox',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      join(dir, 'in.pdf'),
      join(dir, 'out'),
    ]);
    return decodePng(readFileSync(join(dir, 'out.png')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bounding box (pixels; right and bottom exclusive) of what differs between two renders. */
function changedArea(before: Image, after: Image): { left: number; top: number; right: number; bottom: number } {
  expect([after.width, after.height]).toEqual([before.width, before.height]);
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (let y = 0; y < before.height; y++) {
    for (let x = 0; x < before.width; x++) {
      const at = (y * before.width + x) * before.channels;
      let diff = 0;
      for (let k = 0; k < before.channels; k++)
        diff = Math.max(diff, Math.abs(before.pixels[at + k] - after.pixels[at + k]));
      if (diff > 64) {
        left = Math.min(left, x);
        top = Math.min(top, y);
        right = Math.max(right, x + 1);
        bottom = Math.max(bottom, y + 1);
      }
    }
  }
  expect(right).toBeGreaterThan(left); // something was drawn where poppler can see it
  return { left, top, right, bottom };
}

/**
 * Places `rectangle` on the page through inspectPdf + placeBoxes, fills that box with @libpdf/core on a copy of the
 * page, and returns where poppler shows the change, plus the rendered page size.
 */
async function whereShown(source: Buffer, pageNo: number, rectangle: string) {
  const box = await boxOn(source, pageNo, rectangle);
  const doc = await (await PDF.load(source)).extractPages([pageNo - 1]);
  const before = renderPage1(await doc.save());
  // The page's own content may leave the graphics state changed: @libpdf/core keeps it in q ... Q before it draws, so
  // the box is drawn in user space.
  doc.getPage(0)!.drawRectangle({ ...box, color: rgb(1, 0, 1) });
  const after = renderPage1(await doc.save());
  return { area: changedArea(before, after), width: before.width, height: before.height };
}

/**
 * Where the console meant the box, in pixels of the rendered page, worked out from the rectangle text and the
 * rendered image alone: the console shows the page 840 units tall, so one unit is height/840 pixels.
 */
function meant(rectangle: string, image: { width: number; height: number }) {
  const [x1, y1, x2, y2] = rectangle.split(',').map(Number);
  const k = image.height / 840;
  return { left: x1 * k, top: y1 * k, right: x2 * k, bottom: y2 * k };
}

const PIXEL_TOLERANCE = 1.5;
function expectArea(actual: Record<string, number>, expected: Record<string, number>): void {
  for (const key of ['left', 'top', 'right', 'bottom']) {
    expect(Math.abs(actual[key] - expected[key])).toBeLessThanOrEqual(PIXEL_TOLERANCE);
  }
}

/** A page box [x1 y1 x2 y2] from x, y, width and height. */
const boxArray = (x: number, y: number, width: number, height: number) =>
  new PdfArray([x, y, x + width, y + height].map((v) => PdfNumber.of(v)));

async function withCropBoxOnPage2(original: Buffer): Promise<Buffer> {
  const doc = await PDF.load(original);
  doc.getPage(1)!.dict.set('CropBox', boxArray(60, 80, 400, 620));
  return Buffer.from(await doc.save());
}

/** A blank page with a media box away from the origin, a crop box inside it, and a rotation. */
async function turnedPage(rotation: number): Promise<Buffer> {
  const doc = PDF.create();
  const page = doc.addPage({ width: 612, height: 792 });
  page.dict.set('MediaBox', boxArray(50, 100, 612, 792));
  page.dict.set('CropBox', boxArray(80, 130, 500, 700));
  page.setRotation(rotation as 0 | 90 | 180 | 270);
  return Buffer.from(await doc.save());
}

describe('placement as poppler shows it (pdftoppm -r 20 -png -cropbox)', () => {
  const cases: [string, () => Promise<Buffer>, number][] = [
    ['normal.pdf (Letter)', async () => readFixture('pdfs', 'normal.pdf'), 1],
    ['freeculture.pdf page 1 (crop box in a Letter page)', async () => readFixture('pdfs', 'freeculture.pdf'), 1],
    ['freeculture.pdf page 3 (480x678, crop box)', async () => readFixture('pdfs', 'freeculture.pdf'), 3],
    ['american_flag.pdf (988x520 landscape)', async () => readFixture('pdfs', 'american_flag.pdf'), 1],
    ['giraffe.pdf (600x600)', async () => readFixture('pdfs', 'giraffe.pdf'), 1],
    [
      'with_cropbox.pdf page 2 with a smaller crop box',
      () => withCropBoxOnPage2(readFixture('pdfs', 'with_cropbox.pdf')),
      2,
    ],
    ['a page turned 90°', () => turnedPage(90), 1],
    ['a page turned 180°', () => turnedPage(180), 1],
    ['a page turned 270°', () => turnedPage(270), 1],
    ['an unturned page with the same boxes', () => turnedPage(0), 1],
  ];

  it.each(cases)(
    '%s: top-left, bottom-left and a box in the middle land where they were dropped',
    async (_, source, pageNo) => {
      const bytes = await source();

      const topLeft = await whereShown(bytes, pageNo, TOP_LEFT);
      expectArea(topLeft.area, meant(TOP_LEFT, topLeft));
      expect(topLeft.area.left).toBeLessThanOrEqual(1);
      expect(topLeft.area.top).toBeLessThanOrEqual(1);

      const bottomLeft = await whereShown(bytes, pageNo, DEFAULT_RECTANGLE);
      expectArea(bottomLeft.area, meant(DEFAULT_RECTANGLE, bottomLeft));
      expect(bottomLeft.area.left).toBeLessThanOrEqual(1);
      expect(bottomLeft.area.bottom).toBeGreaterThanOrEqual(bottomLeft.height - 1);

      // Off-centre on both axes, inside every page of these cases (the narrowest shows 840 * 489.6/734.4 = 560 wide).
      const middle = '250,300,400,420';
      const shown = await whereShown(bytes, pageNo, middle);
      expectArea(shown.area, meant(middle, shown));
    },
  );

  it('a box dropped off the right edge is moved inside: it touches the right edge', async () => {
    const shown = await whereShown(readFixture('pdfs', 'normal.pdf'), 1, '800,100,950,150');
    const k = shown.height / 840;
    expectArea(shown.area, { left: shown.width - 150 * k, top: 100 * k, right: shown.width, bottom: 150 * k });
  });
});
