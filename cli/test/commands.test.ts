import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestMessages, formatDateTime } from '@esign/contract';
import { DEMO, runCli, startApi, type StartedApi } from './support/api-server';
import { fixturePdf, signaturePngDataUrl } from './support/fixtures';

/** The recipient's calls (api/test/support/signing.ts signAs): opened, signing, method 2, a drawn signature. */
async function signAs(url: string, signUrl: string, orgId: string, refId: number, order: number): Promise<void> {
  const token = new URL(signUrl).searchParams.get('token') as string;
  const headers = { 'x-sign-token': token, 'content-type': 'application/json' };
  const base = `${url}/v1`;
  const path = `${orgId}/${refId}/${order}`;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetchRetry(`${base}/${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const ref = (await call('GET', `reference/${path}`)) as { request: { requestId: string } };
  const requestId = ref.request.requestId;
  await call('POST', `signer_details/${path}`, {
    status: 'opened',
    userAgent: { OS: 'Linux', Browser: 'Firefox 130' },
  });
  await call('POST', `signer_details/${path}`, { status: 'signing' });
  await call('GET', `init/${orgId}/${requestId}?method=2`);
  await call('POST', `esignature/${orgId}/${requestId}`, {
    file: signaturePngDataUrl(),
  });
}

/** fetch, once more when the server closed an idle kept-alive connection under us ("other side closed"). */
async function fetchRetry(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

const PDF = () => fixturePdf();

describe('esign-cli account and request commands against the built API', () => {
  let api: StartedApi;
  let home: string;
  const cli = (args: string[], input?: string) => runCli(['--url', api.url, ...args], { home, input });
  const profileFile = () => join(home, '.config', 'esign-cli', 'profile.json');

  beforeAll(async () => {
    api = await startApi();
    home = mkdtempSync(join(tmpdir(), 'esign-cli-home-'));
  });

  afterAll(async () => {
    await api?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('refuses a wrong password with exit 3 and one line', () => {
    const run = cli(['login', '--username', DEMO.username, '--password-stdin'], 'wrong-password\n');
    expect(run.code).toBe(3);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^esign-cli: /);
    expect(existsSync(profileFile())).toBe(false);
  });

  it('asks for the password flag when not interactive', () => {
    const run = cli(['login', '--username', DEMO.username]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--password-stdin');
  });

  it('signs in with a password from stdin: a 0600 profile, and whoami shows demo', () => {
    const run = cli(['login', '--username', DEMO.username, '--password-stdin'], `${DEMO.password}\n`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(statSync(profileFile()).mode & 0o777).toBe(0o600);
    const who = cli(['whoami']);
    expect(who.code).toBe(0);
    expect(who.stdout).toContain(DEMO.username);
    expect(who.stdout).toContain(DEMO.orgId);
    const json = JSON.parse(cli(['--json', 'whoami']).stdout);
    expect(json).toMatchObject({ orgId: DEMO.orgId, username: DEMO.username, kind: 'session', url: api.url });
  });

  it('checks and saves an organisation API key read from stdin', async () => {
    const session = JSON.parse(readFileSync(profileFile(), 'utf8')).key as string;
    const res = await fetchRetry(`${api.url}/api/api-keys`, {
      method: 'POST',
      headers: { apikey: session, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci-runner' }),
    });
    const { key } = (await res.json()) as { key: string };
    const keyHome = mkdtempSync(join(tmpdir(), 'esign-cli-key-'));
    try {
      const login = runCli(['--url', api.url, 'login', '--api-key-stdin'], { home: keyHome, input: `${key}\n` });
      expect(login.stderr).toBe('');
      expect(login.code).toBe(0);
      const who = JSON.parse(runCli(['--url', api.url, '--json', 'whoami'], { home: keyHome }).stdout);
      expect(who).toMatchObject({ orgId: DEMO.orgId, kind: 'api-key', keyName: 'ci-runner', username: null });
      const bare = runCli(['--url', api.url, '--json', 'list'], { home: home, env: { ESIGN_API_KEY: key } });
      expect(bare.code).toBe(0);
      const refused = runCli(['--url', api.url, 'login', '--api-key-stdin'], { home: keyHome, input: 'esk_wrong\n' });
      expect(refused.code).toBe(3);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(keyHome, { recursive: true, force: true });
    }
  });

  it('refuses bad signer specs locally (exit 2) and creates no request', async () => {
    const bad = cli(['send', PDF(), '--signer', 'Asha Rao,not-an-email,9876543210,e-Signature']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('esign-cli: Recipient 1: Please enter valid email address.');
    const seven = Array.from({ length: 7 }, (_, i) => ['--signer', `P${i},p${i}@example.in,98765432${10 + i},Aadhaar`]);
    const many = cli(['send', PDF(), ...seven.flat()]);
    expect(many.code).toBe(2);
    expect(many.stderr.trim()).toBe('esign-cli: A request can have at most 6 recipients.');
    const type = cli(['send', PDF(), '--signer', 'Asha,asha@example.in,9876543210,Pen']);
    expect(type.code).toBe(2);
    expect(type.stderr).toContain('Please select a signature type');
    // The API's own check (a page the PDF does not have): its message, exit 2, and the draft is removed again.
    const page = cli(['--json', 'send', PDF(), '--signer', 'Asha,asha@example.in,9876543210,Aadhaar', '--page', '9']);
    expect(page.code).toBe(2);
    expect(JSON.parse(page.stdout)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: expect.stringMatching(/^Page 9 does not exist in this document/),
    });
    const list = JSON.parse(cli(['--json', 'list']).stdout);
    expect(list).toEqual([]);
    const key = JSON.parse(readFileSync(profileFile(), 'utf8')).key as string;
    const drafts = await fetchRetry(`${api.url}/v1/drafts/${DEMO.orgId}`, { headers: { apikey: key } });
    expect(((await drafts.json()) as { total: number }).total).toBe(0);
  });

  let refId = 0;

  it('sends a PDF to two signers and a copy: the Ref ID and two sign links', () => {
    const run = cli([
      '--json',
      'send',
      PDF(),
      '--signer',
      'Asha Rao,asha@example.in,+91 98765 43210,e-Signature',
      '--signer',
      'Vikram Shah,vikram@example.in,9123456789,Aadhaar',
      '--copy',
      'Meera Iyer,meera@example.in,+919988776655',
      '--page',
      '1',
      '--reminder',
      '24',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { refId: number; recipients: Array<{ order: number; sign_url: string }> };
    expect(out.refId).toBeGreaterThan(0);
    expect(out.recipients.map((r) => r.order)).toEqual([1, 2]);
    for (const r of out.recipients) expect(r.sign_url).toMatch(/^http.*token=/);
    refId = out.refId;
  });

  it('shows the status with every party', () => {
    const run = cli(['status', String(refId)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('in-progress');
    for (const name of ['Asha Rao', 'Vikram Shah', 'Meera Iyer']) expect(run.stdout).toContain(name);
    expect(run.stdout).toMatch(/Meera Iyer\s+copy/);
    const json = JSON.parse(cli(['--json', 'status', String(refId)]).stdout);
    expect(json.parties).toHaveLength(3);
  });

  it('refuses to download an unfinished request', () => {
    const run = cli(['download', String(refId), '-o', join(home, 'x.pdf')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not completed');
  });

  it('downloads the signed PDF once the only signer has signed', async () => {
    const sent = cli([
      '--json',
      'send',
      PDF(),
      '--no-otp',
      '--signer',
      'Asha Rao,asha@example.in,9876543210,e-Signature',
    ]);
    expect(sent.code).toBe(0);
    const { refId: one, recipients } = JSON.parse(sent.stdout) as {
      refId: number;
      recipients: Array<{ order: number; sign_url: string }>;
    };
    await signAs(api.url, recipients[0].sign_url, DEMO.orgId, one, 1);
    let status = '';
    for (let i = 0; i < 100 && status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = JSON.parse(cli(['--json', 'status', String(one)]).stdout).status;
    }
    expect(status).toBe('completed');
    const file = join(home, 'signed.pdf');
    let run = cli(['download', String(one), '-o', file]);
    for (let i = 0; i < 20 && run.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      run = cli(['download', String(one), '-o', file]);
    }
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const pdf = readFileSync(file);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.includes('/ByteRange')).toBe(true);

    const shown = JSON.parse(cli(['--json', 'status', String(one)]).stdout);
    expect(shown.parties[0]).toMatchObject({ status: 'completed', method: 'e-Signature' });
    expect(shown.completed).toEqual(expect.any(String));

    const list = JSON.parse(cli(['--json', 'list']).stdout) as Array<{ refId: number }>;
    expect(list.map((r) => r.refId)).toEqual(expect.arrayContaining([refId, one]));
    const completed = JSON.parse(cli(['--json', 'list', '--status', 'completed']).stdout) as Array<{ refId: number }>;
    expect(completed.map((r) => r.refId)).toEqual([one]);

    const today = new Date().toISOString().slice(0, 10);
    const csv = cli(['report', '--from', today, '--to', today, '--format', 'csv']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('refId,filename,status,created,completed,duration_seconds,parties');
    const row = lines.find((l) => l.startsWith(`${one},`));
    expect(row).toContain('completed by e-Signature');
    expect(lines.some((l) => l.startsWith(`${refId},`))).toBe(true);
    const json = JSON.parse(cli(['report', '--from', today, '--to', today, '--format', 'json']).stdout);
    expect(json.find((r: { refId: number }) => r.refId === one).duration_seconds).toEqual(expect.any(Number));
  });

  it("shows who rejected a request, when (in the organisation's time zone) and why", async () => {
    const sent = cli([
      '--json',
      'send',
      PDF(),
      '--no-otp',
      '--signer',
      'Asha Rao,asha@example.in,9876543210,e-Signature',
      '--signer',
      'Vikram Shah,vikram@example.in,9123456789,e-Signature',
    ]);
    expect(sent.code).toBe(0);
    const { refId: rejected, recipients } = JSON.parse(sent.stdout) as {
      refId: number;
      recipients: Array<{ order: number; sign_url: string }>;
    };
    const token = new URL(recipients[1].sign_url).searchParams.get('token') as string;
    const res = await fetchRetry(`${api.url}/v1/esign/reject/${DEMO.orgId}/${rejected}/2`, {
      method: 'POST',
      headers: { 'x-sign-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ remark: 'The fee in clause 3 is wrong.' }),
    });
    expect(res.status).toBe(200);

    const json = JSON.parse(cli(['--json', 'status', String(rejected)]).stdout);
    expect(json.status).toBe('rejected');
    const vikram = json.parties.find((p: { order: number }) => p.order === 2);
    expect(vikram).toMatchObject({ status: 'rejected', remark: 'The fee in clause 3 is wrong.' });
    expect(Number.isNaN(Date.parse(vikram.rejected_at))).toBe(false);
    expect(json.parties.find((p: { order: number }) => p.order === 1).rejected_at).toBeNull();

    const run = cli(['status', String(rejected)]);
    expect(run.code).toBe(0);
    const when = formatDateTime(vikram.rejected_at, 'Asia/Kolkata');
    expect(when).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} [ap]m IST$/);
    expect(run.stdout).toContain(`Rejected by 2. Vikram Shah on ${when}`);
    expect(run.stdout).toContain('Remark:  The fee in clause 3 is wrong.');
    expect(run.stdout).toContain(`Created: ${formatDateTime(json.created, 'Asia/Kolkata')}`);
    // No ISO 8601 time in what a person reads.
    expect(run.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    const listed = cli(['list', '--status', 'rejected']);
    expect(listed.stdout).toContain(formatDateTime(json.created, 'Asia/Kolkata'));
    expect(listed.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
  });

  it('answers errors as JSON with --json', () => {
    const run = cli(['--json', 'status', '999999']);
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, exitCode: 4, error: expect.any(String) });
    const usage = cli(['--json', 'send', PDF(), '--signer', 'x,bad,1,Aadhaar']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({ ok: false, exitCode: 2 });
  });

  it("sends each recipient's language (--signer and --copy), and refuses one it does not have", () => {
    const bad = cli(['send', PDF(), '--signer', 'Asha,asha@example.in,9876543210,Aadhaar,fr']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(`esign-cli: Recipient 1: ${RequestMessages.languageInvalid}`);
    const run = cli([
      '--json',
      'send',
      PDF(),
      '--signer',
      'Kavita Sharma,kavita@example.in,9876543210,e-Signature,hi',
      '--signer',
      'Vikram Shah,vikram@example.in,9123456789,Aadhaar',
      '--copy',
      'Meenakshi Sundaram,meena@example.in,9988776655,TA',
    ]);
    expect(run.code).toBe(0);
    const sent = JSON.parse(run.stdout) as { refId: number };
    const status = JSON.parse(cli(['--json', 'status', String(sent.refId)]).stdout) as {
      parties: Array<{ name: string; language: string | null }>;
    };
    expect(status.parties.map((p) => [p.name, p.language])).toEqual([
      ['Kavita Sharma', 'hi'],
      ['Vikram Shah', null],
      ['Meenakshi Sundaram', 'ta'],
    ]);
  });

  it('lists the templates (none yet)', () => {
    const run = cli(['--json', 'templates']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('logs out: the profile goes, the key is revoked, and status then exits 3', () => {
    const key = JSON.parse(readFileSync(profileFile(), 'utf8')).key as string;
    const run = cli(['logout']);
    expect(run.code).toBe(0);
    expect(existsSync(profileFile())).toBe(false);
    const after = cli(['status', String(refId)]);
    expect(after.code).toBe(3);
    expect(after.stderr.trim().split('\n')).toHaveLength(1);
    const revoked = cli(['--key', key, 'whoami']);
    expect(revoked.code).toBe(3);
  });
});
