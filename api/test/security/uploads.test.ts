import { Limits, Messages, RequestMessages } from '@esign/contract';
import { createHash } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { basename, join } from 'node:path';
import { PartyEntity } from '../../src/modules/requests/party.entity';
import { RequestEntity } from '../../src/modules/requests/request.entity';
import { TemplateEntity } from '../../src/modules/templates/template.entity';
import { readFixture } from '../support/fixtures';
import { filesUnder, upload } from '../support/requests';
import { fixtureJpeg, makePng, sendForSigning, SIGNATURE_PNG } from '../support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from '../support/test-app';
import { mutatedPdfs, prng, type Mutation } from './pdf-mutations';

/**
 * Uploads fuzzing (issue 11): every mutated PDF of pdf-mutations.ts through POST /v1/upload, the multipart edge cases,
 * and mutated signature images through /v1/esignature. The product must answer 200 or a 4xx with its error body, never
 * a 500, a hang or unbounded memory, and store nothing half-way.
 */

/** One upload may take this long (the slowest real one, a 4 MB linearized file, takes about 2 s on 2 cores). */
const PER_UPLOAD_MS = 15_000;
/**
 * RSS may grow this much over the whole corpus. The app runs in this process; @libpdf/core holds a parsed 4 MB file
 * (every object parsed by the strict load) in tens of MB while it reads it, V8 keeps freed heap for a while, and Jest's
 * module registry grows as the app loads lazily, so ~100 MB of growth is normal. A Flate bomb decoded in full (1 GiB) or a leak of each parsed document
 * (264 × 10–100 MB) would exceed it by far.
 */
const MAX_RSS_GROWTH = 300 * 1024 * 1024;
const MB = 1024 * 1024;

const isErrorBody = (body: unknown): boolean => {
  const b = body as { code?: unknown; error?: unknown; message?: unknown } | null;
  return (
    !!b &&
    typeof b.code === 'number' &&
    b.code >= 400 &&
    b.code < 500 &&
    typeof b.error === 'string' &&
    typeof b.message === 'string' &&
    b.message.length > 0
  );
};

interface Outcome {
  name: string;
  status: number;
  error?: string;
  ms: number;
  problem?: string;
}

