import { AdminMessages, LOGO_MAX_BYTES, SEAL_EXPIRY_WARNING_DAYS } from '@esign/contract';
import { makePng } from '@esign/test-support';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIGNERS } from './support/requests';
import { drain, fixtureJpeg, sendForSigning, signAs, signedPdf, verifyPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * The organisation's own settings beyond the specification's (issue 22): the logo (PNG, JPEG or a safe SVG, checked
 * by content, served with its real type), the reminder default, and the seal certificate (what it is, and a PKCS#12
 * imported through the API that seals the next signed PDF, as pdfsig shows).
 */

const LOGO_PATH = '/docs/logos/acme.png';
const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";

/** A tiny PNG as a data: URI an SVG may embed. */
const PNG_DATA = `data:image/png;base64,${makePng(2, 2, () => [200, 0, 0, 255]).toString('base64')}`;

const CLEAN_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<!-- Acme's mark -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 120 40" width="120" height="40">
  <defs>
    <linearGradient id="g"><stop offset="0" stop-color="#6c3ec1"/><stop offset="1" stop-color="#9b7be0"/></linearGradient>
    <style>.t { font: bold 16px sans-serif; fill: url(#g); }</style>
  </defs>
  <rect width="120" height="40" rx="6" style="fill:url('#g')"/>
  <image x="2" y="2" width="8" height="8" href="${PNG_DATA}"/>
  <use xlink:href="#g"/>
  <text class="t" x="14" y="26">Acme</text>
</svg>`;

const wrap = (inner: string, attrs = '') =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"${attrs}>${inner}</svg>`;

/** SVGs that must be refused as unsafe, and why. */
const UNSAFE_SVGS: [string, string][] = [
  ['a script', wrap('<script>alert(1)</script>')],
  ['a script in another namespace prefix', wrap('<s:script xmlns:s="http://www.w3.org/2000/svg">alert(1)</s:script>')],
  ['an event handler', wrap('<rect width="10" height="10"/>', ' onload="alert(1)"')],
  ['an event handler on a child', wrap('<rect width="10" height="10" onclick="alert(1)"/>')],
  [
    'an embedded page',
    wrap('<foreignObject width="10" height="10"><p xmlns="http://www.w3.org/1999/xhtml">hi</p></foreignObject>'),
  ],
  ['a DOCTYPE with an entity', `<!DOCTYPE svg [<!ENTITY x "boom">]>${wrap('<text>&x;</text>')}`],
  ['an external image', wrap('<image href="https://tracker.example.com/pixel.png" width="1" height="1"/>')],
  ['an external xlink:href', wrap('<use xlink:href="https://evil.example.com/sprite.svg#a"/>')],
  ['a javascript: link', wrap('<a href="javascript:alert(1)"><rect width="10" height="10"/></a>')],
  ['an SVG data URI', wrap('<image href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" width="1" height="1"/>')],
  [
    'an outside url() in a style attribute',
    wrap('<rect width="10" height="10" style="fill:url(https://x.example/a)"/>'),
  ],
  ['an @import', wrap('<style>@import url("https://x.example/a.css");</style>')],
  ['an outside url() in a style sheet', wrap('<style>rect { fill: url(http://x.example/#a) }</style>')],
  ['a style sheet processing instruction', `<?xml-stylesheet href="https://x.example/a.css"?>${wrap('')}`],
  ['an animation that sets href', wrap('<a><set attributeName="href" to="javascript:alert(1)"/></a>')],
];

describe("the organisation's logo, reminder default and seal certificate", () => {
  let t: TestApp;
  let key: string;
  let dir: string;

  const setLogo = (bytes: Buffer, filename: string, contentType = 'application/octet-stream') =>
    t.http.put('/api/organisations/acme/logo').set('apikey', key).attach('file', bytes, { filename, contentType });
  const org = () => t.http.get('/api/organisations/acme').set('apikey', key).expect(200);

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'bob', 'bob-password');
    key = await orgApiKey(t, 'acme');
    dir = mkdtempSync(join(tmpdir(), 'esign-org-admin-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  describe('logo', () => {
    it('takes a PNG, a JPEG and a clean SVG, and serves each with its own type at the same path', async () => {
      const png = makePng(64, 32, (x) => [x * 4, 80, 160, 255]);
      const jpeg = fixtureJpeg();
      for (const [bytes, name, type] of [
        [png, 'logo.png', 'image/png'],
        // The name says nothing: the content does.
        [jpeg, 'logo.png', 'image/jpeg'],
        [Buffer.from(CLEAN_SVG), 'logo.svg', 'image/svg+xml'],
      ] as const) {
        const set = await setLogo(bytes, name).expect(200);
        expect(set.body.settings.has_logo).toBe(true);
        const served = await t.http.get(LOGO_PATH).expect(200);
        expect(served.headers['content-type']).toBe(type);
        expect(served.headers['x-content-type-options']).toBe('nosniff');
        expect(Buffer.compare(served.body as Buffer, bytes)).toBe(0);
        if (type === 'image/svg+xml') expect(served.headers['content-security-policy']).toBe(SVG_POLICY);
        else expect(served.headers['content-security-policy']).not.toContain("default-src 'none'; style-src");
      }
    });

    it.each(UNSAFE_SVGS)('refuses an SVG with %s (415) and keeps the logo it had', async (_what, svg) => {
      const before = await t.http.get(LOGO_PATH);
      const res = await setLogo(Buffer.from(svg), 'logo.svg', 'image/svg+xml').expect(415);
      expect([res.body.error, res.body.message]).toEqual(['UNSUPPORTED_MEDIA_TYPE', AdminMessages.logoUnsafeSvg]);
      const after = await t.http.get(LOGO_PATH);
      expect(Buffer.compare(after.body as Buffer, before.body as Buffer)).toBe(0);
      expect(after.headers['content-type']).toBe(before.headers['content-type']);
    });

    it('refuses a GIF named .png, other XML, a truncated JPEG (415), and an empty or 2 MB file (400)', async () => {
      const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
      const cases: [Buffer, string, number][] = [
        [gif, 'logo.png', 415],
        [Buffer.from('<html><body>not an svg</body></html>'), 'logo.svg', 415],
        [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'), 'logo.svg', 415],
        [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]), 'logo.jpg', 415],
        [Buffer.concat([makePng(8, 8, () => [0, 0, 0, 255]), Buffer.alloc(2 * 1024 * 1024)]), 'big.png', 400],
        [Buffer.alloc(LOGO_MAX_BYTES + 1, 0x20), 'big.svg', 400],
      ];
      const before = await t.http.get(LOGO_PATH);
      for (const [bytes, name, status] of cases) {
        const res = await setLogo(bytes, name);
        expect({ name, status: res.status, message: res.body.message }).toEqual({
          name,
          status,
          message: AdminMessages.logoInvalid,
        });
      }
      const missing = await t.http.put('/api/organisations/acme/logo').set('apikey', key).expect(400);
      expect(missing.body.message).toBe(AdminMessages.logoInvalid);
      const after = await t.http.get(LOGO_PATH);
      expect(Buffer.compare(after.body as Buffer, before.body as Buffer)).toBe(0);
    });

    it("never lets another organisation's key set this one's logo", async () => {
      const bob = await orgApiKey(t, 'globex', 'other');
      await t.http
        .put('/api/organisations/acme/logo')
        .set('apikey', bob)
        .attach(
          'file',
          makePng(4, 4, () => [0, 0, 0, 255]),
          'x.png',
        )
        .expect(403);
      expect((await t.http.get('/api/organisations/globex').set('apikey', bob)).body.settings.has_logo).toBe(false);
    });
  });

  describe('reminder default', () => {
    it('is none at first, takes 12, 24 or 48 hours or null, and refuses anything else', async () => {
      expect((await org()).body.settings.reminder_default_hours).toBeNull();
      const put = (value: unknown) =>
        t.http.put('/api/organisations/acme').set('apikey', key).send({ reminder_default_hours: value });
      for (const hours of [12, 24, 48]) {
        expect((await put(hours).expect(200)).body.settings.reminder_default_hours).toBe(hours);
        expect((await org()).body.settings.reminder_default_hours).toBe(hours);
      }
      // Other settings leave it alone; null removes it.
      await t.http.put('/api/organisations/acme').set('apikey', key).send({ tag: 'acme-2' }).expect(200);
      expect((await org()).body.settings.reminder_default_hours).toBe(48);
      expect((await put(null).expect(200)).body.settings.reminder_default_hours).toBeNull();
      for (const bad of [36, 0, '24', true]) {
        const res = await put(bad).expect(400);
        expect(res.body.message).toBe('reminder_default_hours must be one of 12, 24, 48 or null');
      }
      expect((await org()).body.settings.reminder_default_hours).toBeNull();
    });
  });

  describe('seal certificate', () => {
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

    /** A CA made by OpenSSL, and a leaf it issues exported as PKCS#12 (with its chain) under `password`. */
    const makeLeafP12 = (name: string, cn: string, days: number, password: string, withKey = true) => {
      const p = (file: string) => join(dir, `${name}-${file}`);
      openssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '400',
        '-keyout',
        p('ca.key'),
        '-out',
        p('ca.pem'),
        '-subj',
        `/O=Acme Ltd/CN=${cn} CA`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      );
      openssl(
        'req',
        '-new',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        p('leaf.key'),
        '-out',
        p('leaf.csr'),
        '-subj',
        `/O=Acme Ltd/CN=${cn}`,
      );
      writeFileSync(
        p('leaf.ext'),
        'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
      );
      openssl(
        'x509',
        '-req',
        '-in',
        p('leaf.csr'),
        '-CA',
        p('ca.pem'),
        '-CAkey',
        p('ca.key'),
        '-CAcreateserial',
        '-days',
        String(days),
        '-extfile',
        p('leaf.ext'),
        '-out',
        p('leaf.pem'),
      );
      openssl(
        'pkcs12',
        '-export',
        '-in',
        p('leaf.pem'),
        ...(withKey ? ['-inkey', p('leaf.key')] : ['-nokeys']),
        '-certfile',
        p('ca.pem'),
        '-passout',
        `pass:${password}`,
        '-out',
        p('leaf.p12'),
      );
      return { p12: readFileSync(p('leaf.p12')), caPem: readFileSync(p('ca.pem'), 'utf8') };
    };
    const importSeal = (file: Buffer, password: string) =>
      t.http
        .put('/api/organisations/acme/seal')
        .set('apikey', key)
        .field('password', password)
        .attach('file', file, { filename: 'seal.p12', contentType: 'application/x-pkcs12' });
    const seal = () => t.http.get('/api/organisations/acme/seal').set('apikey', key).expect(200);

    it('describes the development seal certificate', async () => {
      const info = (await seal()).body;
      expect(info).toEqual({
        subject: expect.stringContaining('Org acme'),
        issuer: expect.stringContaining('Org acme'),
        serial: expect.stringMatching(/^[0-9a-f]+$/i),
        not_before: expect.any(String),
        not_after: expect.any(String),
        days_left: expect.any(Number),
        expiring_soon: false,
        expired: false,
        source: 'development',
      });
      expect(info.days_left).toBeGreaterThan(SEAL_EXPIRY_WARNING_DAYS);
    });

    it('refuses a wrong password, a file that is no PKCS#12, one without its key, and no file: nothing changes', async () => {
      const before = (await seal()).body;
      const good = makeLeafP12('good', 'Acme Seal Officer', 365, 's3cret');
      const keyless = makeLeafP12('keyless', 'Acme Keyless', 365, 's3cret', false);
      const cases: [Buffer, string, string][] = [
        [good.p12, 'wrong-password', AdminMessages.sealNotPkcs12],
        [Buffer.from('certainly not a PKCS#12'), 's3cret', AdminMessages.sealNotPkcs12],
        [readFileSync(join(dir, 'good-leaf.pem')), 's3cret', AdminMessages.sealNotPkcs12],
        [keyless.p12, 's3cret', AdminMessages.sealNoKey],
      ];
      for (const [file, password, message] of cases) {
        const res = await importSeal(file, password).expect(400);
        expect(res.body.message).toBe(message);
      }
      const none = await t.http
        .put('/api/organisations/acme/seal')
        .set('apikey', key)
        .field('password', 'x')
        .expect(400);
      expect(none.body.message).toBe(AdminMessages.sealFileMissing);
      expect((await seal()).body).toEqual(before);
    });

    it('imports a PKCS#12 through the API: the next signed PDF is sealed with that certificate (pdfsig)', async () => {
      const { p12, caPem } = makeLeafP12('officer', 'Acme Seal Officer', 365, 's3cret');
      const imported = await importSeal(p12, 's3cret').expect(200);
      expect(imported.body).toMatchObject({
        subject: 'O=Acme Ltd, CN=Acme Seal Officer',
        issuer: 'O=Acme Ltd, CN=Acme Seal Officer CA',
        source: 'imported',
        expired: false,
        expiring_soon: false,
      });
      expect((await seal()).body).toEqual(imported.body);

      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
        [{ order: 1, pageNo: [1] }],
      );
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email });
      await drain(t);
      const verified = await verifyPdf(t, await signedPdf(t, refId), undefined, caPem);
      // A leaf signs everything itself: the signer's signature and the organisation's seal.
      expect(verified.signatures.map((s) => [s.signer, s.validation])).toEqual([
        ['Acme Seal Officer', 'Signature is Valid.'],
        ['Acme Seal Officer', 'Signature is Valid.'],
      ]);
      expect(verified.signatures[0].trusted).toBe(true);
    });

    it('warns within 30 days of expiry, and refuses an expired certificate', async () => {
      const soon = makeLeafP12('soon', 'Acme Short Seal', 20, 's3cret');
      const imported = await importSeal(soon.p12, 's3cret').expect(200);
      expect(imported.body).toMatchObject({ subject: 'O=Acme Ltd, CN=Acme Short Seal', expiring_soon: true });
      expect(imported.body.days_left).toBeLessThanOrEqual(SEAL_EXPIRY_WARNING_DAYS);

      // Past its end (the clock moves on, the certificate stays what it is).
      t.clock.advance(40 * 86_400);
      const late = await seal();
      expect(late.body).toMatchObject({ expired: true, expiring_soon: false });
      expect(late.body.days_left).toBeLessThan(0);
      const again = await importSeal(soon.p12, 's3cret').expect(400);
      expect(again.body.message).toBe(AdminMessages.sealExpired);
    });
  });
});
