import { AdminMessages, Messages } from '@esign/contract';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { UsersService } from '../src/modules/auth/users.service';
import { DEMO, seedDemo } from '../src/seed';
import { readFixture } from './support/fixtures';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

const DEFAULT_LOGO = readFileSync(join(__dirname, '..', 'assets', 'default-logo.png'));

describe('one origin: pages, logos, health, documentation, errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
  });
  afterAll(() => t.close());

  it('redirects / to /sign-in and every unknown page to /not-found', async () => {
    await t.http.get('/').expect(302).expect('Location', '/sign-in');
    for (const path of ['/nothing', '/dashboard/extra', '/esign/acme/1', '/success', '/docsx']) {
      await t.http.get(path).expect(302).expect('Location', '/not-found');
    }
  });

  it('answers a missing script, style sheet or image with a 404, not a redirect', async () => {
    for (const path of ['/admin-assets/missing.js', '/signer-assets/missing.css', '/favicon-missing.ico']) {
      await t.http.get(path).expect(404);
    }
  });

  it("sends the build's gzip copy of an asset to a browser that accepts gzip, the file itself otherwise", async () => {
    const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;
    const dir = join(t.config.webRoots.signer, 'signer-assets');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'app-abc123.js'), script);
    writeFileSync(join(dir, 'app-abc123.js.gz'), gzipSync(script, { level: 9 }));
    writeFileSync(join(dir, 'plain-abc123.js'), script);

    const zipped = await t.http.get('/signer-assets/app-abc123.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toMatch(/javascript/);
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
    // The copy as written (its length), not compressed again; it decodes to the script.
    expect(Number(zipped.headers['content-length'])).toBe(statSync(join(dir, 'app-abc123.js.gz')).size);
    expect(zipped.text).toBe(script);

    const plain = await t.http.get('/signer-assets/app-abc123.js').set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(script);

    // No copy: compressed on the way, as before.
    const live = await t.http.get('/signer-assets/plain-abc123.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(live.headers['content-encoding']).toBe('gzip');
    expect(live.text).toBe(script);

    // A copy without its file, or a path out of the web root, is not served.
    writeFileSync(join(dir, 'orphan.js.gz'), gzipSync(script));
    await t.http.get('/signer-assets/orphan.js').set('Accept-Encoding', 'gzip').expect(404);
    await t.http.get('/signer-assets/..%2F..%2Fadmin%2Findex.html').set('Accept-Encoding', 'gzip').expect(404);
  });

  it('serves the face models (their committed gzip copies) to the browser, asked again each time and 304 while unchanged', async () => {
    const models = t.config.faceModelsDir;
    const bytes = readFileSync(join(models, 'facemesh.onnx'));
    const zipped = await t.http
      .get('/models/face/facemesh.onnx')
      .set('Accept-Encoding', 'gzip')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(Number(zipped.headers['content-length'])).toBe(statSync(join(models, 'facemesh.onnx.gz')).size);
    expect(zipped.headers['cache-control']).toBe('public, max-age=0');
    expect(Buffer.compare(zipped.body as Buffer, bytes)).toBe(0);
    const again = await t.http
      .get('/models/face/facemesh.onnx')
      .set('Accept-Encoding', 'gzip')
      .set('If-None-Match', zipped.headers.etag)
      .expect(304);
    expect(again.headers['content-encoding']).toBeUndefined();

    const plain = await t.http
      .get('/models/face/blazeface-front-128.onnx')
      .set('Accept-Encoding', 'identity')
      .expect(200);
    expect(Number(plain.headers['content-length'])).toBe(statSync(join(models, 'blazeface-front-128.onnx')).size);
    await t.http.get('/models/face/..%2F..%2Fpackage.json').set('Accept-Encoding', 'gzip').expect(404);
  });

  it('serves the console at the staff routes and the signer app at the recipient routes', async () => {
    for (const path of [
      '/sign-in',
      '/dashboard',
      '/drafts',
      '/request-initiate',
      '/upload',
      '/mail-sent',
      '/not-found',
      '/list',
    ]) {
      const res = await t.http.get(path).expect(200);
      expect(res.text).toContain('console-app');
    }
    for (const path of [
      '/esign/acme/1001/1?token=abc',
      '/success/acme/r1',
      '/failed/acme/r1?email=1',
      '/retry-mail-sent',
    ]) {
      const res = await t.http.get(path).expect(200);
      expect(res.text).toContain('signer-app');
    }
  });

  it("answers the apps' pages before Express (same bytes, headers, ETag and 304), and everything else through it", async () => {
    const express = t.app.getHttpAdapter().getInstance() as { handle: (...args: unknown[]) => unknown };
    const handle = jest.spyOn(express, 'handle');
    try {
      const page = await t.http.get('/esign/acme/1001/1?token=abc').expect(200);
      expect(page.text).toContain('signer-app');
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("form-action 'self'");
      expect(page.headers['x-request-id']).toMatch(/^[\w-]+$/);
      expect(page.headers.etag).toMatch(/^W\/"[0-9a-f]+-[\w+/]{27}"$/);
      const again = await t.http.get('/Sign-In/').set('If-None-Match', page.headers.etag).expect(200);
      expect(again.text).toContain('console-app');
      const cached = await t.http.get('/esign/acme/1001/1').set('If-None-Match', page.headers.etag).expect(304);
      expect(cached.text).toBeFalsy();
      const head = await t.http.head('/dashboard').expect(200);
      expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      expect(handle).not.toHaveBeenCalled();
      // What is not a page's GET or HEAD still goes through Express: an unknown page, another method, the API.
      await t.http.get('/esign/acme/1').expect(302).expect('Location', '/not-found');
      await t.http.post('/sign-in').expect(404);
      await t.http.get('/health').expect(200);
      expect(handle).toHaveBeenCalledTimes(3);
    } finally {
      handle.mockRestore();
    }
  });

  it('compresses text answers for clients that accept it, never PDFs', async () => {
    const docs = await t.http.get('/api-docs-json').set('Accept-Encoding', 'gzip').expect(200);
    expect(docs.headers['content-encoding']).toBe('gzip');
    const plain = await t.http.get('/api-docs-json').set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('answers unknown API paths with a JSON 404, not a page', async () => {
    const res = await t.http
      .get('/api/nothing-here')
      .set('apikey', await signIn(t, 'alice', 'alice-password'))
      .expect(404);
    expect(res.body).toEqual({
      code: 404,
      error: 'NOT_FOUND',
      message: Messages.notFound,
      status: { statusMessage: Messages.notFound },
    });
    await t.http.post('/v1/nothing').expect(404);
  });

  it("serves the default logo, then the organisation's own PNG once uploaded; refuses what is no image", async () => {
    const before = await t.http.get('/docs/logos/acme.png').expect(200).expect('Content-Type', 'image/png');
    expect(Buffer.compare(before.body, DEFAULT_LOGO)).toBe(0);
    await t.http.get('/docs/logos/unknown-org.png').expect(200).expect('Content-Type', 'image/png');

    const key = await signIn(t, 'alice', 'alice-password');
    const png = readFixture('faces', 'coffee.png');
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    const refused = await t.http
      .put('/api/organisations/acme/logo')
      .set('apikey', key)
      .attach('file', jpeg, 'logo.png')
      .expect(415);
    // A JPEG's first bytes alone are no image (issue 22 takes PNG, JPEG and SVG, checked by content).
    expect(refused.body.message).toBe(AdminMessages.logoInvalid);
    await t.http.put('/api/organisations/acme/logo').set('apikey', key).expect(400);
    const set = await t.http
      .put('/api/organisations/acme/logo')
      .set('apikey', key)
      .attach('file', png, 'logo.png')
      .expect(200);
    expect(set.body.settings.has_logo).toBe(true);
    const after = await t.http.get('/docs/logos/acme.png').expect(200);
    expect(Buffer.compare(after.body, png)).toBe(0);
  });

  it('updates organisation settings with validation', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    const res = await t.http
      .put('/api/organisations/acme')
      .set('apikey', key)
      .send({
        live_video: true,
        live_video_threshold: 0.8,
        return_url: 'example.com/done',
        signature_types: ['Aadhaar', 'e-Signature'],
      })
      .expect(200);
    expect(res.body.settings).toMatchObject({
      live_video: true,
      live_video_threshold: 0.8,
      return_url: 'example.com/done',
      signature_types: ['Aadhaar', 'e-Signature'],
      request_expiry_days: 30,
    });
    const bad = await t.http
      .put('/api/organisations/acme')
      .set('apikey', key)
      .send({ live_video_threshold: 3, signature_types: ['Fax'] })
      .expect(400);
    expect(bad.body.error).toBe('VALIDATION_FAILED');
    expect(bad.body.message).toMatch(/live_video_threshold/);
    expect(bad.body.message).toMatch(/signature_types/);
    const unchanged = await t.http.get('/api/organisations/acme').set('apikey', key).expect(200);
    expect(unchanged.body.settings.live_video_threshold).toBe(0.8);
  });

  it('answers malformed JSON with a 400, never a 500', async () => {
    const res = await t.http
      .post('/api/api-keys')
      .set('content-type', 'application/json')
      .send('{"name": ')
      .expect(400);
    expect(res.body.code).toBe(400);
  });

  it('reports health with the engine in use, and echoes a request id', async () => {
    const res = await t.http.get('/health').set('x-request-id', 'trace-me-1').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      database: t.config.database.engine === 'sqlite' ? 'sqlite' : 'mysql',
      version: '0.1.0',
    });
    expect(res.headers['x-request-id']).toBe('trace-me-1');
    const generated = await t.http.get('/health').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('publishes OpenAPI for the sign-in and the resources', async () => {
    await t.http.get('/api-docs').expect(200);
    const doc = await t.http.get('/api-docs-json').expect(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/consumers/{username}/key-auth',
        '/consumers/{username}',
        '/api/organisations/{orgId}',
        '/api/api-keys',
        '/health',
      ]),
    );
  });
});

