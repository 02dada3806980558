import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import { readFixture } from '../../../../test/support/fixtures';
import {
  appendCompletionCertificate,
  shrinkPng,
  type CertificateEvent,
  type CertificateParty,
  type CompletionCertificateInput,
} from './completion-certificate';

const ORIGINAL = 'normal.pdf';
const ORIGINAL_SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SIGNED_SHA = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const LAST_HASH = 'c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789';
const astronaut = readFixture('faces', 'astronaut.png');

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 22, 9, 5, 7) + minutes * 60_000);

function signer(order: number, name: string, overrides: Partial<CertificateParty> = {}): CertificateParty {
  return {
    order,
    name,
    email: `signer${order}@example.com`,
    phoneNumber: `+91 98765 4321${order}`,
    role: 'Signer',
    status: 'completed',
    method: 'e-Signature (drawn)',
    invitedAt: at(order),
    openedAt: at(order + 10),
    acceptedAt: at(order + 11),
    signedAt: at(order + 12),
    ip: `203.0.113.${order}`,
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    location: { latitude: 12.9715987, longitude: 77.594566, country: 'India' },
    otpVerifiedAt: at(order + 11),
    face: { checked: true, thumbnail: astronaut },
    liveness: { score: 0.93, threshold: 0.8, passed: true },
    certificate: {
      subject: `CN=${name}, O=Example Org Pvt Ltd, L=Bengaluru, ST=Karnataka, C=IN, E=signer${order}@example.com`,
      issuer: 'CN=Example Signing CA 2026, O=Example Trust Services, C=IN',
      serialNumber: `SERIAL${order}X4F2A9C0D7E1B3A5C`,
    },
    ...overrides,
  };
}

function copyReceiver(order: number, name: string): CertificateParty {
  return {
    ...signer(order, name),
    role: 'Receives a copy',
    status: 'sent',
    method: null,
    openedAt: null,
    acceptedAt: null,
    signedAt: null,
    ip: null,
    userAgent: null,
    location: null,
    otpVerifiedAt: null,
    face: null,
    liveness: null,
    certificate: null,
  };
}

function events(count: number): CertificateEvent[] {
  const types = ['signer.invited', 'signer.opened', 'signer.otp_verified', 'signer.face_checked', 'signer.signed'];
  return Array.from({ length: count }, (_, i) => ({
    at: at(i),
    type: i === 0 ? 'request.created' : i === count - 1 ? 'request.completed' : types[i % types.length],
    actor: i % 3 === 0 ? 'system' : 'First signer (first.signer@example.org)',
    ip: i % 4 === 0 ? null : i % 7 === 0 ? '2001:0db8:85a3:0000:0000:8a2e:0370:7334' : `198.51.100.${i % 250}`,
    detail:
      i % 10 === 5
        ? `Event${i}: the signer opened the document from the invitation e-mail and accepted electronic signing`
        : `Event${i}`,
    hash: i.toString(16).padStart(64, '0'),
  }));
}

function certificateInput(parties: CertificateParty[], eventCount = 150): CompletionCertificateInput {
  return {
    organisation: 'Example Org Pvt Ltd',
    filename: 'Master Services Agreement.pdf',
    refId: 4711,
    totalPages: 2,
    originalSha256: ORIGINAL_SHA,
    signedSha256: SIGNED_SHA,
    submittedAt: at(0),
    completedAt: at(200),
    parties,
    events: events(eventCount),
    chainIntact: true,
    lastHash: LAST_HASH,
  };
}

const threeParties = () => [
  signer(1, 'Asha Verma'),
  signer(2, 'श्रीनिवास राव', { method: 'Aadhaar eSign', face: null, liveness: null, otpVerifiedAt: null }),
  copyReceiver(3, 'Дмитрий Иванов'),
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'completion-certificate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Rendered {
  file: string;
  bytes: Uint8Array;
  added: number;
  /** The text of each appended page, the first certificate page first. */
  pages: string[];
}

