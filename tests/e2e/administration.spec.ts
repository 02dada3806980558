import { AdminMessages, Messages, StaffRoutes, WebhookHeaders } from '@esign/contract';
import type { RequestListItem } from '@esign/contract';
import type { Page } from '@playwright/test';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { en } from '../../admin/src/i18n/en';
import { apiKey, processDraft, repoRoot, signInAsDemo, uploadDraft } from './console';
import { DEMO, expect, fixture, sharedDir, shot, test } from './fixtures';
import { completedRequest, outbox } from './support/requests';

/**
 * The organisation's administration in the console (issue 22), as an administrator and a staff user see it: users and
 * their invitations, API keys and esign-cli, webhooks and their deliveries at a receiver this test runs, the seal
 * certificate, the logo and the reminder default. Texts come from the console's English catalogue.
 */

const C = en.console;
const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/%?\{(\w+)\}/g, (_, name: string) => String(values[name]));
const menu = (page: Page, name: string) => page.getByRole('menuitem', { name, exact: true });
const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const unique = () => Date.now().toString(36).slice(-6);
/** A 1×1 PNG: a logo the API takes. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto(StaffRoutes.signIn);
  await page.getByLabel(Messages.usernameLabel, { exact: true }).fill(username);
  await page.getByLabel(Messages.passwordLabel, { exact: true }).fill(password);
  await page.getByRole('button', { name: Messages.loginButton }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** The set-password link of the latest e-mail of `kind` to `to`, from the dev outbox. */
async function passwordLink(page: Page, to: string, kind: 'user-invitation' | 'password-reset'): Promise<string> {
  let url: string | undefined;
  await expect
    .poll(async () => {
      const mail = (await outbox(page.request, to)).filter((m) => m.kind === kind && m.channel === 'email').at(-1);
      url = /(https?:\/\/\S+\/set-password\?token=[^\s"<]+)/.exec(mail?.text ?? '')?.[1];
      return url;
    })
    .toBeTruthy();
  const link = new URL(url as string);
  return `${link.pathname}${link.search}`;
}

/** Runs the management command against the journeys' server (its DATA_DIR). */
function manage(...args: string[]): string {
  return execFileSync(process.execPath, [path.join(repoRoot, 'api', 'dist', 'manage.js'), ...args], {
    env: {
      ...process.env,
      DATA_DIR: process.env.E2E_DATA_DIR,
      PUBLIC_URL: process.env.E2E_BASE_URL,
      LOG_LEVEL: 'warn',
    },
    encoding: 'utf8',
  });
}

test.describe('users: invitations, roles and who may open the administration', () => {
  test('an administrator invites a staff user, who sets a password, signs in, sends a request and cannot open the administration', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const username = `ravi.${unique()}`;
    const email = `${username}@example.in`;
    const password = 'a long staff passphrase';

    await signInAsDemo(page);
    await menu(page, C.layout.users).click();
    await expect(page).toHaveURL(/\/users/);
    await page.getByRole('link', { name: C.users.invite }).click();
    await page.getByLabel(C.users.username, { exact: true }).fill(username);
    await page.getByLabel(C.users.email, { exact: true }).fill(email);
    await page.getByRole('button', { name: en.ra.action.save }).click();
    await expect(toast(page, fill(AdminMessages.invitationSent, { email }))).toBeVisible();
    const row = page.getByTestId('users').locator('tbody tr', { hasText: username });
    await expect(row.getByTestId('user-status')).toHaveText(C.users.statuses.invited);
    await expect(row).toContainText(C.users.roles.staff);
    await shot(page, 'admin-users');

    // The last administrator stays one: the API's refusal, as it says it.
    await page.getByTestId('users').locator('tbody tr', { hasText: DEMO.username }).getByRole('link').first().click();
    await page.getByRole('combobox', { name: C.users.role }).click();
    await page.getByRole('option', { name: C.users.roles.staff }).click();
    await page.getByRole('button', { name: en.ra.action.save }).click();
    await expect(toast(page, AdminMessages.lastAdmin)).toBeVisible();

    // The invitation from the outbox: the set-password page says whose account, takes the password twice.
    const link = await passwordLink(page, email, 'user-invitation');
    await page.getByRole('button', { name: Messages.signOut }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto(link);
    await expect(page.getByTestId('link-account')).toContainText(username);
    await page.getByLabel(C.setPassword.password, { exact: true }).fill(password);
    await page.getByLabel(C.setPassword.repeat, { exact: true }).fill('something else');
    await page.getByRole('button', { name: C.setPassword.submit }).click();
    await expect(page.getByTestId('password-problem')).toHaveText(C.setPassword.mismatch);
    await page.getByLabel(C.setPassword.repeat, { exact: true }).fill(password);
    await page.getByRole('button', { name: C.setPassword.submit }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByTestId('sign-in-notice')).toHaveText(AdminMessages.passwordSet);
    // The link is used up.
    await page.goto(link);
    await expect(page.getByTestId('link-invalid')).toHaveText(AdminMessages.passwordLinkInvalid);

    // The staff user signs in and sends a request; no administration in the menu, and its pages say not allowed.
    await signIn(page, username, password);
    await expect(menu(page, Messages.navDashboard)).toBeVisible();
    for (const name of [C.layout.users, C.layout.apiKeys, C.layout.webhooks, C.layout.deliveries, Messages.navSettings])
      await expect(menu(page, name)).toHaveCount(0);
    const draft = await uploadDraft(page);
    await processDraft(page, draft.refId);
    await page.reload();
    await expect(page.locator('[data-testid="requests"] tbody tr').first()).toContainText(String(draft.refId));
    for (const route of [
      StaffRoutes.users,
      StaffRoutes.apiKeys,
      StaffRoutes.webhooks,
      StaffRoutes.deliveries,
      StaffRoutes.settings,
    ]) {
      await page.goto(route);
      await expect(page.getByTestId('not-allowed')).toContainText(C.notAllowed.title);
      await expect(page.getByTestId('users')).toHaveCount(0);
    }
    await shot(page, 'admin-not-allowed');
    const refused = await page.request.get('/api/users', { headers: { apikey: await apiKey(page) } });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).message).toBe(AdminMessages.adminOnly);

    // Back as the administrator: disable the user (who then cannot sign in), re-enable, reset the password.
    await page.getByRole('button', { name: Messages.signOut }).click();
    await signInAsDemo(page);
    await page.goto(StaffRoutes.users);
    const user = page.getByTestId('users').locator('tbody tr', { hasText: username });
    await user.getByRole('button', { name: C.users.disable }).click();
    await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
    await expect(user.getByTestId('user-status')).toHaveText(C.users.statuses.disabled);
    await user.getByRole('button', { name: C.users.enable }).click();
    await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
    await expect(user.getByTestId('user-status')).toHaveText(C.users.statuses.active);
    await user.getByRole('button', { name: C.users.resetPassword }).click();
    await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
    await expect(toast(page, fill(AdminMessages.resetSent, { email }))).toBeVisible();
    expect(await passwordLink(page, email, 'password-reset')).toContain('/set-password?token=');
  });
});

