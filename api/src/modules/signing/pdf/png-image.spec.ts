import { crc32, inflateSync } from 'node:zlib';
import { PDF, type PdfStream, type PdfRef } from '@libpdf/core';
import { PNG } from 'pngjs';
import { readFixture } from '../../../../test/support/fixtures';
import { SIGNATURE_PNG } from '../../../../test/support/signing';
import { embedSignatureImage } from './png-image';

/** An image object as written: its dictionary's entries (the SMask as its own object) and its decoded data. */
function written(pdf: PDF, ref: PdfRef): Record<string, unknown> {
  const stream = pdf.getObject(ref) as PdfStream;
  const entries: Record<string, unknown> = {};
  for (const [key, value] of stream) {
    if (key.value === 'Length') continue;
    entries[key.value] =
      key.value === 'SMask' ? written(pdf, value as PdfRef) : ((value as { value?: unknown }).value ?? String(value));
  }
  entries.data = inflateSync(Buffer.from(stream.data)).toString('base64');
  return entries;
}

/** What this file writes and what @libpdf/core's embedPng writes for the same PNG, side by side. */
function both(png: Buffer) {
  const mine = PDF.create();
  const theirs = PDF.create();
  const a = embedSignatureImage(mine, png);
  const b = theirs.embedImage(png);
  return {
    mine: { width: a.width, height: a.height, ...written(mine, a.ref) },
    theirs: { width: b.width, height: b.height, ...written(theirs, b.ref) },
    objects: (pdf: 'mine' | 'theirs') => (pdf === 'mine' ? mine : theirs),
  };
}

/** A PNG of `colorType` (0 grey, 2 RGB, 4 grey and alpha, 6 RGBA) with every row filter pngjs has (-1: adaptive). */
function pngOf(colorType: 0 | 2 | 4 | 6, filterType: number, width = 61, height = 23): Buffer {
  const png = new PNG({ width, height, colorType: 6 });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      png.data.set(
        [(x * 7 + y) & 0xff, (x * y) & 0xff, (255 - x * 3) & 0xff, (x + y * 11) & 0xff],
        (y * width + x) * 4,
      );
  return PNG.sync.write(png, { colorType, filterType, inputHasAlpha: true });
}

describe('embedSignatureImage: a signer’s PNG as @libpdf/core writes it, deflated by Node’s zlib', () => {
  it.each([
    [0, 'grey'],
    [2, 'RGB'],
    [4, 'grey and alpha'],
    [6, 'RGBA'],
  ] as const)(
    'an 8-bit %i (%s) PNG, every row filter: the same dictionaries and the same pixels',
    (colorType, _name) => {
      for (const filterType of [-1, 0, 1, 2, 3, 4]) {
        const { mine, theirs } = both(pngOf(colorType, filterType));
        expect(mine).toEqual(theirs);
        expect(mine.width).toBe(61);
        expect(Boolean((mine as { SMask?: unknown }).SMask)).toBe(colorType === 4 || colorType === 6);
      }
    },
  );

  it('a drawn signature and real photographs (encoded elsewhere, with adaptive filters) come out the same', () => {
    const pngs = [SIGNATURE_PNG, ...['astronaut.png', 'camera.png', 'chelsea.png'].map((f) => readFixture('faces', f))];
    for (const png of pngs) {
      const { mine, theirs } = both(png);
      expect(mine).toEqual(theirs);
    }
  });

  it('leaves to @libpdf/core what it does not write (16 bits, a transparent colour), and writes the rest itself', () => {
    const library = jest.spyOn(PDF.prototype, 'embedImage');
    try {
      both(pngOf(6, -1));
      expect(library).toHaveBeenCalledTimes(1); // the comparison's own call, not embedSignatureImage's
      library.mockClear();
      const sixteen = PNG.sync.write(new PNG({ width: 5, height: 3, colorType: 6 }), { colorType: 6, bitDepth: 16 });
      // An RGB PNG with a tRNS chunk (a colour that is transparent) before its data.
      const rgb = pngOf(2, 0);
      const chunk = (type: string, data: Buffer) => {
        const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(data.length);
        const crc = Buffer.alloc(4);
        crc.writeUInt32BE(crc32(body));
        return Buffer.concat([length, body, crc]);
      };
      const idat = rgb.indexOf('IDAT') - 4;
      const transparent = Buffer.concat([rgb.subarray(0, idat), chunk('tRNS', Buffer.alloc(6)), rgb.subarray(idat)]);
      for (const png of [sixteen, transparent]) {
        library.mockClear();
        embedSignatureImage(PDF.create(), png);
        expect(library).toHaveBeenCalledTimes(1);
      }
    } finally {
      library.mockRestore();
    }
    // A PNG whose data does not inflate to its rows is not guessed at: @libpdf/core says what it says.
    const broken = Buffer.from(SIGNATURE_PNG);
    const at = broken.indexOf('IDAT');
    broken.fill(0, at + 4, at + 40);
    expect(() => embedSignatureImage(PDF.create(), broken)).toThrow();
  });
});