describe('demo seed', () => {
  it('seeds organisation demo (test mode) with demo / demo1234 on an empty database, once', async () => {
    const t = await startTestApp();
    try {
      expect(await seedDemo(t.app)).toBe(true);
      expect(await seedDemo(t.app)).toBe(false);
      const consumer = await t.http.get(`/consumers/${DEMO.username}`).auth(DEMO.username, DEMO.password).expect(200);
      expect(consumer.body.tags).toEqual(['demo', 'demo', 'test']);
      await signIn(t, DEMO.username, DEMO.password);
      // The demo user hears of rejections at an address the dev outbox shows.
      expect((await t.app.get(UsersService).findByUsername(DEMO.username))?.email).toBe('demo@example.in');
    } finally {
      await t.close();
    }
  });

  it('does not seed a database that already has an organisation', async () => {
    const t = await startTestApp();
    try {
      await createOrgWithUser(t, 'acme');
      expect(await seedDemo(t.app)).toBe(false);
      await t.http.get('/consumers/demo').auth('demo', 'demo1234').expect(401);
    } finally {
      await t.close();
    }
  });
});

describe('keep-alive connections', () => {
  it('keeps an idle connection open past the 5 s of Node by default, so a client reusing it is answered (no ECONNRESET)', async () => {
    const t = await startTestApp();
    try {
      // The test app listens on its PUBLIC_URL already.
      const { port } = (t.app.getHttpServer() as Server).address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      let received = '';
      let closed = false;
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('close', () => (closed = true));
      const ask = async (answers: number) => {
        socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
        const deadline = Date.now() + 5000;
        while ((received.match(/HTTP\/1\.1 200/g) ?? []).length < answers) {
          if (closed || Date.now() > deadline) throw new Error(`no answer ${answers} on the connection: ${received}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await ask(1);
      // Idle longer than Node's default keepAliveTimeout (5 s), which would have closed the connection by now.
      await new Promise((r) => setTimeout(r, 6500));
      expect(closed).toBe(false);
      await ask(2);
      socket.destroy();
    } finally {
      await t.close();
    }
  }, 30_000);
});