function summarise(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = o.status === 200 ? '200 accepted' : `${o.status} ${o.error ?? '?'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort()
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
}

describe('uploads fuzzing: mutated PDFs, multipart edge cases, mutated signature images', () => {
  let t: TestApp;
  let key: string;
  let corpus: Mutation[];
  const files = () => filesUnder(join(t.config.dataDir, 'files'));
  const summary: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme');
    key = await orgApiKey(t, 'acme');
    corpus = await mutatedPdfs();
  }, 120_000);
  afterAll(async () => {
    // One line for the whole file: the corpus, what the product answered, time and memory.
    console.log(`uploads fuzzing\n  ${summary.join('\n  ')}`);
    await t?.close();
  });

  it('builds the same corpus every time (seeded, no clock, qpdf with static IDs)', async () => {
    const digest = (list: Mutation[]) => {
      const hash = createHash('sha256');
      for (const m of list) hash.update(m.name).update(m.bytes);
      return hash.digest('hex');
    };
    expect(digest(await mutatedPdfs())).toBe(digest(corpus));
  });

  it('answers every mutated PDF with 200 or a 4xx error body, quickly, in bounded memory, storing nothing half-way', async () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    // A first real upload loads the lazily required parts of the app, so they are not counted as growth.
    const warm = await upload(t, key, 'acme', { fixture: 'us_constitution.pdf' });
    expect(warm.status).toBe(200);
    const rssStart = process.memoryUsage().rss;
    let rssPeak = rssStart;
    const started = Date.now();

    const outcomes: Outcome[] = [];
    for (const m of corpus) {
      const t0 = Date.now();
      let status = 0;
      let body: unknown;
      try {
        const res = await upload(t, key, 'acme', { file: m.bytes, filename: m.filename ?? 'mutated.pdf' }).timeout(
          PER_UPLOAD_MS,
        );
        status = res.status;
        body = res.body;
      } catch (e) {
        body = { timeout: String(e) };
      }
      const ms = Date.now() - t0;
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      const outcome: Outcome = { name: m.name, status, ms, error: (body as { error?: string })?.error };
      if (status === 0) outcome.problem = `no answer within ${PER_UPLOAD_MS} ms`;
      else if (status >= 500) outcome.problem = `answered ${status}: ${JSON.stringify(body)}`;
      else if (status !== 200 && !(status >= 400 && isErrorBody(body)))
        outcome.problem = `answered ${status} without the error body: ${JSON.stringify(body).slice(0, 200)}`;
      else if (status !== 200 && (body as { code: number }).code !== status)
        outcome.problem = `answered ${status} with code ${(body as { code: number }).code}`;
      else if (ms > PER_UPLOAD_MS) outcome.problem = `took ${ms} ms`;
      outcomes.push(outcome);
    }
    const rssEnd = process.memoryUsage().rss;
    const elapsed = Date.now() - started;

    const kinds = new Map<string, number>();
    for (const m of corpus) kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
    const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 3);
    summary.push(
      `corpus: ${corpus.length} PDFs (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`,
      `answers: ${summarise(outcomes)}`,
      `time: ${(elapsed / 1000).toFixed(1)} s in all; slowest ${slowest.map((o) => `${o.ms} ms (${o.name})`).join(', ')}`,
      `RSS: ${Math.round(rssStart / MB)} MB at the start, peak ${Math.round(rssPeak / MB)} MB, ` +
        `${Math.round(rssEnd / MB)} MB at the end (growth ${Math.round((rssEnd - rssStart) / MB)} MB, bound ${MAX_RSS_GROWTH / MB} MB)`,
    );

    expect(outcomes.filter((o) => o.problem).map((o) => `${o.name}: ${o.problem}`)).toEqual([]);
    expect(rssEnd - rssStart).toBeLessThan(MAX_RSS_GROWTH);
    expect(rssPeak - rssStart).toBeLessThan(MAX_RSS_GROWTH);

    // Nothing half-stored: every stored file belongs to a request or a template, one request per 200.
    const accepted = outcomes.filter((o) => o.status === 200).length;
    const requests = await t.db.getRepository(RequestEntity).find();
    expect(requests.length).toBe(accepted + 1);
    const templates = await t.db.getRepository(TemplateEntity).find();
    const referenced = new Set<string>();
    for (const r of requests) for (const k of [r.fileKey, r.signedFileKey]) if (k) referenced.add(k);
    for (const tpl of templates) for (const k of [tpl.fileKey, tpl.annotationKey]) referenced.add(k);
    // Files are stored as files/ab/cd/<sha256>, the key.
    const unreferenced = files().filter((path) => !referenced.has(basename(path)));
    expect(unreferenced).toEqual([]);
  }, 240_000);

  describe('what the upload says about itself', () => {
    const pdf = () => readFixture('pdfs', 'normal.pdf');
    const png = () => readFixture('faces', 'coffee.png');
    it.each([
      ['a real PDF sent as text/plain', { file: pdf(), contentType: 'text/plain' }, 415, Messages.invalidPdf],
      ['a real PDF sent as image/png', { file: pdf(), contentType: 'image/png' }, 415, Messages.invalidPdf],
      [
        'a real PDF sent as application/octet-stream',
        { file: pdf(), contentType: 'application/octet-stream' },
        415,
        Messages.invalidPdf,
      ],
      ['a PNG sent as application/pdf', { file: png(), filename: 'scan.pdf' }, 415, Messages.invalidPdf],
      ['a filename without .pdf', { file: pdf(), filename: 'contract' }, 415, Messages.invalidPdf],
      ['a filename ending .pdf.exe', { file: pdf(), filename: 'contract.pdf.exe' }, 415, Messages.invalidPdf],
      ['no file field', { file: null as unknown as Buffer }, 400, RequestMessages.fileRequired],
      [
        `exactly Limits.maxFileBytes (${Limits.maxFileBytes} bytes)`,
        { file: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(Limits.maxFileBytes - 9, 32)]) },
        413,
        Messages.fileTooLarge,
      ],
      [
        'a file above what the multipart parser buffers (maxFileBytes + 1 MB + 1)',
        { file: Buffer.alloc(Limits.maxFileBytes + MB + 1, 32) },
        413,
        Messages.fileTooLarge,
      ],
    ])('%s', async (_what, options, status, message) => {
      const before = files();
      const requests = await t.db.getRepository(RequestEntity).count();
      const res = await upload(t, key, 'acme', { filename: 'normal.pdf', ...options }).timeout(PER_UPLOAD_MS);
      expect(res.status).toBe(status);
      expect(isErrorBody(res.body)).toBe(true);
      expect(res.body.message).toBe(message);
      expect(files()).toEqual(before);
      expect(await t.db.getRepository(RequestEntity).count()).toBe(requests);
    });
  });

  describe('multipart bodies sent raw', () => {
    let server: Server;
    let port: number;
    beforeAll(() => {
      // startTestApp listens already (at PUBLIC_URL).
      server = t.app.getHttpServer() as Server;
      port = (server.address() as AddressInfo).port;
    });

    const BOUNDARY = '----fuzz7MA4YWxkTrZu0gW';
    const field = (name: string, value: string) =>
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    const fileHead = (filename: string) =>
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
          'Content-Type: application/pdf\r\n\r\n',
      );
    const fields = () =>
      Buffer.concat([
        field(
          'data',
          JSON.stringify([
            {
              name: 'Asha Rao',
              email: 'asha@example.in',
              phoneNumber: '9876543210',
              observer: false,
              signature_type: 'e-Signature',
            },
          ]),
        ),
        field('checkOrder', 'false'),
        field('otpRequired', 'false'),
        field('orgId', 'acme'),
      ]);

    /**
     * POSTs /v1/upload with a body written in chunks by `write` (which answers false to stop early), and answers the
     * status, the body, how many bytes had been written when the answer came, and how long it took.
     */
    function post(body: {
      length?: number;
      chunks: () => Iterable<Buffer>;
    }): Promise<{ status: number; body: unknown; sentAtAnswer: number; ms: number; rssGrowth: number }> {
      const rss0 = process.memoryUsage().rss;
      let rssPeak = rss0;
      const t0 = Date.now();
      return new Promise((resolve, reject) => {
        let sent = 0;
        let sentAtAnswer = -1;
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/upload',
            headers: {
              apikey: key,
              'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
              ...(body.length !== undefined ? { 'content-length': String(body.length) } : {}),
            },
          },
          (res) => {
            sentAtAnswer = sent;
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => parts.push(c));
            res.on('end', () => {
              const text = Buffer.concat(parts).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {
                // not JSON: the assertion shows it
              }
              resolve({
                status: res.statusCode ?? 0,
                body: parsed,
                sentAtAnswer,
                ms: Date.now() - t0,
                rssGrowth: rssPeak - rss0,
              });
            });
          },
        );
        req.setTimeout(PER_UPLOAD_MS, () => req.destroy(new Error(`no answer within ${PER_UPLOAD_MS} ms`)));
        req.on('error', (e) => (sentAtAnswer >= 0 ? undefined : reject(e)));
        const iterator = body.chunks()[Symbol.iterator]();
        const pump = () => {
          for (;;) {
            if (sentAtAnswer >= 0 || req.destroyed) return;
            const next = iterator.next();
            if (next.done) {
              req.end();
              return;
            }
            sent += next.value.length;
            rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
            if (!req.write(next.value)) {
              req.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
    }

    it('refuses a 50 MB body with 413 without buffering it', async () => {
      const total = 50 * MB;
      const chunk = Buffer.alloc(64 * 1024, 32);
      const head = Buffer.concat([fields(), fileHead('big.pdf'), Buffer.from('%PDF-1.7\n')]);
      const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
      const res = await post({
        length: head.length + total + tail.length,
        *chunks() {
          yield head;
          for (let n = 0; n < total; n += chunk.length) yield chunk;
          yield tail;
        },
      });
      summary.push(
        `50 MB body: ${res.status} after ${res.ms} ms, ${Math.round(res.sentAtAnswer / MB)} MB sent when it answered, ` +
          `RSS growth ${Math.round(res.rssGrowth / MB)} MB`,
      );
      expect(res.status).toBe(413);
      expect(isErrorBody(res.body)).toBe(true);
      expect((res.body as { message: string }).message).toBe(Messages.fileTooLarge);
      expect(res.ms).toBeLessThan(10_000);
      // Not buffered: far less than the 50 MB body stays in memory (the parser keeps at most maxFileBytes + 1 MB).
      expect(res.rssGrowth).toBeLessThan(40 * MB);
    }, 30_000);

    it('refuses a multipart body with 1000 fields with a 4xx', async () => {
      const many = Buffer.concat(Array.from({ length: 1000 }, (_, i) => field(`f${i}`, 'x')));
      const body = Buffer.concat([
        fields(),
        many,
        fileHead('normal.pdf'),
        readFixture('pdfs', 'normal.pdf'),
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      ]);
      const before = await t.db.getRepository(RequestEntity).count();
      const res = await post({ length: body.length, chunks: () => [body] });
      expect(res.status).toBe(400);
      expect(isErrorBody(res.body)).toBe(true);
      expect(await t.db.getRepository(RequestEntity).count()).toBe(before);
    });

    it.each([
      [
        'cut in the middle of the file',
        (pdf: Buffer) => Buffer.concat([fields(), fileHead('normal.pdf'), pdf.subarray(0, 1000)]),
      ],
      [
        'without the closing boundary',
        (pdf: Buffer) => Buffer.concat([fields(), fileHead('normal.pdf'), pdf, Buffer.from('\r\n')]),
      ],
      [
        'cut inside a part header',
        () => Buffer.concat([fields(), Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-da`)]),
      ],
    ])('refuses a truncated multipart body (%s) with a 4xx', async (_what, make) => {
      const body = make(readFixture('pdfs', 'normal.pdf'));
      const before = await t.db.getRepository(RequestEntity).count();
      const res = await post({ length: body.length, chunks: () => [body] });
      expect(res.status >= 400 && res.status < 500 && isErrorBody(res.body) ? 'a 4xx error' : res).toBe('a 4xx error');
      expect(await t.db.getRepository(RequestEntity).count()).toBe(before);
    });
  });

  describe('the signature image (POST /v1/esignature, kind uploaded)', () => {
    let base: string;
    let requestId: string;
    let refId: number;
    const h = () => ({ 'x-sign-token': token });
    let token: string;

    beforeAll(async () => {
      const sent = await sendForSigning(
        t,
        key,
        'acme',
        {
          recipients: [
            {
              name: 'Asha Rao',
              email: 'asha@example.in',
              phoneNumber: '9876543210',
              observer: false,
              signature_type: 'e-Signature',
            },
          ],
          otpRequired: false,
        },
        [{ order: 1, pageNo: [1] }],
      );
      refId = sent.refId;
      token = sent.tokens[1];
      base = `acme/${refId}/1`;
      const ref = await t.http.get(`/v1/reference/${base}`).set(h()).expect(200);
      requestId = ref.body.request.requestId as string;
      await t.http
        .post(`/v1/signer_details/${base}`)
        .set(h())
        .send({ status: 'opened', userAgent: { OS: 'Linux', Browser: 'Firefox' } })
        .expect(200);
      await t.http.post(`/v1/signer_details/${base}`).set(h()).send({ status: 'signing' }).expect(200);
      await t.http.get(`/v1/init/acme/${requestId}?method=2`).set(h()).expect(200);
    });

    const png = SIGNATURE_PNG;
    const jpeg = fixtureJpeg();
    const flip = (bytes: Buffer, count: number, seed: number, from = 0) => {
      const random = prng(seed);
      const copy = Buffer.from(bytes);
      for (let i = 0; i < count; i++) copy[from + Math.floor(random() * (copy.length - from))] ^= 0x5a;
      return copy;
    };
    /** The PNG with its IHDR width and height replaced (CRC fixed, so only the size is wrong). */
    const pngSized = (width: number, height: number) => {
      const copy = Buffer.from(makePng(4, 4, () => [0, 0, 0, 255]));
      copy.writeUInt32BE(width, 16);
      copy.writeUInt32BE(height, 20);
      copy.writeUInt32BE(crc32(copy.subarray(12, 29)) >>> 0, 29);
      return copy;
    };
    /** The JPEG with its SOF height and width replaced. */
    const jpegSized = (width: number, height: number) => {
      const copy = Buffer.from(jpeg);
      for (let i = 2; i + 9 < copy.length;) {
        const marker = copy[i + 1];
        if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
          copy.writeUInt16BE(height, i + 5);
          copy.writeUInt16BE(width, i + 7);
          return copy;
        }
        i += 2 + copy.readUInt16BE(i + 2);
      }
      throw new Error('no SOF in the fixture JPEG');
    };
    const images: Array<[string, Buffer, string, string]> = [
      ['zero bytes', Buffer.alloc(0), 'sig.png', 'image/png'],
      ['PNG truncated after the signature', png.subarray(0, 8), 'sig.png', 'image/png'],
      ['PNG truncated after IHDR', png.subarray(0, 33), 'sig.png', 'image/png'],
      ['PNG truncated mid-IDAT', png.subarray(0, Math.floor(png.length / 2)), 'sig.png', 'image/png'],
      ['PNG without IEND', png.subarray(0, png.length - 12), 'sig.png', 'image/png'],
      ['PNG with 1 byte flipped in IDAT', flip(png, 1, 1, 41), 'sig.png', 'image/png'],
      ['PNG with 10 bytes flipped', flip(png, 10, 2, 8), 'sig.png', 'image/png'],
      ['PNG with 100 bytes flipped', flip(png, 100, 3, 8), 'sig.png', 'image/png'],
      ['PNG declaring 100000x100000', pngSized(100_000, 100_000), 'sig.png', 'image/png'],
      ['PNG declaring 4096x4096 with 4x4 of data', pngSized(4096, 4096), 'sig.png', 'image/png'],
      ['PNG declaring 0x0', pngSized(0, 0), 'sig.png', 'image/png'],
      ['JPEG truncated to its first 4 bytes', jpeg.subarray(0, 4), 'sig.jpg', 'image/jpeg'],
      ['JPEG truncated at a quarter', jpeg.subarray(0, Math.floor(jpeg.length / 4)), 'sig.jpg', 'image/jpeg'],
      ['JPEG truncated at half', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'sig.jpg', 'image/jpeg'],
      ['JPEG with 20 bytes flipped in its headers', flip(jpeg.subarray(0, 600), 20, 4, 2), 'sig.jpg', 'image/jpeg'],
      ['JPEG declaring 65535x65535', jpegSized(65_535, 65_535), 'sig.jpg', 'image/jpeg'],
      ['JPEG declaring 0x0', jpegSized(0, 0), 'sig.jpg', 'image/jpeg'],
      ['a PDF renamed .png', readFixture('pdfs', 'normal.pdf'), 'sig.png', 'image/png'],
      [
        'an SVG with script',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'),
        'sig.png',
        'image/png',
      ],
      [
        'an SVG named .svg',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(2)</script></svg>'),
        'sig.svg',
        'image/svg+xml',
      ],
      ['HTML named .jpg', Buffer.from('<html><script>alert(1)</script></html>'), 'sig.jpg', 'image/jpeg'],
      [
        'a PNG above the size limit',
        Buffer.concat([png, Buffer.alloc(Limits.signatureImageMaxBytes)]),
        'sig.png',
        'image/png',
      ],
    ];

    it('refuses every mutated image with a 4xx error body and leaves the party unsigned', async () => {
      const before = files();
      const outcomes: Outcome[] = [];
      for (const [name, bytes, filename, contentType] of images) {
        const t0 = Date.now();
        const res = await t.http
          .post(`/v1/esignature/acme/${requestId}`)
          .set(h())
          .field('kind', 'uploaded')
          .attach('file', bytes, { filename, contentType })
          .timeout(PER_UPLOAD_MS);
        const outcome: Outcome = { name, status: res.status, ms: Date.now() - t0, error: res.body?.error };
        if (res.status < 400 || res.status >= 500 || !isErrorBody(res.body))
          outcome.problem = `answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`;
        outcomes.push(outcome);
        const party = await t.db.getRepository(PartyEntity).findOneByOrFail({ refId, order: 1 });
        if (party.signatureSubmittedAt || party.status === 'completed')
          outcome.problem = `${outcome.problem ?? ''} the party was marked signed`;
        if (outcome.problem) break; // the party is signed now: the rest would only say so
      }
      summary.push(`signature images: ${images.length} (${summarise(outcomes)})`);
      expect(outcomes.filter((o) => o.problem).map((o) => `${o.name}: ${o.problem}`)).toEqual([]);
      expect(files()).toEqual(before);

      // The party can still sign with a real image: nothing above used up its attempt.
      await t.http
        .post(`/v1/esignature/acme/${requestId}`)
        .set(h())
        .field('kind', 'uploaded')
        .attach('file', png, { filename: 'sig.png', contentType: 'image/png' })
        .expect(200);
    }, 60_000);
  });
});
