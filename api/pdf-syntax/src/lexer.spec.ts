import { PdfLexer, type PdfName, PdfRef, PdfString, sameValue, textOf, valueAt, type PdfDict } from './lexer';

const read = (text: string) => new PdfLexer(Buffer.from(text, 'latin1'), 0).readValue();

describe('values', () => {
  it('reads a dictionary with references, numbers, names, arrays, booleans and null', () => {
    const dict = read('<< /Type /Page /Parent 12 0 R /MediaBox [0 0 612.5 -792] /A#20B true /N null /K [1 2 R] >>');
    expect(dict).toBeInstanceOf(Map);
    const d = dict as PdfDict;
    expect((d.get('Type') as PdfName).name).toBe('Page');
    expect(d.get('Parent')).toEqual(new PdfRef(12, 0));
    expect(d.get('MediaBox')).toEqual([0, 0, 612.5, -792]);
    expect(d.get('A B')).toBe(true);
    expect(d.get('N')).toBeNull();
    // `1 2 R` is a reference; a lone number stays a number.
    expect(d.get('K')).toEqual([new PdfRef(1, 2)]);
  });

  it('reads names with and without #xx escapes, a lone # kept, and numbers of every length exactly', () => {
    const d = read(
      '<< /Plain /A#2FB /Half#4 true /N 123456789012345 /Big 12345678901234567890 /Neg -17 /Real +.5 /R 007 00 R >>',
    ) as PdfDict;
    expect((d.get('Plain') as PdfName).name).toBe('A/B');
    expect(d.has('Half#4')).toBe(true);
    expect(d.get('N')).toBe(123456789012345);
    expect(d.get('Big')).toBe(Number('12345678901234567890'));
    expect([d.get('Neg'), d.get('Real')]).toEqual([-17, 0.5]);
    expect(d.get('R')).toEqual(new PdfRef(7, 0));
    expect(() => read('<< /A 1.2.3 >>')).toThrow(/malformed number/);
  });

  it('undoes the escapes of a literal string and decodes a hex string', () => {
    const literal = read('(a\\(b\\) \\n\\t\\101\\0537 (nested) line\\\r\nend\\q)') as PdfString;
    expect(literal.bytes.toString('latin1')).toBe('a(b) \n\tA+7 (nested) lineendq');
    expect((read('<48 65 6C6C6F2>') as PdfString).bytes.toString('latin1')).toBe('Hello ');
  });

  it('reads text strings: UTF-16BE and UTF-8 after their byte order marks, else PDFDocEncoding as Latin-1', () => {
    expect(textOf(read('<FEFF0041D83DDE00>') as PdfString)).toBe('A😀');
    expect(textOf(new PdfString(Buffer.from([0xef, 0xbb, 0xbf, 0xe0, 0xa4, 0xa8])))).toBe('न');
    expect(textOf(read('(Zo\\353)') as PdfString)).toBe('Zoë');
  });

  it('refuses malformed syntax with a SyntaxProblem and its offset; valueAt answers undefined', () => {
    expect(() => read('<< /A 1')).toThrow(/unterminated dictionary at byte 7/);
    expect(() => read(`${'['.repeat(100)}`)).toThrow(/nested too deeply/);
    expect(valueAt(Buffer.from('<< /A <zz> >>'), 0)).toBeUndefined();
  });

  it('compares values by what they are', () => {
    expect(sameValue(read('<< /A [1 /B (c)] /D 3 0 R >>'), read('<</D 3 0 R/A[1/B<63>]>>'))).toBe(true);
    expect(sameValue(read('<< /A 1 >>'), read('<< /A 2 >>'))).toBe(false);
    expect(sameValue(read('<< /A 1 >>'), read('<< /A 1 /B 2 >>'))).toBe(false);
  });
});