/** A webhook receiver on the loopback: keeps each delivery, checks its HMAC with the secret it is given. */
interface Received {
  event: string;
  delivery: string;
  body: string;
  verified: boolean;
}
function startReceiver(): Promise<{ server: Server; url: string; received: Received[]; secret: { value: string } }> {
  const received: Received[] = [];
  const secret = { value: '' };
  const verify = (headers: IncomingHttpHeaders, body: string) => {
    const timestamp = String(headers[WebhookHeaders.timestamp] ?? '');
    const expected = `sha256=${createHmac('sha256', secret.value).update(`${timestamp}.${body}`).digest('hex')}`;
    return Boolean(secret.value) && headers[WebhookHeaders.signature] === expected;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry: Received = {
        event: String(req.headers[WebhookHeaders.event] ?? ''),
        delivery: String(req.headers[WebhookHeaders.delivery] ?? ''),
        body,
        verified: verify(req.headers, body),
      };
      received.push(entry);
      res.writeHead(entry.verified ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ received: received.length, event: entry.event, verified: entry.verified }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, secret }),
    ),
  );
}

test.describe('API keys, esign-cli and webhooks', () => {
  test('an administrator creates an API key and a webhook; esign-cli sends with the key; the deliveries are HMAC-checked and listed; one is sent again', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const receiver = await startReceiver();
    const home = mkdtempSync(path.join(tmpdir(), 'esign-cli-home-'));
    try {
      await signInAsDemo(page);

      // The API key: shown once with a copy button, then only its first characters.
      const keyName = `CI ${unique()}`;
      await menu(page, C.layout.apiKeys).click();
      await page.getByRole('link', { name: C.apiKeys.create }).click();
      await page.getByLabel(C.apiKeys.name, { exact: true }).fill(keyName);
      await page.getByRole('button', { name: en.ra.action.save }).click();
      const dialog = page.getByRole('dialog', { name: C.apiKeys.keyTitle });
      await expect(dialog).toContainText(C.apiKeys.keyOnce);
      await expect(dialog.getByRole('button', { name: C.common.copy })).toBeVisible();
      const key = (await dialog.getByTestId('shown-once').textContent()) as string;
      expect(key.length).toBeGreaterThan(20);
      await shot(page, 'admin-api-key-once');
      await dialog.getByRole('button', { name: C.apiKeys.done }).click();
      const keyRow = page.getByTestId('api-keys').locator('tbody tr', { hasText: keyName });
      await expect(keyRow.getByTestId('key-state')).toHaveText(C.apiKeys.active);
      await expect(page.getByTestId('api-keys')).not.toContainText(key);

      // The webhook, every event: its secret shown once.
      await menu(page, C.layout.webhooks).click();
      await page.getByRole('link', { name: C.webhooks.create }).click();
      await page.getByLabel(C.webhooks.url, { exact: true }).fill(receiver.url);
      await page.getByRole('button', { name: en.ra.action.save }).click();
      const secretDialog = page.getByRole('dialog', { name: C.webhooks.secretTitle });
      receiver.secret.value = (await secretDialog.getByTestId('shown-once').textContent()) as string;
      expect(receiver.secret.value).toMatch(/^whsec_/);
      await secretDialog.getByRole('button', { name: C.apiKeys.done }).click();
      await expect(page).toHaveURL(/\/webhooks\/[^/]+\/show$/);
      const webhookPage = page.url();

      // esign-cli sends with the key.
      const cli = execFileSync(
        process.execPath,
        [
          path.join(repoRoot, 'cli', 'dist', 'index.js'),
          '--url',
          process.env.E2E_BASE_URL as string,
          '--key',
          key,
          '--json',
          'send',
          fixture('pdfs', 'normal.pdf'),
          '--signer',
          'Kiran Rao,kiran@example.in,9876512345,e-Signature',
          '--no-otp',
        ],
        { env: { ...process.env, HOME: home, ESIGN_API_KEY: '', ESIGN_URL: '' }, encoding: 'utf8' },
      );
      const refId = Number(/"refId"\s*:\s*(\d+)/.exec(cli)?.[1]);
      expect(refId).toBeGreaterThan(0);

      // The receiver gets the request's events, each signed with the secret.
      await expect
        .poll(() => receiver.received.filter((r) => r.body.includes(String(refId))).map((r) => r.event), {
          timeout: 60_000,
        })
        .toEqual(expect.arrayContaining(['request.submitted', 'party.invited']));
      expect(receiver.received.every((r) => r.verified)).toBe(true);

      // The deliveries on the webhook's page: delivered, 200, the receiver's answer as the body excerpt.
      await page.goto(webhookPage);
      const grid = page.getByTestId('deliveries');
      const submitted = grid.locator('tbody tr', { hasText: 'request.submitted' }).first();
      await expect(submitted.getByTestId('delivery-status')).toHaveText(C.deliveries.statuses.delivered);
      await expect(submitted).toContainText('200');
      await submitted.getByText('request.submitted').click();
      await expect(page.getByTestId('delivery-excerpt').first()).toContainText('"verified":true');
      await shot(page, 'admin-webhook-deliveries');

      // A new secret signs what is sent from now on: the delivery sent again verifies with it.
      await page.getByRole('button', { name: C.webhooks.rotate }).click();
      await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
      const rotated = page.getByRole('dialog', { name: C.webhooks.secretTitle });
      const newSecret = (await rotated.getByTestId('shown-once').textContent()) as string;
      expect(newSecret).not.toBe(receiver.secret.value);
      receiver.secret.value = newSecret;
      await rotated.getByRole('button', { name: C.apiKeys.done }).click();
      const before = receiver.received.length;
      const original = receiver.received.find((r) => r.event === 'request.submitted' && r.body.includes(String(refId)));
      await submitted.getByRole('button', { name: C.deliveries.redeliver }).click();
      await expect(toast(page, AdminMessages.redeliveryQueued)).toBeVisible();
      await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBeGreaterThan(before);
      const again = receiver.received[before];
      expect(again.event).toBe('request.submitted');
      expect(again.body).toBe(original?.body);
      expect(again.verified).toBe(true);

      // /deliveries lists every delivery, the redelivery naming the one it sends again.
      await menu(page, C.layout.deliveries).click();
      const all = page.getByTestId('deliveries');
      await expect(all.locator('tbody tr', { hasText: 'request.submitted' }).first()).toBeVisible();
      await all.locator('tbody tr', { hasText: 'request.submitted' }).first().getByText('request.submitted').click();
      await expect(page.getByTestId('delivery-answer').first()).toContainText('Resends #');

      // Revoking the key stops esign-cli; deleting the webhook stops the deliveries.
      await menu(page, C.layout.apiKeys).click();
      await page
        .getByTestId('api-keys')
        .locator('tbody tr', { hasText: keyName })
        .getByRole('button', { name: C.apiKeys.revoke })
        .click();
      await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
      await expect(toast(page, fill(C.apiKeys.revoked, { name: keyName }))).toBeVisible();
      const status = await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } });
      expect(status.status()).toBe(401);
      await page.goto(webhookPage);
      await page.getByRole('button', { name: C.webhooks.delete }).click();
      await page.getByRole('dialog').getByRole('button', { name: en.ra.action.confirm }).click();
      await expect(page).toHaveURL(/\/webhooks$/);
    } finally {
      rmSync(home, { recursive: true, force: true });
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });
});

