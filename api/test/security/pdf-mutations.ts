import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as zlibConstants, deflateRawSync, deflateSync } from 'node:zlib';
import { PDF, PdfArray, PdfDict, PdfName, PdfString } from '@libpdf/core';
import { readFixture } from '../support/fixtures';

/**
 * A deterministic corpus of hostile and damaged PDFs for the upload fuzzing suite (uploads.test.ts). Everything is
 * derived from the shared fixtures and a seeded PRNG (mulberry32): the same names and the same bytes on every run, so
 * a failure names an input that can be rebuilt. Each mutation carries a `kind` (for the summary) and a `name` saying
 * what it is.
 */
export interface Mutation {
  kind: string;
  name: string;
  bytes: Buffer;
  /** What the upload says the file is called (a few polyglots are sent under another name). */
  filename?: string;
}

/** mulberry32: a tiny seeded PRNG; the same seed gives the same sequence on every run and platform. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const latin1 = (b: Buffer) => b.toString('latin1');
const bytesOf = (s: string) => Buffer.from(s, 'latin1');

/**
 * A PDF written by hand from object bodies (object i+1 is bodies[i]; null leaves a number unused), with a correct
 * classic cross-reference table unless told otherwise. `trailer` is the trailer dictionary's inside.
 */
export function writePdf(
  bodies: Array<string | Buffer | null>,
  trailer: string,
  header = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n',
): Buffer {
  const parts: Buffer[] = [bytesOf(header)];
  let length = parts[0].length;
  const offsets: Array<number | null> = [];
  bodies.forEach((body, i) => {
    if (body === null) {
      offsets.push(null);
      return;
    }
    offsets.push(length);
    const chunk = Buffer.concat([
      bytesOf(`${i + 1} 0 obj\n`),
      typeof body === 'string' ? bytesOf(body) : body,
      bytesOf('\nendobj\n'),
    ]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${bodies.length + 1}\n`, '0000000000 65535 f \n'];
  for (const offset of offsets)
    xref.push(offset === null ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`);
  xref.push(`trailer\n<< ${trailer} >>\nstartxref\n${length}\n%%EOF\n`);
  parts.push(bytesOf(xref.join('')));
  return Buffer.concat(parts);
}

const stream = (dict: string, data: Buffer) =>
  Buffer.concat([bytesOf(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, bytesOf('\nendstream')]);

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>';
const CONTENT = stream('', bytesOf('BT /F1 12 Tf 72 720 Td (hello) Tj ET'));

/** A minimal valid one-page PDF: 1 catalog, 2 pages, 3 page, 4 content. */
const minimal = (catalogExtra = '', trailerExtra = '') =>
  writePdf(
    [`<< /Type /Catalog /Pages 2 0 R ${catalogExtra} >>`, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, CONTENT],
    `/Size 5 /Root 1 0 R ${trailerExtra}`,
  );

/** zlib data that inflates to `total` zero bytes (a multiple of 1 MiB) while staying about total/1000 bytes long. */
export function zeroBomb(total: number): Buffer {
  const mib = 1 << 20;
  // Zeros compress to the same blocks wherever they start (every back-reference reads zeros), so sync-flushed
  // segments of one MiB can be repeated, then one empty final block.
  const segment = deflateRawSync(Buffer.alloc(mib), { finishFlush: zlibConstants.Z_SYNC_FLUSH, level: 9 });
  const count = Math.ceil(total / mib);
  const out = Buffer.alloc(2 + segment.length * count + 16);
  out[0] = 0x78;
  out[1] = 0xda;
  let p = 2;
  for (let i = 0; i < count; i++) p += segment.copy(out, p);
  const tail = deflateRawSync(Buffer.alloc(0));
  p += tail.copy(out, p);
  // Adler-32 of n zeros: a = 1, b = n mod 65521.
  out.writeUInt32BE(((((count * mib) % 65521) << 16) | 1) >>> 0, p);
  return out.subarray(0, p + 4);
}

function fixture(name: string): Buffer {
  return readFixture('pdfs', name);
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations of existing files

/** Where the last cross-reference section starts: the `xref` keyword, or the object holding /Type /XRef. */
function lastXref(text: string): number {
  const table = text.search(/[\r\n]xref[\r\n ](?![\s\S]*[\r\n]xref[\r\n ])/);
  if (table >= 0) return table + 1;
  const stream =
    text.lastIndexOf('/Type /XRef') >= 0 ? text.lastIndexOf('/Type /XRef') : text.lastIndexOf('/Type/XRef');
  return stream >= 0 ? Math.max(9, text.lastIndexOf(' obj', stream) - 4) : text.lastIndexOf('startxref') - 1;
}

function truncations(base: string, bytes: Buffer): Mutation[] {
  const text = latin1(bytes);
  const firstEol = text.search(/[\r\n]/);
  const objs = [...text.matchAll(/\d+ \d+ obj/g)].map((m) => m.index as number);
  const midObject = objs.length > 2 ? objs[Math.floor(objs.length / 2)] + 20 : Math.floor(bytes.length / 2);
  const points: Array<[string, number]> = [
    ['header only', firstEol > 0 ? firstEol + 1 : 9],
    ['first 5 bytes', 5],
    ['mid-object', midObject],
    ['at half', Math.floor(bytes.length / 2)],
    ['before xref', Math.max(9, lastXref(text))],
    ['before startxref', Math.max(9, text.lastIndexOf('startxref'))],
    ['before %%EOF', Math.max(9, text.lastIndexOf('%%EOF'))],
    ['last byte missing', bytes.length - 1],
  ];
  const seen = new Set<number>();
  const out: Mutation[] = [];
  for (const [what, at] of points) {
    if (seen.has(at) || at <= 0 || at >= bytes.length) continue;
    seen.add(at);
    out.push({
      kind: 'truncated',
      name: `${base} truncated ${what} (${at} of ${bytes.length} bytes)`,
      bytes: bytes.subarray(0, at),
    });
  }
  return out;
}

function flips(base: string, bytes: Buffer, seed: number): Mutation[] {
  const out: Mutation[] = [];
  for (const density of [1, 10, 100, 1000]) {
    for (let round = 0; round < 3; round++) {
      const random = prng(seed * 1000 + density * 10 + round);
      const copy = Buffer.from(bytes);
      const count = Math.max(1, Math.round((copy.length * density) / 100_000));
      for (let i = 0; i < count; i++) {
        // Keep %PDF- so the structure readers, not the header check, meet the damage.
        const at = 5 + Math.floor(random() * (copy.length - 5));
        copy[at] ^= 1 + Math.floor(random() * 255);
      }
      out.push({
        kind: 'bit flips',
        name: `${base} with ${count} byte(s) flipped (${density}/100k, round ${round})`,
        bytes: copy,
      });
    }
  }
  return out;
}

/** Rewrites every classic cross-reference entry's offset (10 digits, 5 digits, n). */
function mapXrefEntries(bytes: Buffer, map: (offset: number, i: number) => string): Buffer {
  let i = 0;
  return bytesOf(
    latin1(bytes).replace(/(\d{10}) (\d{5}) n/g, (_m, off: string, gen: string) => `${map(Number(off), i++)} ${gen} n`),
  );
}

function xrefDamage(base: string, bytes: Buffer): Mutation[] {
  const text = latin1(bytes);
  const random = prng(0x5eed + bytes.length);
  const startxref = text.lastIndexOf('startxref');
  const withStartxref = (value: string) =>
    bytesOf(text.slice(0, startxref) + text.slice(startxref).replace(/startxref\s+\d+/, `startxref\n${value}`));
  const xrefAt = text.lastIndexOf('\nxref') + 1;
  const out: Mutation[] = [
    {
      kind: 'xref',
      name: `${base} xref offsets shifted +37`,
      bytes: mapXrefEntries(bytes, (o) => String(o + 37).padStart(10, '0')),
    },
    {
      kind: 'xref',
      name: `${base} xref offsets shifted -3`,
      bytes: mapXrefEntries(bytes, (o) => String(Math.max(0, o - 3)).padStart(10, '0')),
    },
    {
      kind: 'xref',
      name: `${base} xref offsets garbage`,
      bytes: mapXrefEntries(bytes, () => String(Math.floor(random() * 1e10)).padStart(10, '0')),
    },
    { kind: 'xref', name: `${base} xref offsets all zero`, bytes: mapXrefEntries(bytes, () => '0000000000') },
    {
      kind: 'xref',
      name: `${base} xref offsets past the end`,
      bytes: mapXrefEntries(bytes, (o) => String(o + 9e9).slice(0, 10)),
    },
    { kind: 'xref', name: `${base} xref entries letters`, bytes: mapXrefEntries(bytes, () => 'ABCDEFGHIJ') },
    { kind: 'startxref', name: `${base} startxref 0`, bytes: withStartxref('0') },
    { kind: 'startxref', name: `${base} startxref past the end`, bytes: withStartxref(String(bytes.length + 1000)) },
    { kind: 'startxref', name: `${base} startxref 2^64`, bytes: withStartxref('18446744073709551616') },
    { kind: 'startxref', name: `${base} startxref negative`, bytes: withStartxref('-5') },
    {
      kind: 'startxref',
      name: `${base} startxref into the middle`,
      bytes: withStartxref(String(Math.floor(bytes.length / 2))),
    },
    { kind: 'startxref', name: `${base} startxref missing`, bytes: bytesOf(text.slice(0, startxref) + '%%EOF\n') },
  ];
  if (xrefAt > 0) {
    const trailerAt = text.indexOf('trailer', xrefAt);
    out.push(
      {
        kind: 'xref',
        name: `${base} xref table missing (trailer kept)`,
        bytes: bytesOf(text.slice(0, xrefAt) + text.slice(trailerAt)),
      },
      {
        kind: 'xref',
        name: `${base} xref subsection count 999999999`,
        bytes: bytesOf(text.slice(0, xrefAt) + text.slice(xrefAt).replace(/xref\s+0 \d+/, 'xref\n0 999999999')),
      },
    );
  }
  const trailer = (replace: (dict: string) => string, what: string): Mutation => {
    const at = text.lastIndexOf('trailer');
    return {
      kind: 'trailer',
      name: `${base} trailer ${what}`,
      bytes: bytesOf(text.slice(0, at) + replace(text.slice(at))),
    };
  };
  out.push(
    trailer((t) => t.replace(/\/Size \d+/, '/Size 1'), '/Size 1'),
    trailer((t) => t.replace(/\/Size \d+/, '/Size 2147483648'), '/Size 2^31'),
    trailer((t) => t.replace(/\/Size \d+/, '/Size -7'), '/Size negative'),
    trailer((t) => t.replace(/\/Root \d+ \d+ R/, '/Root 9999 0 R'), '/Root to a missing object'),
    trailer((t) => t.replace(/\/Root \d+ \d+ R/, '/Root 3 0 R'), '/Root to another object'),
    trailer((t) => t.replace(/\/Root \d+ \d+ R/, '/Root (catalog)'), '/Root a string'),
    trailer((t) => t.replace(/\/Root \d+ \d+ R/, ''), 'without /Root'),
    trailer((t) => t.replace(/\/Prev \d+/, '').replace(/>>\s*startxref/, '/Prev 1 >>\nstartxref'), '/Prev 1'),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Structures written by hand

function hugePages(): Mutation[] {
  const kids = (n: number) => Array.from({ length: n }, () => '3 0 R').join(' ');
  const pages = (body: string) =>
    writePdf(['<< /Type /Catalog /Pages 2 0 R >>', body, PAGE, CONTENT], '/Size 5 /Root 1 0 R');
  return [
    {
      kind: 'huge page count',
      name: '/Count 100000000 with one kid',
      bytes: pages('<< /Type /Pages /Kids [3 0 R] /Count 100000000 >>'),
    },
    { kind: 'huge page count', name: '/Count -1', bytes: pages('<< /Type /Pages /Kids [3 0 R] /Count -1 >>') },
    { kind: 'huge page count', name: '/Count 1e308', bytes: pages('<< /Type /Pages /Kids [3 0 R] /Count 1e308 >>') },
    {
      kind: 'huge page count',
      name: 'Kids lists the same page 5000 times',
      bytes: pages(`<< /Type /Pages /Kids [${kids(5000)}] /Count 5000 >>`),
    },
    {
      kind: 'huge page count',
      name: 'Kids lists the same page 100000 times',
      bytes: pages(`<< /Type /Pages /Kids [${kids(100_000)}] /Count 100000 >>`),
    },
    {
      kind: 'huge page count',
      name: '50000 distinct pages (as many as fit under the size limit)',
      bytes: (() => {
        const n = 50_000;
        const leaves = Array.from({ length: n }, () => '<< /Type /Page /Parent 2 0 R >>');
        const refs = Array.from({ length: n }, (_, i) => `${i + 4} 0 R`).join(' ');
        return writePdf(
          [
            '<< /Type /Catalog /Pages 2 0 R >>',
            `<< /Type /Pages /Kids [${refs}] /Count ${n} /MediaBox [0 0 612 792] >>`,
            CONTENT,
            ...leaves,
          ],
          `/Size ${n + 4} /Root 1 0 R`,
        );
      })(),
    },
    {
      kind: 'huge page count',
      name: '1000 Pages nodes each listing the page 1000 times (a million pages)',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          `<< /Type /Pages /Kids [${Array.from({ length: 1000 }, () => '5 0 R').join(' ')}] /Count 1000000 >>`,
          PAGE.replace('/Parent 2 0 R', '/Parent 5 0 R'),
          CONTENT,
          `<< /Type /Pages /Parent 2 0 R /Kids [${kids(1000)}] /Count 1000 >>`,
        ],
        '/Size 6 /Root 1 0 R',
      ),
    },
  ];
}

function loops(): Mutation[] {
  const nest = (open: string, close: string, n: number, inner = '0') => `${open.repeat(n)}${inner}${close.repeat(n)}`;
  const deepDict = (n: number) => `${'<< /A '.repeat(n)}1${' >>'.repeat(n)}`;
  return [
    {
      kind: 'loop',
      name: 'Pages node whose Kids contain itself',
      bytes: writePdf(
        ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>', PAGE, CONTENT],
        '/Size 5 /Root 1 0 R',
      ),
    },
    {
      kind: 'loop',
      name: 'two Pages nodes listing each other',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
          PAGE,
          CONTENT,
          '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 1 >>',
        ],
        '/Size 6 /Root 1 0 R',
      ),
    },
    {
      kind: 'loop',
      name: '/Parent cycle above the page (no MediaBox on the page)',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Parent 5 0 R /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>',
          CONTENT,
          '<< /Type /Pages /Parent 2 0 R /Kids [] /Count 0 >>',
        ],
        '/Size 6 /Root 1 0 R',
      ),
    },
    {
      kind: 'loop',
      name: 'page is its own /Parent',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>',
          CONTENT,
        ],
        '/Size 5 /Root 1 0 R',
      ),
    },
    {
      kind: 'loop',
      name: 'indirect reference chain that loops (MediaBox 5 → 6 → 5)',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 2 0 R /MediaBox 5 0 R /Rotate 6 0 R /Contents 4 0 R >>',
          CONTENT,
          '6 0 R',
          '5 0 R',
        ],
        '/Size 7 /Root 1 0 R',
      ),
    },
    {
      kind: 'loop',
      name: '/Pages refers to itself through the catalog',
      bytes: writePdf(
        ['<< /Type /Catalog /Pages 1 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, CONTENT],
        '/Size 5 /Root 1 0 R',
      ),
    },
    {
      kind: 'deep nesting',
      name: 'array nested 100000 levels in the page',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          PAGE.replace('>>', '/Deep 5 0 R >>'),
          CONTENT,
          nest('[', ']', 100_000),
        ],
        '/Size 6 /Root 1 0 R',
      ),
    },
    {
      kind: 'deep nesting',
      name: 'dictionary nested 100000 levels in the page',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          PAGE.replace('>>', '/Deep 5 0 R >>'),
          CONTENT,
          deepDict(100_000),
        ],
        '/Size 6 /Root 1 0 R',
      ),
    },
    {
      kind: 'deep nesting',
      name: 'array nested 100000 levels in the trailer',
      bytes: minimal('', `/Deep ${nest('[', ']', 100_000)}`),
    },
    {
      kind: 'deep nesting',
      name: 'dictionary nested 100000 levels in the catalog',
      bytes: minimal(`/Deep ${deepDict(100_000)}`),
    },
    {
      kind: 'deep nesting',
      name: 'unclosed array of 1000000 brackets',
      bytes: minimal(`/Deep ${'['.repeat(1_000_000)}`),
    },
    {
      kind: 'deep nesting',
      name: 'string with 100000 nested parentheses',
      bytes: minimal(`/Deep ${nest('(', ')', 100_000, 'x')}`),
    },
  ];
}

