import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readCrossReference } from './xref';

function fixture(name: string): Buffer {
  const dirs = [process.env.SHARED_DIR, resolve(__dirname, '..', '..', '..', '..', 'shared')].filter(Boolean);
  const dir = dirs.find((d) => existsSync(join(d as string, 'fixtures')));
  if (!dir) throw new Error(`the shared fixtures were not found (looked in ${dirs.join(', ')})`);
  return readFileSync(join(dir, 'fixtures', 'pdfs', name));
}

describe('readCrossReference: startxref', () => {
  it('reads the chain from the last startxref, whitespace after %%EOF allowed', () => {
    const bytes = Buffer.concat([fixture('with_update_sections.pdf'), Buffer.from('\n'.repeat(4000))]);
    const xref = readCrossReference(bytes);
    expect(xref.problems).toEqual([]);
    expect(xref.trailers.length).toBeGreaterThan(1);
  });

  it("does not read an earlier revision's startxref when the last one is gone, as pdf.js and qpdf do not", () => {
    const bytes = fixture('with_update_sections.pdf');
    const last = bytes.lastIndexOf('startxref');
    const cut = Buffer.concat([bytes.subarray(0, last), Buffer.from('%%EOF\n')]);
    const earlier = cut.lastIndexOf('startxref');
    expect(earlier).toBeGreaterThan(0);
    expect(readCrossReference(cut).problems).toEqual([
      `no startxref at the end of the file (the last one is at byte ${earlier})`,
    ]);
  });
});