let counter = 0;
async function render(input: CompletionCertificateInput): Promise<Rendered> {
  const pdf = await PDF.load(readFixture('pdfs', ORIGINAL));
  const added = appendCompletionCertificate(pdf, input);
  const bytes = await pdf.save({ incremental: true, subsetFonts: true });
  const file = join(dir, `certificate-${++counter}.pdf`);
  writeFileSync(file, bytes);
  const total = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1]);
  expect(total).toBe(2 + added);
  const pages = Array.from({ length: added }, (_, i) =>
    execFileSync('pdftotext', ['-f', String(3 + i), '-l', String(3 + i), file, '-'], { encoding: 'utf8' }),
  );
  return { file, bytes, added, pages };
}

/** qpdf's warnings about a file, without its name; the exit code must be 0 (clean) or 3 (warnings only). */
function qpdfWarnings(file: string): string[] {
  const run = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  expect([0, 3]).toContain(run.status);
  return `${run.stdout}${run.stderr}`
    .split('\n')
    .filter((line) => line.startsWith('WARNING'))
    .map((line) => line.split(file).join('FILE'));
}

/** The index of the one appended page whose text contains `text`. */
function pageOf(pages: string[], text: string): number {
  const found = pages.flatMap((page, i) => (page.includes(text) ? [i] : []));
  expect(found).toHaveLength(1);
  return found[0];
}

describe('appendCompletionCertificate', () => {
  it('appends pages after the untouched original that poppler reads and qpdf accepts', async () => {
    const { file, bytes, added, pages } = await render(certificateInput(threeParties()));
    expect(added).toBeGreaterThanOrEqual(3);

    const original = readFixture('pdfs', ORIGINAL);
    expect(Buffer.from(bytes.subarray(0, original.length)).equals(original)).toBe(true);
    const originalFile = join(dir, ORIGINAL);
    writeFileSync(originalFile, original);
    const before = qpdfWarnings(originalFile);
    for (const warning of qpdfWarnings(file)) expect(before).toContain(warning);

    const text = pages.join('\n');
    for (const expected of [
      'Certificate of Completion',
      'Example Org Pvt Ltd',
      'Master Services Agreement.pdf',
      ORIGINAL_SHA,
      SIGNED_SHA,
      'signer1@example.com',
      'signer2@example.com',
      'signer3@example.com',
      'Дмитрий Иванов',
      'Receives a copy',
      'COMPLETED',
      // The submission time (09:05 UTC) as formatDateTime writes it in the default zone, Asia/Kolkata.
      '22 Nov 2026, 2:35 pm IST',
      '12.97160, 77.59457 · India',
      'Passed · score 0.93, threshold 0.80',
      'request.created',
      'request.completed',
      `Audit chain intact: yes · last hash ${LAST_HASH}`,
    ]) {
      expect(text).toContain(expected);
    }
    pages.forEach((page, i) => expect(page).toContain(`Ref ID 4711 · page ${i + 1} of ${added}`));

    // The Devanagari name, which DejaVu Sans cannot draw: one '?' per character as read, not a wrong ToUnicode.
    expect(text).toContain('???? ??');
    expect(text).not.toMatch(/\p{Script=Devanagari}/u);

    // The selfie, scaled down to 128 px, on the first certificate page.
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .map((line) => line.trim().split(/\s+/))
      .filter((columns) => Number(columns[0]) === 3);
    expect(images.map((columns) => [columns[3], columns[4]])).toEqual([['128', '128']]);
  });

  it('lists every event once, repeating the table header on each page of the audit trail', async () => {
    const { pages } = await render(certificateInput(threeParties()));
    const text = pages.join('\n');
    for (let i = 0; i < 150; i++) expect(text.match(new RegExp(`\\bEvent${i}\\b`, 'g'))).toHaveLength(1);
    const first = pageOf(pages, 'Event0');
    const last = pageOf(pages, 'Event149');
    expect(last).toBeGreaterThan(first);
    for (let i = first; i <= last; i++) expect(pages[i]).toMatch(/Time\s+Event\s+Actor\s+IP address\s+Details/);
  });

  it('renders the same input to the same pages', async () => {
    const input = certificateInput(threeParties());
    const [a, b] = [await render(input), await render(input)];
    expect(b.added).toBe(a.added);
    expect(b.pages).toEqual(a.pages);
  });

  it('never splits a party block across pages', async () => {
    const names = ['Asha Verma', 'Αλέξανδρος Παπαδόπουλος', 'Zoë Ångström', 'Ravi Kumar', 'Meera Iyer', 'John Smith'];
    const parties = names.map((name, i) => signer(i + 1, name));
    const { pages } = await render(certificateInput(parties, 10));
    const pageOfParty = parties.map((party) => {
      const page = pageOf(pages, party.name);
      expect(pageOf(pages, party.email)).toBe(page);
      expect(pageOf(pages, party.certificate!.serialNumber)).toBe(page);
      expect(pages[page]).toContain('Certificate');
      return page;
    });
    // Six blocks do not fit on one page: the test is only meaningful if at least one block moved to a new page.
    expect(new Set(pageOfParty).size).toBeGreaterThan(1);
  });

  it('reports a broken audit chain and a selfie it cannot embed without failing', async () => {
    const input = certificateInput([
      signer(1, 'Asha Verma', { face: { checked: true, thumbnail: Buffer.from('GIF89a') } }),
    ]);
    const { pages } = await render({ ...input, chainIntact: false });
    const text = pages.join('\n');
    expect(text).toContain('Captured (image unreadable)');
    expect(text).toContain('Audit chain intact: no');
  });
});

