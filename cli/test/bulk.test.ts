/**
 * esign-cli bulk against the built API (api/dist) and the built CLI (cli/dist): no mocks. A 200-row CSV with 10 bad
 * rows; then a run killed half-way and run again (resumed by the rows' client references).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoSessionKey, runCli, spawnCli, startApi, type StartedApi } from './support/api-server';
import { fixturePdf } from './support/fixtures';

jest.setTimeout(180_000);

const HEADER = [
  'reference',
  'file',
  ...[1, 2, 3, 4, 5, 6, 7].flatMap((n) => [`name${n}`, `email${n}`, `phone${n}`, `type${n}`]),
];

/** The 10 bad rows (by data row index 0..199) and the reason the output must give. */
const BAD: Record<number, { cells: (row: string[]) => void; reason: RegExp }> = {
  7: { cells: (r) => (r[3] = ''), reason: /Recipient 1: Please fill the form\(s\) details \(email1 is empty\)/ },
  23: { cells: (r) => (r[3] = 'not-an-email'), reason: /Recipient 1: Please enter valid email address/ },
  41: { cells: (r) => (r[4] = '12345'), reason: /Recipient 1: Please enter a valid Indian phone number/ },
  55: { cells: (r) => (r[1] = 'missing.pdf'), reason: /File not found: missing\.pdf/ },
  68: {
    cells: (r) => {
      for (let n = 2; n <= 7; n++) r.splice(2 + (n - 1) * 4, 4, `P${n}`, `p${n}@example.in`, '9876543210', 'Aadhaar');
    },
    reason: /at most 6 recipients/,
  },
  90: { cells: (r) => (r[5] = 'copy'), reason: /At least one recipient must need to sign/ },
  111: { cells: (r) => (r[5] = 'Wet ink'), reason: /Recipient 1: Please select a signature type/ },
  130: { cells: (r) => (r[1] = ''), reason: /Please choose a PDF file to upload/ },
  151: { cells: (r) => (r[8] = '+1 555 123 4567'), reason: /Recipient 2: Please enter a valid Indian phone number/ },
  177: { cells: (r) => (r[2] = ''), reason: /Recipient 1: Please fill the form\(s\) details \(name1 is empty\)/ },
};

