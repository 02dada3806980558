import type { Response } from 'supertest';
import { uploadOk } from '../support/requests';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from '../support/test-app';

/** The directives of a Content-Security-Policy header, by name. */
function directives(res: Response): Map<string, string[]> {
  const header = res.headers['content-security-policy'] as string | undefined;
  expect(header).toBeDefined();
  const map = new Map<string, string[]>();
  for (const part of String(header).split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) {
      expect(map.has(name)).toBe(false);
      map.set(name.toLowerCase(), values);
    }
  }
  return map;
}

/** What every answer carries, whatever it is. */
function expectCommon(res: Response): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(directives(res).get('frame-ancestors')).toEqual(["'none'"]);
  expect(res.headers['strict-transport-security']).toBeUndefined();
  expect(res.headers['set-cookie']).toBeUndefined();
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}

/** The policy both apps share; `formAction` and `scriptSrc` are what differs. */
function expectAppPolicy(res: Response, publicOrigin: string, formAction: string[]): void {
  const csp = directives(res);
  expect(csp.get('default-src')).toEqual(["'self'"]);
  expect(csp.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
  expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
  expect(csp.get('font-src')).toEqual(["'self'", 'data:']);
  expect(csp.get('worker-src')).toEqual(["'self'", 'blob:']);
  expect(csp.get('connect-src')).toEqual(["'self'", publicOrigin]);
  expect(csp.get('media-src')).toEqual(["'self'", 'blob:']);
  expect(csp.get('object-src')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'none'"]);
  expect(csp.get('form-action')).toEqual(formAction);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  for (const values of csp.values()) {
    expect(values).not.toContain("'unsafe-eval'");
    expect(values).not.toContain('*');
  }
  expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
}

/** A policy that allows nothing to load (JSON, redirects). */
function expectNothingAllowed(res: Response): void {
  const csp = directives(res);
  expect(csp.get('default-src')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'none'"]);
}

describe('security headers, cookies and CORS', () => {
  let t: TestApp;
  let key: string;
  let publicOrigin: string;
  beforeAll(async () => {
    t = await startTestApp();
    publicOrigin = new URL(t.config.publicUrl).origin;
    const { username, password } = await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await signIn(t, username, password);
  });
  afterAll(() => t.close());

  it("serves the console's pages with its policy", async () => {
    for (const path of ['/sign-in', '/dashboard']) {
      const res = await t.http.get(path).expect(200);
      expect(res.text).toContain('console-app');
      expectCommon(res);
      expectAppPolicy(res, publicOrigin, ["'self'"]);
    }
  });

  it("serves the signer app's pages with its policy: WebAssembly, and the form post to the ESP", async () => {
    for (const path of ['/esign/org/1/1', '/esign/org/1/1?token=abc', '/success/org/1', '/retry-mail-sent']) {
      const res = await t.http.get(path).expect(200);
      expect(res.text).toContain('signer-app');
      expectCommon(res);
      // In sandbox mode the ESP is this server at PUBLIC_URL.
      expectAppPolicy(res, publicOrigin, ["'self'", publicOrigin]);
    }
  });

  it("gives each app's assets the app's policy (its workers run under it)", async () => {
    const admin = await t.http.get('/admin-assets/missing.js').expect(404);
    expectCommon(admin);
    expectAppPolicy(admin, publicOrigin, ["'self'"]);
    const signer = await t.http.get('/signer-assets/missing.js').expect(404);
    expectCommon(signer);
    expectAppPolicy(signer, publicOrigin, ["'self'", publicOrigin]);
  });

  it('allows the form post to a real ESP in the signer app only', async () => {
    const dir = t.config.dataDir;
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    for (const name of ['asp.key', 'asp.crt', 'esp.crt']) writeFileSync(join(dir, name), 'unused');
    const esp = await startTestApp({
      PUBLIC_URL: 'https://sign.example.in',
      ESP_URL: 'https://esp.example.com/esign/2.1/signdoc',
      ASP_ID: 'ASP-1',
      ASP_KEY: join(dir, 'asp.key'),
      ASP_CERT: join(dir, 'asp.crt'),
      ESP_CERT: join(dir, 'esp.crt'),
    });
    try {
      const signer = await esp.http.get('/esign/org/1/1').expect(200);
      expectAppPolicy(signer, 'https://sign.example.in', [
        "'self'",
        'https://sign.example.in',
        'https://esp.example.com',
      ]);
      const console = await esp.http.get('/sign-in').expect(200);
      expectAppPolicy(console, 'https://sign.example.in', ["'self'"]);
    } finally {
      await esp.close();
    }
  });

  it('answers the API, its errors and redirects with nothing allowed, and no cookie (sign-in included)', async () => {
    const signInAnswer = await t.http.get('/consumers/alice/key-auth').auth('alice', 'alice-password').expect(200);
    expectCommon(signInAnswer);
    expectNothingAllowed(signInAnswer);
    const failedSignIn = await t.http.get('/consumers/alice/key-auth').auth('alice', 'wrong-password');
    expect(failedSignIn.status).toBe(401);
    expectCommon(failedSignIn);

    const json = await t.http.get('/api/whoami').set('apikey', key).expect(200);
    expect(json.headers['content-type']).toMatch(/application\/json/);
    expectCommon(json);
    expectNothingAllowed(json);

    const notFound = await t.http.get('/v1/no-such-route').set('apikey', key).expect(404);
    expect(notFound.body.error).toBe('NOT_FOUND');
    expectCommon(notFound);
    expectNothingAllowed(notFound);

    const unauthenticated = await t.http.get('/api/whoami').expect(401);
    expectCommon(unauthenticated);

    for (const [path, location] of [
      ['/no-such-page', '/not-found'],
      ['/', '/sign-in'],
    ]) {
      const redirect = await t.http.get(path).expect(302).expect('Location', location);
      expectCommon(redirect);
      expectNothingAllowed(redirect);
    }

    const health = await t.http.get('/health').expect(200);
    expectCommon(health);
  });

  it('serves a document link to any origin (Access-Control-Allow-Origin: *), framed by no one', async () => {
    const uploaded = await uploadOk(t, key, 'acme');
    const { LinksService } = await import('../../src/modules/secrets/links.service');
    const url = new URL(await t.app.get(LinksService).documentUrl('acme', uploaded.refId, 'original'));
    const res = await t.http
      .get(url.pathname + url.search)
      .set('Origin', 'https://viewer.example')
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(directives(res).get('frame-ancestors')).toEqual(["'none'"]);
    expect(res.headers['set-cookie']).toBeUndefined();
    // A bad signature is refused with the same headers (and still no cookie).
    const refused = await t.http.get(url.pathname + url.search.replace(/sig=[^&]+/, 'sig=AAAA'));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(refused.headers['x-frame-options']).toBe('DENY');
    expect(refused.headers['set-cookie']).toBeUndefined();
  });

  it("keeps the sandbox ESP's pages working: their one inline script (the auto-post) allowed by its hash only", async () => {
    const { createHash } = await import('node:crypto');
    const { autoPostPage } = await import('../../src/modules/aadhaar/sandbox/pages');
    const script = /<script>([\s\S]*?)<\/script>/.exec(autoPostPage('https://asp.example/back', { msg: 'x' }))![1];
    const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
    const page = await t.http.post('/esp-sandbox/esign').type('form').send({ msg: 'not xml' });
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expectCommon(page);
    expect(page.headers['cache-control']).toBe('no-store');
    const csp = directives(page);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual([hash]);
    expect(csp.get('style-src')).toEqual(["'unsafe-inline'"]);
    expect(csp.get('form-action')).toEqual(["'self'", publicOrigin]);
  });

  it('serves /api-docs with a policy its Swagger UI works under', async () => {
    const res = await t.http.get('/api-docs').redirects(1).expect(200);
    expect(res.text).toContain('swagger-ui');
    expectCommon(res);
    const csp = directives(res);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    // Swagger UI's page has no inline script (only its inline style).
    expect(res.text).not.toMatch(/<script>(?!\s*<\/script>)/);
    const json = await t.http.get('/api-docs-json').expect(200);
    expectCommon(json);
  });

  it('sends HSTS only over TLS as reported by a trusted proxy', async () => {
    // Plain http: never.
    const plain = await t.http.get('/sign-in').expect(200);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    // A client that is not a trusted proxy cannot claim TLS.
    const claimed = await t.http.get('/sign-in').set('X-Forwarded-Proto', 'https').expect(200);
    expect(claimed.headers['strict-transport-security']).toBeUndefined();

    const proxied = await startTestApp({ TRUSTED_PROXIES: 'loopback' });
    try {
      for (const path of ['/sign-in', '/esign/org/1/1', '/health', '/v1/no-such-route']) {
        const tls = await proxied.http.get(path).set('X-Forwarded-Proto', 'https');
        expect(tls.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      }
      const http = await proxied.http.get('/sign-in').set('X-Forwarded-Proto', 'http').expect(200);
      expect(http.headers['strict-transport-security']).toBeUndefined();
      const none = await proxied.http.get('/sign-in').expect(200);
      expect(none.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await proxied.close();
    }
  });

  it('keeps CORS closed: no allow headers for another origin, on a call or a preflight', async () => {
    const evil = 'https://evil.example';
    const call = await t.http.get('/api/whoami').set('apikey', key).set('Origin', evil).expect(200);
    expect(call.headers['access-control-allow-origin']).toBeUndefined();
    expect(call.headers['access-control-allow-credentials']).toBeUndefined();

    const signInCall = await t.http
      .get('/consumers/alice/key-auth')
      .auth('alice', 'alice-password')
      .set('Origin', evil)
      .expect(200);
    expect(signInCall.headers['access-control-allow-origin']).toBeUndefined();
    expect(signInCall.headers['set-cookie']).toBeUndefined();

    for (const [path, method, headers] of [
      ['/api/whoami', 'GET', 'apikey'],
      ['/v1/upload', 'POST', 'apikey, content-type'],
      ['/consumers/alice/key-auth', 'DELETE', 'apikey'],
      ['/api/requests', 'GET', 'apikey, org-id'],
    ]) {
      const preflight = await t.http
        .options(path)
        .set('Origin', evil)
        .set('Access-Control-Request-Method', method)
        .set('Access-Control-Request-Headers', headers);
      expect(preflight.status).toBeLessThan(500);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
      expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      expect(preflight.headers['set-cookie']).toBeUndefined();
    }
  });

  it('sets no cookie on any page or asset', async () => {
    for (const path of ['/sign-in', '/esign/org/1/1', '/not-found', '/list', '/failed/org/1', '/metrics']) {
      const res = await t.http.get(path);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });
});