describe("the certificate's times", () => {
  it("are written as formatDateTime writes them, in the organisation's time zone with its label", async () => {
    const parties = [signer(1, 'Asha Verma')];
    const india = (await render(certificateInput(parties, 3))).pages.join('\n');
    // Sent 09:05 UTC, completed 200 minutes later; Asha invited at 09:06 and signed at 09:18 UTC.
    const times = (zone: string, sent: string, completed: string, invited: string, signed: string) => [
      new RegExp(`Sent\\s+22 Nov 2026, ${sent} ${zone}`),
      new RegExp(`Completed\\s+22 Nov 2026, ${completed} ${zone}`),
      new RegExp(`Invited\\s+22 Nov 2026, ${invited} ${zone}`),
      new RegExp(`Signed\\s+22 Nov 2026, ${signed} ${zone}`),
    ];
    for (const expected of times('IST', '2:35 pm', '5:55 pm', '2:36 pm', '2:48 pm')) expect(india).toMatch(expected);
    // No other way of writing a time: not the 24-hour clock with seconds the certificate used to have.
    expect(india).not.toMatch(/\d{2}:\d{2}:\d{2}/);

    const london = (await render({ ...certificateInput(parties, 3), timeZone: 'Europe/London' })).pages.join('\n');
    for (const expected of times('GMT', '9:05 am', '12:25 pm', '9:06 am', '9:18 am')) expect(london).toMatch(expected);
    expect(london).not.toContain('IST');
  });
});

describe('shrinkPng', () => {
  const size = (png: Uint8Array) => {
    const bytes = Buffer.from(png);
    return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  };

  it('scales a photo down to the longer side asked for, keeping its aspect ratio', async () => {
    expect(size(shrinkPng(astronaut, 128))).toEqual([128, 128]);
    const coffee = readFixture('faces', 'coffee.png');
    expect(size(coffee)).toEqual([600, 400]);
    const small = shrinkPng(coffee, 128);
    expect(size(small)).toEqual([128, 85]);
    const pdf = PDF.create();
    expect(pdf.embedPng(small)).toMatchObject({ width: 128, height: 85 });
  });

  it('leaves small images and anything it cannot read as they are', () => {
    expect(shrinkPng(astronaut, 1024)).toBe(astronaut);
    const notPng = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    expect(shrinkPng(notPng, 128)).toBe(notPng);
  });
});