/** 200 rows (1 or 2 signers, some with a copy-receiver), 10 of them bad; `withReference` false derives the references. */
function writeCsv(dir: string, name: string, prefix: string, withReference = true): string {
  const lines = [(withReference ? HEADER : HEADER.slice(1)).join(',')];
  for (let i = 0; i < 200; i++) {
    const row = new Array(HEADER.length).fill('');
    row[0] = `${prefix}-${i}`;
    row[1] = 'doc.pdf';
    row.splice(2, 4, `Signer ${i}`, `s${i}@example.in`, `98765${String(i).padStart(5, '0')}`, 'e-Signature');
    if (i % 2) row.splice(6, 4, `Second ${i}`, `t${i}@example.in`, '+91 91234 56789', 'Aadhaar');
    if (i % 5 === 0) row.splice(10, 4, `Copy ${i}`, `c${i}@example.in`, '09988776655', 'copy');
    BAD[i]?.cells(row);
    lines.push((withReference ? row : row.slice(1)).join(','));
  }
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('esign-cli bulk', () => {
  let api: StartedApi;
  let home: string;
  let dir: string;
  let env: Record<string, string>;
  /** Every request of the demo organisation: sent and drafts. */
  const counts = async () => {
    const get = async (path: string): Promise<number> => {
      // Once more on a refused socket: runCli blocks this process, and a kept-alive connection may have timed out.
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await fetch(`${api.url}${path}?limit=1`, { headers: { apikey: env.ESIGN_API_KEY } });
          return ((await res.json()) as { total: number }).total;
        } catch (error) {
          if (attempt >= 3) throw error;
        }
      }
    };
    const [sent, drafts] = await Promise.all([get('/v1/request_all/demo'), get('/v1/drafts/demo')]);
    return { sent, drafts, all: sent + drafts };
  };
  const resultsOf = (file: string) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(','));

  beforeAll(async () => {
    api = await startApi();
    home = mkdtempSync(join(tmpdir(), 'esign-cli-bulk-home-'));
    dir = mkdtempSync(join(tmpdir(), 'esign-cli-bulk-'));
    copyFileSync(fixturePdf(), join(dir, 'doc.pdf'));
    env = { ESIGN_URL: api.url, ESIGN_API_KEY: await demoSessionKey(api.url) };
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks the rows with --dry-run and sends nothing', async () => {
    const csv = writeCsv(dir, 'dry.csv', 'dry');
    const run = runCli(['bulk', csv, '--dry-run'], { env, home });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/valid\s+190/);
    expect(run.stdout).toMatch(/bad rows\s+10/);
    expect((await counts()).all).toBe(0);
    expect(existsSync(`${csv}.results.csv`)).toBe(false);
  });

  it('refuses an unusable CSV with exit code 2', () => {
    const csv = join(dir, 'broken.csv');
    writeFileSync(csv, 'who,what\nx,y\n');
    const run = runCli(['bulk', csv], { env, home });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/needs recipient columns name1,email1/);
    expect(runCli(['bulk', join(dir, 'absent.csv')], { env, home }).code).toBe(2);
    expect(runCli(['bulk', csv, '--concurrency', '17'], { env, home }).code).toBe(2);
  });

  it('sends 190 of 200 rows, and names the 10 bad rows with their reasons (exit 1)', async () => {
    const csv = writeCsv(dir, 'batch.csv', 'batch');
    const started = Date.now();
    const run = runCli(['bulk', csv, '--concurrency', '8'], { env, home });
    console.log(`bulk: 200 rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(run.stderr).not.toMatch(/row \d+: .*(answered|Cannot reach)/);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^sent\s+190$/m);
    expect(run.stdout).toMatch(/^bad rows\s+10$/m);
    expect(await counts()).toEqual({ sent: 190, drafts: 0, all: 190 });

    const results = resultsOf(`${csv}.results.csv`);
    expect(results).toHaveLength(200);
    const bad = results.filter((r) => r[3] === 'bad row');
    expect(bad.map((r) => Number(r[0]))).toEqual(Object.keys(BAD).map((i) => Number(i) + 2));
    for (const [i, { reason }] of Object.entries(BAD)) {
      const line = readFileSync(`${csv}.results.csv`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith(`${Number(i) + 2},`));
      expect(line).toMatch(reason);
      expect(run.stdout).toMatch(new RegExp(`^${Number(i) + 2}\\s+batch-${i}\\s+bad row\\s+.*${reason.source}`, 'm'));
    }
    expect(results.filter((r) => r[3] === 'sent').every((r) => /^\d{10}$/.test(r[2]))).toBe(true);

    // The same file again: nothing new, every good row "already sent".
    const again = runCli(['bulk', csv, '--concurrency', '8', '--json'], { env, home });
    expect(again.code).toBe(1);
    const json = JSON.parse(again.stdout) as { summary: Record<string, number>; rows: Array<{ status: string }> };
    expect(json.summary).toEqual({ rows: 200, sent: 0, alreadySent: 190, failed: 0, badRows: 10 });
    expect((await counts()).all).toBe(190);
  });

  it('resumes a run killed half-way: 190 requests in all, the rest reported as already sent', async () => {
    const before = (await counts()).all;
    // No reference column: the references are derived from the file name, row number and row content.
    const csv = writeCsv(dir, 'resume.csv', 'unused', false);
    const child = spawnCli(['bulk', csv, '--concurrency', '8'], { env, home });
    let exited = false;
    child.once('exit', () => (exited = true));
    for (let i = 0; i < 1200 && !exited; i++) {
      if ((await counts()).all - before >= 90) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(exited).toBe(false);
    const gone = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await gone;
    const midway = (await counts()).all - before;
    expect(midway).toBeGreaterThanOrEqual(90);
    expect(midway).toBeLessThan(190);

    const run = runCli(['bulk', csv, '--concurrency', '8', '--json'], { env, home });
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as {
      summary: Record<string, number>;
      rows: Array<{ row: number; status: string; error: string | null }>;
    };
    expect(json.summary.failed).toBe(0);
    expect(json.summary.badRows).toBe(10);
    expect(json.summary.sent + json.summary.alreadySent).toBe(190);
    expect(json.summary.alreadySent).toBeGreaterThanOrEqual(80);
    expect(json.summary.sent).toBeGreaterThan(0);
    const after = await counts();
    expect(after.all - before).toBe(190);
    expect(after.drafts).toBe(0);
    const results = resultsOf(`${csv}.results.csv`);
    expect(results.filter((r) => r[3] === 'already sent')).toHaveLength(json.summary.alreadySent);
  });
  it("takes each recipient's language (language1…6) and names a row whose language it does not have", async () => {
    const csv = join(dir, 'languages.csv');
    writeFileSync(
      csv,
      [
        'reference,file,name1,email1,phone1,type1,language1,name2,email2,phone2,type2,language2',
        'lang-1,doc.pdf,Kavita Sharma,lang1@example.in,9876543210,e-Signature,hi,Meena,lang2@example.in,9988776655,copy,ta',
        'lang-2,doc.pdf,Ravi Kumar,lang3@example.in,9876543211,e-Signature,fr,,,,,',
      ].join('\n') + '\n',
    );
    const run = runCli(['bulk', csv, '--json'], { env, home });
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { rows: Array<{ row: number; status: string; error: string | null }> };
    expect(json.rows.find((r) => r.row === 3)?.error).toBe(
      "Recipient 1: The recipient's language must be one of en, hi, bn, mr, ta, te, gu, kn. (fr)",
    );
    const list = (await (
      await fetch(`${api.url}/v1/request_all/demo`, { headers: { apikey: env.ESIGN_API_KEY } })
    ).json()) as { data: Array<{ data: Array<{ email: string; language: string | null }> }> };
    const parties = list.data.flatMap((r) => r.data).filter((p) => p.email.startsWith('lang'));
    expect(parties.map((p) => [p.email, p.language])).toEqual([
      ['lang1@example.in', 'hi'],
      ['lang2@example.in', 'ta'],
    ]);
  });
});
