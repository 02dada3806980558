import { readFixture } from '@esign/test-support';
import { readCrossReference } from './xref';

const fixture = (name: string) => readFixture('pdfs', name);

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