/** A CA made by OpenSSL and a leaf it issues, as PKCS#12 under `password` (with its chain). */
function makeSealP12(dir: string, name: string, cn: string, days: number, password: string) {
  const p = (file: string) => path.join(dir, `${name}-${file}`);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '400', '-keyout', p('ca.key'), '-out', p('ca.pem'),
    '-subj', `/O=Sealco Ltd/CN=${cn} CA`, '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign'); // prettier-ignore
  openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('leaf.key'), '-out', p('leaf.csr'),
    '-subj', `/O=Sealco Ltd/CN=${cn}`); // prettier-ignore
  writeFileSync(
    p('leaf.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
  );
  openssl('x509', '-req', '-in', p('leaf.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial',
    '-days', String(days), '-extfile', p('leaf.ext'), '-out', p('leaf.pem')); // prettier-ignore
  openssl('pkcs12', '-export', '-in', p('leaf.pem'), '-inkey', p('leaf.key'), '-certfile', p('ca.pem'),
    '-passout', `pass:${password}`, '-out', p('leaf.p12')); // prettier-ignore
  return { p12: p('leaf.p12'), caPem: p('ca.pem') };
}

test.describe('the organisation: seal certificate, logo and the reminder default', () => {
  test('an administrator imports a PKCS#12 and the next signed PDF carries that certificate; the logo and the reminder default', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    // An organisation of its own, so that the demo's seal and settings stay as the other journeys expect them.
    const orgId = `sealco${unique()}`;
    const admin = { username: `admin.${orgId}`, password: 'sealco admin passphrase' };
    manage('create-org', '--id', orgId, '--name', 'Sealco Ltd');
    manage(
      'create-user',
      '--org',
      orgId,
      '--username',
      admin.username,
      '--password',
      admin.password,
      '--role',
      'admin',
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'esign-seal-'));
    try {
      await signIn(page, admin.username, admin.password);
      await menu(page, Messages.navSettings).click();
      const seal = page.getByTestId('seal');
      await expect(seal.getByTestId('seal-info')).toHaveAttribute('data-source', 'development');
      await expect(seal).toContainText(C.organisation.sources.development);

      // A wrong password is refused with the API's message, and nothing changes.
      const officer = makeSealP12(dir, 'officer', 'Sealco Seal Officer', 365, 's3cret');
      await seal.getByTestId('p12-input').setInputFiles(officer.p12);
      await expect(seal.getByTestId('p12-name')).toHaveText('officer-leaf.p12');
      await seal.getByLabel(C.organisation.p12Password).fill('wrong');
      await seal.getByRole('button', { name: C.organisation.import }).click();
      await expect(seal.getByTestId('seal-problem')).toHaveText(AdminMessages.sealNotPkcs12);
      await expect(seal.getByTestId('seal-info')).toHaveAttribute('data-source', 'development');

      await seal.getByTestId('p12-input').setInputFiles(officer.p12);
      await seal.getByLabel(C.organisation.p12Password).fill('s3cret');
      await seal.getByRole('button', { name: C.organisation.import }).click();
      await expect(
        toast(page, fill(AdminMessages.sealImported, { subject: 'O=Sealco Ltd, CN=Sealco Seal Officer' })),
      ).toBeVisible();
      await expect(seal.getByTestId('seal-info')).toHaveAttribute('data-source', 'imported');
      await expect(seal.getByTestId('seal-subject')).toHaveText('O=Sealco Ltd, CN=Sealco Seal Officer');
      await expect(seal.getByTestId('seal-issuer')).toHaveText('O=Sealco Ltd, CN=Sealco Seal Officer CA');
      await expect(seal.getByTestId('seal-expiring')).toHaveCount(0);
      await shot(page, 'admin-seal-imported');

      // The next signed PDF carries that certificate: pdf-verify (pdfsig and OpenSSL) trusting the test's CA.
      const key = await apiKey(page);
      const refId = await completedRequest(page.request, key, 'Meena Pillai', orgId);
      const item = (await (
        await page.request.get(`/api/requests/${refId}`, { headers: { apikey: key } })
      ).json()) as RequestListItem;
      const pdf = await (await page.request.get(item.data[0].downloadUrl as string)).body();
      const file = path.join(dir, 'signed.pdf');
      writeFileSync(file, pdf);
      // Trusting the test's CA and the installation's development root (its timestamp authority stamps the signatures).
      const devRoot = path.join(process.env.E2E_DATA_DIR as string, 'pki', 'dev-root-ca.pem');
      const run = spawnSync(
        path.join(sharedDir(), 'tools', 'pdf-verify'),
        [file, '--ca', officer.caPem, '--ca', devRoot],
        {
          encoding: 'utf8',
        },
      );
      const verified = JSON.parse(run.stdout) as {
        signatures: { field: string; signer: string; valid: boolean; trusted: boolean }[];
      };
      const signatures = verified.signatures.filter((s) => !s.field.startsWith('esign_archive_'));
      expect(signatures.length).toBeGreaterThanOrEqual(2);
      for (const signature of signatures)
        expect(signature).toMatchObject({ signer: 'Sealco Seal Officer', valid: true });
      // The signer's signature chains to the test's CA (pdfsig, through NSS). (pdfsig says 'Unknown issue with
      // Certificate' of the seal's own signature by the same certificate: the API's own test checks the first only.)
      expect(signatures[0]).toMatchObject({ field: 'esign_party_1', trusted: true });

      // A certificate that ends within 30 days is imported with the warning.
      const short = makeSealP12(dir, 'short', 'Sealco Short Seal', 20, 's3cret');
      await seal.getByTestId('p12-input').setInputFiles(short.p12);
      await seal.getByLabel(C.organisation.p12Password).fill('s3cret');
      await seal.getByRole('button', { name: C.organisation.import }).click();
      await expect(seal.getByTestId('seal-expiring')).toBeVisible();
      await expect(seal.getByTestId('seal-subject')).toHaveText('O=Sealco Ltd, CN=Sealco Short Seal');

      // The logo: an SVG with a script is refused with the API's message; a PNG is shown in the top bar.
      const logo = page.getByTestId('organisation');
      writeFileSync(
        path.join(dir, 'bad.svg'),
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      );
      await logo.getByTestId('logo-input').setInputFiles(path.join(dir, 'bad.svg'));
      await expect(toast(page, AdminMessages.logoUnsafeSvg)).toBeVisible();
      writeFileSync(path.join(dir, 'logo.png'), Buffer.from(PNG, 'base64'));
      await logo.getByTestId('logo-input').setInputFiles(path.join(dir, 'logo.png'));
      await expect(toast(page, C.organisation.logoSaved)).toBeVisible();
      // The top bar hides while the page scrolls down: back to the top to see it.
      await page.evaluate(() => window.scrollTo(0, 0));
      const topBar = page.getByRole('banner').getByTestId('org-logo');
      await expect(topBar).toHaveAttribute('src', new RegExp(`/docs/logos/${orgId}\\.png\\?v=1$`));
      await expect
        .poll(() => topBar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBeGreaterThan(0);

      // The reminder default: Initiate Request then starts with Set Reminder ticked and that duration.
      await page.getByTestId('reminder-default').click();
      await page.getByRole('option', { name: '1 day' }).click();
      await page.getByRole('button', { name: Messages.settingsSave, exact: true }).click();
      await expect(toast(page, Messages.settingsSaved)).toBeVisible();
      await page.goto(StaffRoutes.requestInitiate);
      await expect(page.getByRole('checkbox', { name: Messages.setReminder })).toBeChecked();
      await expect(page.getByRole('radio', { name: '1 day' })).toBeChecked();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