/**
 * @libpdf/core dates a new document and its attachments now, and gives a file without one a random /ID, unless told: a
 * fixed date and identifier keep the bytes the same on every run.
 */
const FIXED_DATE = new Date('2026-01-01T00:00:00Z');

async function activeContent(): Promise<Mutation[]> {
  const js = (s: string) => `<< /S /JavaScript /JS (${s}) >>`;
  const out: Mutation[] = [
    { kind: 'javascript', name: '/OpenAction /JS app.alert', bytes: minimal(`/OpenAction ${js('app.alert\\(1\\)')}`) },
    {
      kind: 'javascript',
      name: '/AA on the page and the catalog',
      bytes: writePdf(
        [
          `<< /Type /Catalog /Pages 2 0 R /AA << /WC ${js('this.submitForm\\("http://x"\\)')} >> >>`,
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /AA << /O ${js('app.launchURL\\("http://x"\\)')} >> >>`,
          CONTENT,
        ],
        '/Size 5 /Root 1 0 R',
      ),
    },
    {
      kind: 'javascript',
      name: '/Names /JavaScript tree and a /Launch action',
      bytes: minimal(
        `/Names << /JavaScript << /Names [(a) ${js('1')}] >> >> /OpenAction << /S /Launch /F (cmd.exe) >>`,
      ),
    },
  ];
  // Built with @libpdf/core: a real document with an attachment, and with JavaScript in its catalog.
  const doc = PDF.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  const id = PdfString.fromBytes(Buffer.alloc(16, 0x2a));
  doc.context.info.trailer.set('ID', new PdfArray([id, id]));
  doc.addPage({ width: 612, height: 792 }).drawText('attachment inside', { x: 72, y: 700, font: 'Helvetica' });
  doc.addAttachment('payload.exe', Buffer.from('MZ\x90\x00 not really an executable'), {
    mimeType: 'application/octet-stream',
    createdAt: FIXED_DATE,
    modifiedAt: FIXED_DATE,
  });
  doc.addAttachment('page.html', bytesOf('<html><script>alert(1)</script></html>'), {
    mimeType: 'text/html',
    createdAt: FIXED_DATE,
    modifiedAt: FIXED_DATE,
  });
  out.push({
    kind: 'embedded files',
    name: '/EmbeddedFiles with an .exe and an .html (@libpdf/core)',
    bytes: Buffer.from(await doc.save({ useXRefStream: true })),
  });
  doc.getCatalog().set(
    'OpenAction',
    new PdfDict([
      ['S', PdfName.of('JavaScript')],
      ['JS', PdfString.fromString('this.exportDataObject({cName:"payload.exe",nLaunch:2})')],
    ]),
  );
  out.push({
    kind: 'javascript',
    name: 'embedded file launched by /OpenAction JS (@libpdf/core)',
    bytes: Buffer.from(await doc.save()),
  });
  out.push({
    kind: 'embedded files',
    name: '/EmbeddedFiles whose file stream is a Flate bomb (1 GiB of zeros)',
    bytes: writePdf(
      [
        '<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(z.bin) 5 0 R] >> >> >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        PAGE,
        CONTENT,
        '<< /Type /Filespec /F (z.bin) /EF << /F 6 0 R >> >>',
        stream('/Type /EmbeddedFile /Filter /FlateDecode', zeroBomb(1 << 30)),
      ],
      '/Size 7 /Root 1 0 R',
    ),
  });
  return out;
}

function encryptedFiles(): Mutation[] {
  const rc4 =
    '<< /Filter /Standard /V 1 /R 2 /O <' +
    '28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A' +
    '> /U <' +
    'A3B3F2A8A1D1E3C5B7A9D1E3C5B7A9D1E3C5B7A9D1E3C5B7A9D1E3C5B7A9D1E3' +
    '> /P -44 >>';
  const out: Mutation[] = [
    {
      kind: 'encrypted',
      name: 'hand-written /Encrypt dictionary in the trailer',
      bytes: minimal('', `/Encrypt ${rc4} /ID [<01><01>]`),
    },
    {
      kind: 'encrypted',
      name: '/Encrypt as an indirect object',
      bytes: writePdf(
        ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, CONTENT, rc4],
        '/Size 6 /Root 1 0 R /Encrypt 5 0 R /ID [<01><01>]',
      ),
    },
    { kind: 'encrypted', name: '/Encrypt pointing at a missing object', bytes: minimal('', '/Encrypt 77 0 R') },
    {
      kind: 'encrypted',
      name: 'hand-written AES-256 (V 5, R 6) /Encrypt dictionary',
      bytes: minimal(
        '',
        `/Encrypt << /Filter /Standard /V 5 /R 6 /Length 256 /P -1028 /O <${'ab'.repeat(48)}> /U <${'cd'.repeat(48)}> ` +
          `/OE <${'ef'.repeat(32)}> /UE <${'12'.repeat(32)}> /Perms <${'34'.repeat(16)}> ` +
          '/CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF /StdCF >> /ID [<01><01>]',
      ),
    },
    {
      kind: 'encrypted',
      name: '/Encrypt with an unknown handler',
      bytes: minimal('', '/Encrypt << /Filter /Nonsense /V 99 >>'),
    },
    { kind: 'encrypted', name: 'the shared encrypted_new.pdf', bytes: fixture('encrypted_new.pdf') },
  ];
  if (existsSync('/usr/bin/qpdf')) {
    const dir = mkdtempSync(join(tmpdir(), 'esign-encrypt-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), fixture('normal.pdf'));
      for (const [what, args] of [
        ['RC4 40-bit, empty user password', ['', 'owner', '40']],
        ['RC4 128-bit, user password', ['user', 'owner', '128', '--use-aes=n']],
        ['AES-128, empty user password', ['', 'owner', '128', '--use-aes=y']],
      ] as const) {
        const outFile = join(dir, 'out.pdf');
        // Exit code 3: written with warnings (normal.pdf's objects at offset 0).
        // --static-id and --static-aes-iv keep the output the same on every run (AES-256 has random salts qpdf cannot
        // fix, so it is written by hand above instead).
        const run = spawnSync('/usr/bin/qpdf', [
          '--static-id',
          '--static-aes-iv',
          '--allow-weak-crypto',
          '--encrypt',
          ...args,
          '--',
          join(dir, 'in.pdf'),
          outFile,
        ]);
        if (run.status !== 0 && run.status !== 3) throw new Error(`qpdf --encrypt failed: ${String(run.stderr)}`);
        out.push({ kind: 'encrypted', name: `normal.pdf encrypted by qpdf (${what})`, bytes: readFileSync(outFile) });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

function polyglots(): Mutation[] {
  const pdf = fixture('normal.pdf');
  const zip = Buffer.concat([
    Buffer.from('504b0304140000000000000000000000000000000000000000000500000061', 'hex'),
    bytesOf('.txthello'),
    Buffer.from('504b0506000000000000000000000000000000000000', 'hex'),
  ]);
  const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
  const html = bytesOf('<!doctype html><html><body><script>fetch("/v1/whoami")</script></body></html>\n');
  return [
    { kind: 'polyglot', name: 'ZIP then PDF', bytes: Buffer.concat([zip, pdf]) },
    { kind: 'polyglot', name: 'JPEG then PDF', bytes: Buffer.concat([jpeg, pdf]) },
    { kind: 'polyglot', name: 'HTML then PDF', bytes: Buffer.concat([html, pdf]) },
    { kind: 'polyglot', name: 'PDF then a trailing ZIP', bytes: Buffer.concat([pdf, zip]) },
    { kind: 'polyglot', name: 'PDF then a trailing HTML page with script', bytes: Buffer.concat([pdf, html]) },
    { kind: 'polyglot', name: 'HTML file named .pdf', bytes: html, filename: 'invoice.pdf' },
    {
      kind: 'polyglot',
      name: '%PDF- then 64 KiB of random garbage',
      bytes: Buffer.concat([bytesOf('%PDF-'), randomBytes(65_536, 7)]),
    },
    {
      kind: 'polyglot',
      name: '%PDF-1.7 then 5 MiB less one of spaces',
      bytes: Buffer.concat([bytesOf('%PDF-1.7\n'), Buffer.alloc(5_242_880 - 10, 32)]),
    },
    { kind: 'polyglot', name: '%PDF- only', bytes: bytesOf('%PDF-') },
    { kind: 'polyglot', name: '%PDF-1.7 and %%EOF only', bytes: bytesOf('%PDF-1.7\n%%EOF\n') },
    { kind: 'polyglot', name: 'an empty file', bytes: Buffer.alloc(0) },
    {
      kind: 'polyglot',
      name: 'PDF with a 1 MiB NUL prefix after the header comment',
      bytes: Buffer.concat([bytesOf('%PDF-1.4\n%'), Buffer.alloc(1 << 20), pdf.subarray(9)]),
    },
  ];
}

function randomBytes(n: number, seed: number): Buffer {
  const random = prng(seed);
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(random() * 256);
  return out;
}

/**
 * An object stream (objects 1..3: catalog, pages, page) and a cross-reference stream, written by hand, with the
 * object stream's header and the xref stream's entries under the caller's control.
 */
function objectStreamPdf(o: {
  header?: (offsets: number[]) => string;
  n?: number;
  first?: (first: number) => number;
  entry?: (num: number, index: number) => [number, number, number];
  bomb?: boolean;
}): Buffer {
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
  ];
  const offsets: number[] = [];
  let body = '';
  for (const b of bodies) {
    offsets.push(body.length);
    body += `${b}\n`;
  }
  const header = o.header ? o.header(offsets) : offsets.map((off, i) => `${i + 1} ${off}`).join(' ');
  const first = o.first ? o.first(header.length + 1) : header.length + 1;
  const data = deflateSync(bytesOf(`${header}\n${body}`));
  const objstm = o.bomb
    ? stream(`/Type /ObjStm /N ${o.n ?? 3} /First ${first} /Filter /FlateDecode`, zeroBomb(1 << 30))
    : stream(`/Type /ObjStm /N ${o.n ?? 3} /First ${first} /Filter /FlateDecode`, data);
  const head = bytesOf('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const obj4 = Buffer.concat([bytesOf('4 0 obj\n'), objstm, bytesOf('\nendobj\n')]);
  const xrefAt = head.length + obj4.length;
  const rows: Array<[number, number, number]> = [
    [0, 0, 0xffff],
    ...[1, 2, 3].map((num, i): [number, number, number] => (o.entry ? o.entry(num, i) : [2, 4, i])),
    [1, head.length, 0],
    [0, 0, 0],
    [1, xrefAt, 0],
  ];
  const raw = Buffer.alloc(rows.length * 7);
  rows.forEach(([t, f2, f3], i) => {
    raw[i * 7] = t;
    raw.writeUInt32BE(f2 >>> 0, i * 7 + 1);
    raw.writeUInt16BE(f3 & 0xffff, i * 7 + 5);
  });
  const xref = Buffer.concat([
    bytesOf('6 0 obj\n'),
    stream('/Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode', deflateSync(raw)),
    bytesOf(`\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`),
  ]);
  return Buffer.concat([head, obj4, xref]);
}

function objectStreams(): Mutation[] {
  const os = (name: string, o: Parameters<typeof objectStreamPdf>[0]): Mutation => ({
    kind: 'object streams',
    name,
    bytes: objectStreamPdf(o),
  });
  return [
    os('object stream, intact (control)', {}),
    os('object stream offsets past the data', {
      header: (offs) => offs.map((off, i) => `${i + 1} ${off + 100_000}`).join(' '),
    }),
    os('object stream offsets negative', { header: (offs) => offs.map((_off, i) => `${i + 1} -${i + 5}`).join(' ') }),
    os('object stream offsets not numbers', { header: () => '1 a 2 b 3 c' }),
    os('object stream offsets reversed', {
      header: (offs) => offs.map((_off, i) => `${i + 1} ${offs[offs.length - 1 - i]}`).join(' '),
    }),
    os('object stream /N 1000000', { n: 1_000_000 }),
    os('object stream /N -1', { n: -1 }),
    os('object stream /First past the data', { first: () => 99_999 }),
    os('object stream /First 0', { first: () => 0 }),
    os('xref stream indexes past /N', { entry: (_num, i) => [2, 4, i + 50] }),
    os('xref stream names a missing object stream', { entry: (_num, i) => [2, 99, i] }),
    os('xref stream names the catalog as the object stream', { entry: (_num, i) => [2, 1, i] }),
    os('object stream whose data is a Flate bomb (1 GiB of zeros)', { bomb: true }),
  ];
}

function bombs(): Mutation[] {
  const bomb = zeroBomb(1 << 30);
  return [
    {
      kind: 'flate bomb',
      name: 'page content stream inflating to 1 GiB of zeros',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          PAGE,
          stream('/Filter /FlateDecode', bomb),
        ],
        '/Size 5 /Root 1 0 R',
      ),
    },
    {
      kind: 'flate bomb',
      name: 'cross-reference stream inflating to 1 GiB of zeros',
      bytes: (() => {
        const head = writePdf(
          ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, CONTENT],
          '/Size 5 /Root 1 0 R',
        );
        const body = head.subarray(0, latin1(head).lastIndexOf('xref'));
        return Buffer.concat([
          body,
          bytesOf('5 0 obj\n'),
          stream('/Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode', bomb),
          bytesOf(`\nendobj\nstartxref\n${body.length}\n%%EOF\n`),
        ]);
      })(),
    },
    {
      kind: 'flate bomb',
      name: 'metadata stream inflating to 1 GiB of zeros, referenced from the catalog',
      bytes: writePdf(
        [
          '<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          PAGE,
          CONTENT,
          stream('/Type /Metadata /Subtype /XML /Filter /FlateDecode', bomb),
        ],
        '/Size 6 /Root 1 0 R',
      ),
    },
  ];
}

function incrementalUpdates(): Mutation[] {
  const base = fixture('normal.pdf');
  const text = latin1(base);
  const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))?.[1]);
  const size = Number(/\/Size (\d+)/.exec(text.slice(text.lastIndexOf('trailer')))?.[1]);
  const rootNum = Number(/\/Root (\d+) \d+ R/.exec(text.slice(text.lastIndexOf('trailer')))?.[1]);
  const catalogAt = text.indexOf(`\n${rootNum} 0 obj`);
  const catalog = text.slice(text.indexOf('<<', catalogAt), text.indexOf('endobj', catalogAt)).trim();
  const update = (objects: Array<[number, string]>, trailer: (at: number) => string) => {
    let body = '\n';
    const offsets: Array<[number, number]> = [];
    for (const [num, obj] of objects) {
      offsets.push([num, base.length + body.length]);
      body += `${num} 0 obj\n${obj}\nendobj\n`;
    }
    const xrefAt = base.length + body.length;
    let xref = 'xref\n';
    for (const [num, off] of offsets) xref += `${num} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
    return Buffer.concat([
      base,
      bytesOf(`${body}${xref}trailer\n<< ${trailer(xrefAt)} >>\nstartxref\n${xrefAt}\n%%EOF\n`),
    ]);
  };
  const n = size;
  return [
    {
      kind: 'incremental update',
      name: 'update redefines the catalog with a new one-page tree',
      bytes: update(
        [
          [rootNum, `<< /Type /Catalog /Pages ${n} 0 R >>`],
          [n, `<< /Type /Pages /Kids [${n + 1} 0 R] /Count 1 >>`],
          [n + 1, `<< /Type /Page /Parent ${n} 0 R /MediaBox [0 0 200 200] >>`],
        ],
        () => `/Size ${n + 2} /Root ${rootNum} 0 R /Prev ${prev}`,
      ),
    },
    {
      kind: 'incremental update',
      name: 'update redefines the catalog to a missing page tree',
      bytes: update(
        [[rootNum, '<< /Type /Catalog /Pages 9999 0 R >>']],
        () => `/Size ${n} /Root ${rootNum} 0 R /Prev ${prev}`,
      ),
    },
    {
      kind: 'incremental update',
      name: 'update points /Root at a new catalog that is not a dictionary',
      bytes: update([[n, '[1 2 3]']], () => `/Size ${n + 1} /Root ${n} 0 R /Prev ${prev}`),
    },
    {
      kind: 'incremental update',
      name: 'update whose /Prev points at itself',
      bytes: update(
        [[rootNum, `<< /Type /Catalog /Pages 9999 0 R >>`]],
        (at) => `/Size ${n} /Root ${rootNum} 0 R /Prev ${at}`,
      ),
    },
    {
      kind: 'incremental update',
      name: 'update whose /Prev points past the end',
      bytes: update(
        [[rootNum, `<< /Type /Catalog /Pages 9999 0 R >>`]],
        () => `/Size ${n} /Root ${rootNum} 0 R /Prev 99999999`,
      ),
    },
    {
      kind: 'incremental update',
      name: 'update redefines the catalog with /OpenAction JavaScript',
      bytes: update(
        [
          [rootNum, catalog.replace(/^<</, `<< /OpenAction ${n} 0 R`)],
          [n, '<< /S /JavaScript /JS (app.alert\\(1\\)) >>'],
        ],
        () => `/Size ${n + 1} /Root ${rootNum} 0 R /Prev ${prev}`,
      ),
    },
  ];
}

/** The whole corpus, in a fixed order. */
export async function mutatedPdfs(): Promise<Mutation[]> {
  const bases: Array<[string, number]> = [
    ['normal.pdf', 1],
    ['american_flag.pdf', 2],
    ['doc_2_3_pages.pdf', 3],
    ['with_update_sections.pdf', 4],
    ['us_constitution.pdf', 5],
    ['with_cropbox.pdf', 6],
  ];
  const out: Mutation[] = [];
  for (const [name, seed] of bases) {
    const bytes = fixture(name);
    out.push(...truncations(name, bytes));
    if (seed <= 5) out.push(...flips(name, bytes, seed));
  }
  for (const name of ['normal.pdf', 'american_flag.pdf', 'with_update_sections.pdf', 'us_constitution.pdf'])
    out.push(...xrefDamage(name, fixture(name)));
  out.push(
    ...truncations('linearized_with_object_streams.pdf', fixture('linearized_with_object_streams.pdf')).slice(0, 3),
  );
  out.push(
    ...hugePages(),
    ...loops(),
    ...(await activeContent()),
    ...encryptedFiles(),
    ...polyglots(),
    ...objectStreams(),
    ...bombs(),
    ...incrementalUpdates(),
  );
  const names = new Set<string>();
  for (const m of out) {
    if (names.has(m.name)) throw new Error(`two mutations are named ${m.name}`);
    names.add(m.name);
  }
  return out;
}
