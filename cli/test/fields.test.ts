/**
 * --field on `send` and `bulk` (issue 21): the spec parser (the contract's checks and messages), then the built CLI
 * (cli/dist) against the built API (api/dist), no mocks: the fields arrive on the right party, and a bulk CSV's
 * field:<id> column gives each row's request its own value.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIELD_PATTERNS, FieldMessages, fill, type FieldState, type RequestListItem } from '@esign/contract';
import { readBulkCsv, templatesToRead } from '../src/bulk/rows';
import { fieldSpecObject, fieldsForRecipients, parseFieldSpec, parseFieldSpecs } from '../src/core/fields';
import { CliError, ExitCode } from '../src/core/errors';
import { demoSessionKey, runCli, startApi, type StartedApi } from './support/api-server';
import { fixturePdf } from './support/fixtures';

jest.setTimeout(180_000);

/** The CliError a parse throws (a usage error), or fails the test. */
function refused(work: () => unknown): CliError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.usage);
    return error as CliError;
  }
  throw new Error('expected the spec to be refused');
}

describe('--field specs', () => {
  it('reads key=value pairs, the box with its commas, and bare flags', () => {
    const field = parseFieldSpec('signer=1,kind=text,label=PAN,page=1,box=72,640,272.5,662,required,pattern=PAN');
    expect(field).toMatchObject({
      signer: 1,
      kind: 'text',
      label: 'PAN',
      page: 1,
      box: [72, 640, 272.5, 662],
      required: true,
      pattern: 'PAN',
    });
    expect(parseFieldSpec('kind=text,page=2,box=10,10,60,30,optional').required).toBe(false);
    // A box last, and a box before a flag: the flag is not a fifth number.
    expect(parseFieldSpec('kind=name,page=1,editable,box=1,2,30,40').editable).toBe(true);
    expect(parseFieldSpec('kind=name,page=1,box=1,2,30,40,editable')).toMatchObject({
      box: [1, 2, 30, 40],
      editable: true,
    });
    // Defaults as the contract gives them: a checkbox is optional, other kinds required.
    expect(parseFieldSpec('kind=checkbox,page=1,box=1,2,30,40').required).toBe(false);
    expect(parseFieldSpec('KIND=text,Page=1,BOX=1,2,30,40,MaxLength=12').maxLength).toBe(12);
  });

  it('takes double-quoted values with commas (and "" for a quote)', () => {
    expect(fieldSpecObject('label="Address, line 1",kind=text,box="1,2,30,40",page=2')).toEqual({
      label: 'Address, line 1',
      kind: 'text',
      box: '1,2,30,40',
      page: '2',
    });
    const field = parseFieldSpec(
      'kind=radio,page=1,box=1,2,30,40,label="Plan ""A"", yearly",options="Basic, monthly|Premium"',
    );
    expect(field.label).toBe('Plan "A", yearly');
    expect(field.options).toEqual(['Basic, monthly', 'Premium']);
    const text = parseFieldSpec(
      'kind=text,page=1,box=1,2,30,40,pattern="[0-9]{2,4}",message="Two to four digits, please.",value=123',
    );
    expect(text).toMatchObject({ pattern: '[0-9]{2,4}', patternMessage: 'Two to four digits, please.', value: '123' });
    expect(parseFieldSpec('kind=dropdown,page=1,box=1,2,30,40,options=a|b|c,value=b')).toMatchObject({
      options: ['a', 'b', 'c'],
      value: 'b',
    });
  });

  it("refuses a bad spec with the contract's message and the spec", () => {
    const cases: Array<[string, string]> = [
      ['kind=stamp,page=1,box=1,2,30,40', FieldMessages.kindInvalid],
      ['page=1,box=1,2,30,40', FieldMessages.kindInvalid],
      ['kind=text,page=1,box=1,2,30', FieldMessages.boxInvalid],
      ['kind=text,page=1,box=30,2,1,40', FieldMessages.boxInvalid],
      ['kind=text,page=1', FieldMessages.boxInvalid],
      ['kind=text,box=1,2,30,40', fill(FieldMessages.pageInvalid, { total: 'its last page' })],
      ['kind=text,page=0,box=1,2,30,40', fill(FieldMessages.pageInvalid, { total: 'its last page' })],
      ['kind=text,page=1,box=1,2,30,40,signer=7', FieldMessages.signerInvalid],
      ['kind=text,page=1,box=1,2,30,40,id=no spaces', FieldMessages.idInvalid],
      ['kind=text,page=1,box=1,2,30,40,maxLength=0', FieldMessages.maxLengthInvalid],
      ['kind=text,page=1,box=1,2,30,40,pattern=[a-', FieldMessages.patternInvalid],
      [`kind=text,page=1,box=1,2,30,40,label=${'x'.repeat(101)}`, FieldMessages.labelTooLong],
      ['kind=dropdown,page=1,box=1,2,30,40', fill(FieldMessages.optionsRequired, { max: 30, length: 100 })],
      [
        'kind=text,label=PAN,page=1,box=1,2,30,40,pattern=PAN,value=ABC',
        fill(FieldMessages.prefillInvalid, { label: 'PAN', reason: FIELD_PATTERNS.PAN.message }),
      ],
      [
        'kind=date,page=1,box=1,2,30,40,value=today',
        fill(FieldMessages.prefillInvalid, {
          label: 'Date signed',
          reason: fill(FieldMessages.filledBySigning, { label: 'Date signed' }),
        }),
      ],
    ];
    for (const [spec, message] of cases)
      expect(refused(() => parseFieldSpec(spec)).message).toBe(`--field "${spec}": ${message}`);
  });

  it('refuses what is not key=value, an unknown key, a key twice and an open quote', () => {
    expect(refused(() => parseFieldSpec('kind=text,page=1,box=1,2,30,40,mandatory')).message).toMatch(
      /^--field "kind=text,page=1,box=1,2,30,40,mandatory": "mandatory" is neither key=value nor a flag/,
    );
    // A label with an unquoted comma leaves a piece that is neither.
    expect(refused(() => parseFieldSpec('kind=text,page=1,box=1,2,30,40,label=Address, line 1')).message).toMatch(
      /"line 1" is neither key=value nor a flag .*double quotes/,
    );
    expect(refused(() => parseFieldSpec('kind=text,page=1,box=1,2,30,40,colour=red')).message).toMatch(
      /unknown key "colour" \(keys: id, signer, kind, page, box, label, placeholder, maxLength, pattern, message,/,
    );
    expect(refused(() => parseFieldSpec('kind=text,page=1,box=1,2,30,40,required,optional')).message).toMatch(
      /required is given twice/,
    );
    expect(refused(() => parseFieldSpec('kind=text,page=1,box=1,2,30,40,label="Address, line 1')).message).toMatch(
      /a double quote is not closed/,
    );
  });

  it('gives ids (its own, else f1, f2…) and refuses one id twice, naming the spec', () => {
    const fields = parseFieldSpecs([
      'kind=text,page=1,box=1,2,30,40',
      'id=f1,kind=text,page=1,box=1,2,30,40',
      'id=pan,kind=text,page=1,box=1,2,30,40',
      'kind=checkbox,page=1,box=1,2,30,40',
    ]);
    expect(fields.map((f) => f.id)).toEqual(['f2', 'f1', 'pan', 'f3']);
    const twice = 'id=pan,kind=number,page=2,box=1,2,30,40';
    expect(refused(() => parseFieldSpecs(['id=pan,kind=text,page=1,box=1,2,30,40', twice])).message).toBe(
      `--field "${twice}": ${fill(FieldMessages.idDuplicate, { id: 'pan' })}`,
    );
    expect(refused(() => parseFieldSpecs(new Array(501).fill('kind=text,page=1,box=1,2,30,40'))).message).toBe(
      FieldMessages.tooManyFields,
    );
  });

  it("puts each field on its signer's list, and refuses a copy-receiver or a missing signer", () => {
    const recipients = [{ observer: false }, { observer: true }, { observer: false }];
    const fields = parseFieldSpecs([
      'signer=3,kind=text,page=1,box=1,2,30,40',
      'signer=1,kind=initials,page=1,box=1,2,30,40',
    ]);
    const placed = fieldsForRecipients(fields, recipients);
    expect(
      placed.ok && [...placed.bySigner.entries()].map(([order, list]) => [order, list.map((f) => f.kind)]),
    ).toEqual([
      [3, ['text']],
      [1, ['initials']],
    ]);
    // Only an id given with id= is sent: the API gives the others ids not taken in the request.
    const ids = fieldsForRecipients(
      parseFieldSpecs(['id=pan,signer=1,kind=text,page=1,box=1,2,30,40', 'signer=1,kind=text,page=1,box=1,2,30,40']),
      recipients,
    );
    expect(ids.ok && ids.bySigner.get(1)?.map((f) => f.id)).toEqual(['pan', undefined]);
    const copy = fieldsForRecipients(parseFieldSpecs(['signer=2,kind=text,page=1,box=1,2,30,40']), recipients);
    expect(copy).toEqual({
      ok: false,
      message: `--field "signer=2,kind=text,page=1,box=1,2,30,40": ${FieldMessages.signerInvalid} (recipient 2 receives a copy)`,
    });
    const absent = fieldsForRecipients(parseFieldSpecs(['signer=4,kind=text,page=1,box=1,2,30,40']), recipients);
    expect(!absent.ok && absent.message).toMatch(/there is no recipient 4/);
    // Left out: the only signer; with two signers it must be named.
    const one = fieldsForRecipients(parseFieldSpecs(['kind=text,page=1,box=1,2,30,40']), [
      { observer: true },
      { observer: false },
    ]);
    expect(one.ok && [...one.bySigner.keys()]).toEqual([2]);
    expect(fieldsForRecipients(parseFieldSpecs(['kind=text,page=1,box=1,2,30,40']), recipients).ok).toBe(false);
  });
});

describe('bulk rows with fields', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'esign-cli-field-rows-'));
    writeFileSync(join(dir, 'doc.pdf'), readFileSync(fixturePdf()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const csvOf = (name: string, lines: string[]) => {
    const file = join(dir, name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const fields = () =>
    parseFieldSpecs([
      'id=PAN,signer=2,kind=text,label=PAN,page=1,box=72,640,272,662,pattern=PAN',
      'id=agree,signer=1,kind=checkbox,page=1,box=72,600,86,614,value=false',
    ]);

  it("gives each row its own values (ids matched as written, else ignoring case); an empty cell keeps the field's", () => {
    const csv = csvOf('rows.csv', [
      'file,name1,email1,phone1,type1,name2,email2,phone2,type2,field:pan,FIELD:agree',
      'doc.pdf,A,a@example.in,9876543210,e-Signature,B,b@example.in,9876543211,Aadhaar,ABCDE1234F,true',
      'doc.pdf,C,c@example.in,9876543212,e-Signature,D,d@example.in,9876543213,Aadhaar,  pqrsx5678k ,',
    ]);
    const { rows } = readBulkCsv(csv, { fields: fields() });
    expect(rows[0].error).toBeNull();
    expect(rows[0].fields.map((f) => [f.id, f.signer, f.value])).toEqual([
      ['PAN', 2, 'ABCDE1234F'],
      ['agree', 1, 'true'],
    ]);
    // A PAN in lower case does not match the pattern: the row is refused, naming the column and the field.
    expect(rows[1].error).toBe(
      `field:PAN: ${fill(FieldMessages.prefillInvalid, { label: 'PAN', reason: FIELD_PATTERNS.PAN.message })}`,
    );
    const again = readBulkCsv(
      csvOf('rows2.csv', [
        'file,name1,email1,phone1,type1,name2,email2,phone2,type2,field:PAN',
        'doc.pdf,C,c@example.in,9876543212,e-Signature,D,d@example.in,9876543213,Aadhaar,',
      ]),
      { fields: fields() },
    );
    expect(again.rows[0].fields.map((f) => [f.id, f.value])).toEqual([
      ['PAN', null],
      ['agree', 'false'],
    ]);
  });

  it("takes a template's own field ids (its values go in fieldValues), and refuses unknown or unfillable columns", () => {
    const template = new Map([
      [
        'tpl',
        [
          {
            id: 'plan',
            signer: 1,
            kind: 'radio' as const,
            page: 1,
            box: [1, 2, 30, 40] as [number, number, number, number],
            required: true,
            options: ['Basic', 'Premium'],
          },
          {
            id: 'when',
            signer: 1,
            kind: 'date' as const,
            page: 1,
            box: [1, 50, 30, 90] as [number, number, number, number],
            required: false,
          },
        ],
      ],
    ]);
    const csv = csvOf('tpl.csv', [
      'name1,email1,phone1,type1,field:plan',
      'A,a@example.in,9876543210,e-Signature,Premium',
      'B,b@example.in,9876543211,e-Signature,Gold',
      'C,c@example.in,9876543212,e-Signature,',
    ]);
    expect(templatesToRead(csv, { template: 'tpl' })).toEqual(['tpl']);
    expect(templatesToRead(csv, { template: 'tpl', fields: [{ ...fields()[0], id: 'plan' }] })).toEqual([]);
    const { rows } = readBulkCsv(csv, { template: 'tpl', templateFields: template });
    expect(rows.map((r) => [r.fieldValues, r.error])).toEqual([
      [{ plan: 'Premium' }, null],
      [
        null,
        `field:plan: ${fill(FieldMessages.prefillInvalid, {
          label: 'Radio group',
          reason: fill(FieldMessages.notAnOption, { label: 'Radio group' }),
        })}`,
      ],
      [null, null],
    ]);
    expect(refused(() => readBulkCsv(csv, { template: 'tpl' })).message).toMatch(
      /the column field:plan names no field: define it with --field id=plan,… \(no --field given\)\.$/,
    );
    const date = csvOf('date.csv', ['name1,email1,phone1,type1,field:when', 'A,a@example.in,9876543210,e-Signature,x']);
    expect(refused(() => readBulkCsv(date, { template: 'tpl', templateFields: template })).message).toContain(
      'the column field:when cannot be used: ',
    );
    const twice = csvOf('twice.csv', [
      'name1,email1,phone1,type1,field:plan,field:PLAN',
      'A,a@example.in,9876543210,e-Signature,Basic,Basic',
    ]);
    expect(refused(() => readBulkCsv(twice, { template: 'tpl', templateFields: template })).message).toMatch(
      /two columns prefill the field plan/,
    );
  });
});

describe('esign-cli send and bulk with --field against the built API', () => {
  let api: StartedApi;
  let home: string;
  let dir: string;
  let env: Record<string, string>;
  const cli = (args: string[]) => runCli(args, { env, home });
  const requestOf = async (refId: number): Promise<RequestListItem> => {
    const res = await fetch(`${api.url}/api/requests/${refId}`, { headers: { apikey: env.ESIGN_API_KEY } });
    expect(res.status).toBe(200);
    return (await res.json()) as RequestListItem;
  };
  const fieldsOf = (request: RequestListItem, order: number): FieldState[] =>
    (request.data.find((p) => p.order === order) as { fields?: FieldState[] } | undefined)?.fields ?? [];
  const total = async () => {
    const get = async (path: string) =>
      (
        (await (await fetch(`${api.url}${path}?limit=1`, { headers: { apikey: env.ESIGN_API_KEY } })).json()) as {
          total: number;
        }
      ).total;
    return (await get('/v1/request_all/demo')) + (await get('/v1/drafts/demo'));
  };

  const SIGNERS = [
    '--signer',
    'Asha Rao,asha@example.in,9876543210,e-Signature',
    '--signer',
    'Vikram Shah,vikram@example.in,9123456789,Aadhaar',
    '--copy',
    'Meera Iyer,meera@example.in,9988776655',
  ];

  beforeAll(async () => {
    api = await startApi();
    home = mkdtempSync(join(tmpdir(), 'esign-cli-fields-home-'));
    dir = mkdtempSync(join(tmpdir(), 'esign-cli-fields-'));
    writeFileSync(join(dir, 'doc.pdf'), readFileSync(fixturePdf()));
    env = { ESIGN_URL: api.url, ESIGN_API_KEY: await demoSessionKey(api.url) };
  });
  afterAll(async () => {
    await api?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("sends fields with each signer's placement: GET /api/requests shows them on the right party", async () => {
    const run = cli([
      '--json',
      'send',
      fixturePdf(),
      ...SIGNERS,
      '--field',
      'id=pan,signer=1,kind=text,label=PAN,page=1,box=72,640,272,662,required,pattern=PAN',
      '--field',
      'signer=1,kind=text,label="Address, line 1",page=2,box=72,100,400,120,optional,maxLength=80,value="12, MG Road"',
      '--field',
      'id=plan,signer=2,kind=dropdown,label=Plan,page=1,box=300,640,500,662,options=Basic|Premium,value=Premium',
      '--field',
      'signer=2,kind=checkbox,label=I agree,page=2,box=72,700,86,714,required',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const { refId } = JSON.parse(run.stdout) as { refId: number };
    const request = await requestOf(refId);

    const first = fieldsOf(request, 1);
    expect(first.map((f) => f.id).sort()).toEqual(['f1', 'pan']);
    expect(first.find((f) => f.id === 'pan')).toMatchObject({
      signer: 1,
      kind: 'text',
      label: 'PAN',
      page: 1,
      box: [72, 640, 272, 662],
      required: true,
      pattern: 'PAN',
      value: null,
    });
    expect(first.find((f) => f.id === 'f1')).toMatchObject({
      label: 'Address, line 1',
      page: 2,
      required: false,
      maxLength: 80,
      value: '12, MG Road',
    });
    const second = fieldsOf(request, 2);
    expect(second.map((f) => [f.id, f.kind, f.signer])).toEqual(
      expect.arrayContaining([
        ['plan', 'dropdown', 2],
        [expect.stringMatching(/^f\d+$/), 'checkbox', 2],
      ]),
    );
    expect(second).toHaveLength(2);
    expect(second.find((f) => f.id === 'plan')).toMatchObject({ options: ['Basic', 'Premium'], value: 'Premium' });
    expect(fieldsOf(request, 3)).toEqual([]);
  });

  it('refuses a bad field before anything is sent (exit 2), with the message and the spec', async () => {
    const before = await total();
    const bad = cli(['send', fixturePdf(), ...SIGNERS, '--field', 'signer=1,kind=text,page=1,box=72,640,272']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      `esign-cli: --field "signer=1,kind=text,page=1,box=72,640,272": ${FieldMessages.boxInvalid}`,
    );
    const copy = cli(['send', fixturePdf(), ...SIGNERS, '--field', 'signer=3,kind=text,page=1,box=72,640,272,662']);
    expect(copy.code).toBe(2);
    expect(copy.stderr).toContain(`${FieldMessages.signerInvalid} (recipient 3 receives a copy)`);
    expect(await total()).toBe(before);
  });

  it("refuses a box off the page with the API's message, and leaves no draft behind", async () => {
    const before = await total();
    const run = cli([
      'send',
      fixturePdf(),
      ...SIGNERS,
      '--field',
      'signer=1,kind=text,label=PAN,page=1,box=500,700,700,720',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(fill(FieldMessages.boxOffPage, { label: 'PAN', page: 1, width: 612, height: 792 }));
    const page = cli(['send', fixturePdf(), ...SIGNERS, '--field', 'signer=1,kind=text,page=3,box=1,2,30,40']);
    expect(page.code).toBe(2);
    expect(page.stderr).toContain(fill(FieldMessages.pageInvalid, { total: 2 }));
    expect(await total()).toBe(before);
  });

  const FIELDS = [
    '--field',
    'id=pan,signer=1,kind=text,label=PAN,page=1,box=72,640,272,662,pattern=PAN',
    '--field',
    'id=plan,signer=1,kind=radio,label=Plan,page=1,box=72,600,272,630,options=Basic|Premium,value=Basic',
    '--field',
    'id=signed_on,signer=1,kind=date,page=1,box=300,640,400,662',
  ];
  const PANS = ['ABCDE1234F', 'PQRSX5678K', 'LMNOP0001Z', 'AAAAA9999A'];

  it("bulk: each row's field:<id> value prefills its own request; an empty cell keeps the field's own value", async () => {
    const lines = ['reference,file,name1,email1,phone1,type1,field:pan,field:PLAN'];
    PANS.forEach((pan, i) =>
      lines.push(
        `fields-${i},doc.pdf,Signer ${i},s${i}@example.in,98765${String(i).padStart(5, '0')},e-Signature,${pan},${i % 2 ? 'Premium' : ''}`,
      ),
    );
    const csv = join(dir, 'prefill.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const run = cli(['--json', 'bulk', csv, ...FIELDS]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as {
      summary: Record<string, number>;
      rows: Array<{ row: number; refId: number }>;
    };
    expect(json.summary).toMatchObject({ rows: 4, sent: 4, failed: 0, badRows: 0 });
    for (const [i, pan] of PANS.entries()) {
      const { refId } = json.rows.find((r) => r.row === i + 2) as { refId: number };
      const fields = fieldsOf(await requestOf(refId), 1);
      expect(fields.map((f) => f.kind).sort()).toEqual(['date', 'radio', 'text']);
      expect(fields.find((f) => f.id === 'pan')?.value).toBe(pan);
      expect(fields.find((f) => f.id === 'plan')?.value).toBe(i % 2 ? 'Premium' : 'Basic');
    }
  });

  /** A template of normal.pdf with one field for role 1: GSTIN (text, pattern GSTIN). */
  const gstinTemplate = async (): Promise<string> => {
    const form = new FormData();
    form.set('file', new Blob([readFileSync(fixturePdf())], { type: 'application/pdf' }), 'doc.pdf');
    form.set('template_name', 'KYC letter');
    form.set(
      'template_annotation',
      JSON.stringify({
        annotations: [],
        formFieldValues: {},
        fields: [
          { id: 'gstin', signer: 1, kind: 'text', label: 'GSTIN', page: 1, box: [72, 640, 272, 662], pattern: 'GSTIN' },
        ],
      }),
    );
    const res = await fetch(`${api.url}/v1/templates`, {
      method: 'POST',
      headers: { apikey: env.ESIGN_API_KEY },
      body: form,
    });
    const text = await res.text();
    expect([res.status, text]).toEqual([201, expect.any(String)]);
    const created = JSON.parse(text) as { data?: { id: string }; id?: string };
    return (created.data?.id ?? created.id) as string;
  };

  it("bulk from a template: a field:<id> column naming the template's own field prefills it per row", async () => {
    const templateId = await gstinTemplate();

    const GSTINS = ['27ABCDE1234F1Z5', '29PQRSX5678K1Z2', ''];
    const csv = join(dir, 'template.csv');
    writeFileSync(
      csv,
      [
        'reference,name1,email1,phone1,type1,field:gstin',
        ...GSTINS.map(
          (g, i) => `tpl-${i},Signer ${i},t${i}@example.in,98765${String(i).padStart(5, '0')},e-Signature,${g}`,
        ),
      ].join('\n'),
    );
    const run = cli(['--json', 'bulk', csv, '--template', templateId]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { rows: Array<{ row: number; refId: number; status: string }> };
    for (const [i, gstin] of GSTINS.entries()) {
      const { refId } = json.rows.find((r) => r.row === i + 2) as { refId: number };
      const fields = fieldsOf(await requestOf(refId), 1);
      expect(fields.map((f) => [f.id, f.value])).toEqual([['gstin', gstin || null]]);
    }

    // A value the template's field refuses is a bad row; a column naming neither a --field nor a template field is
    // refused before anything is sent.
    writeFileSync(
      csv,
      'reference,name1,email1,phone1,type1,field:gstin\ntpl-bad,B,b@example.in,9876543210,e-Signature,27ABC\n',
    );
    const bad = cli(['bulk', csv, '--template', templateId, '--dry-run']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      `row 2: field:gstin: ${fill(FieldMessages.prefillInvalid, { label: 'GSTIN', reason: FIELD_PATTERNS.GSTIN.message })}`,
    );
    writeFileSync(
      csv,
      'reference,name1,email1,phone1,type1,field:pan\ntpl-x,B,b@example.in,9876543210,e-Signature,x\n',
    );
    const unknown = cli(['bulk', csv, '--template', templateId]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/the column field:pan names no field: .*\(fields: gstin\)/);
  });

  it("bulk from a template with --field: a signer's --field fields go in /v1/process, the template's stay", async () => {
    const templateId = await gstinTemplate();
    const csv = join(dir, 'template-fields.csv');
    writeFileSync(
      csv,
      [
        'reference,name1,email1,phone1,type1,name2,email2,phone2,type2,field:gstin,field:ref',
        ...[0, 1].map(
          (i) =>
            `tplf-${i},A ${i},a${i}@example.in,98765${String(i).padStart(5, '0')},e-Signature,` +
            `B ${i},b${i}@example.in,91234${String(i).padStart(5, '0')},Aadhaar,27ABCDE1234F1Z5,REF-${i}`,
        ),
      ].join('\n'),
    );
    const run = cli([
      '--json',
      'bulk',
      csv,
      '--template',
      templateId,
      '--field',
      'id=ref,signer=2,kind=text,label=Reference,page=2,box=72,100,300,120',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { rows: Array<{ row: number; refId: number }> };
    for (const i of [0, 1]) {
      const request = await requestOf((json.rows.find((r) => r.row === i + 2) as { refId: number }).refId);
      expect(fieldsOf(request, 1).map((f) => [f.id, f.value])).toEqual([['gstin', '27ABCDE1234F1Z5']]);
      expect(fieldsOf(request, 2).map((f) => [f.id, f.page, f.value])).toEqual([['ref', 2, `REF-${i}`]]);
    }
  });

  it('bulk: refuses a column naming no field up front, and makes a refused value a bad row naming the row', async () => {
    const before = await total();
    const unknown = join(dir, 'unknown.csv');
    writeFileSync(
      unknown,
      'reference,file,name1,email1,phone1,type1,field:gstin\nu-1,doc.pdf,A,a@example.in,9876543210,e-Signature,x\n',
    );
    const run = cli(['bulk', unknown, ...FIELDS]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /the column field:gstin names no field: define it with --field id=gstin,… \(fields: pan, plan, signed_on\)/,
    );

    const date = join(dir, 'date.csv');
    writeFileSync(
      date,
      'reference,file,name1,email1,phone1,type1,field:signed_on\nd-1,doc.pdf,A,a@example.in,9876543210,e-Signature,\n',
    );
    const dated = cli(['bulk', date, ...FIELDS]);
    expect(dated.code).toBe(2);
    expect(dated.stderr).toContain(
      fill(FieldMessages.prefillInvalid, {
        label: 'Date signed',
        reason: fill(FieldMessages.filledBySigning, { label: 'Date signed' }),
      }),
    );

    const values = join(dir, 'values.csv');
    writeFileSync(
      values,
      [
        'reference,file,name1,email1,phone1,type1,name2,email2,phone2,type2,field:pan,field:plan',
        'v-1,doc.pdf,A,a@example.in,9876543210,e-Signature,,,,,ABCDE1234F,Basic',
        'v-2,doc.pdf,B,b@example.in,9876543211,e-Signature,,,,,ABCDE1234,',
        'v-3,doc.pdf,C,c@example.in,9876543212,e-Signature,,,,,,Gold',
        // The fields are signer 1's: a row whose first recipient receives a copy cannot take them.
        'v-4,doc.pdf,D,d@example.in,9876543213,copy,E,e@example.in,9876543214,Aadhaar,,',
      ].join('\n'),
    );
    const dry = cli(['bulk', values, '--dry-run', ...FIELDS]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toMatch(/valid\s+1/);
    expect(dry.stdout).toMatch(/bad rows\s+3/);
    const pan = fill(FieldMessages.prefillInvalid, { label: 'PAN', reason: FIELD_PATTERNS.PAN.message });
    const plan = fill(FieldMessages.prefillInvalid, {
      label: 'Plan',
      reason: fill(FieldMessages.notAnOption, { label: 'Plan' }),
    });
    expect(dry.stderr).toContain(`row 3: field:pan: ${pan}`);
    expect(dry.stderr).toContain(`row 4: field:plan: ${plan}`);
    expect(dry.stderr).toMatch(/row 5: --field "id=pan,.*": .*\(recipient 1 receives a copy\)/);
    expect(await total()).toBe(before);
  });

  it('bulk: 100 rows prefilling a text field each; every signed document carries its own row value in its box', async () => {
    // The level is not what this test is about: B-T (a timestamp on each signature) keeps 100 seals quick.
    const level = await fetch(`${api.url}/api/organisations/demo`, {
      method: 'PUT',
      headers: { apikey: env.ESIGN_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ signature_level: 'B-T' }),
    });
    expect(level.status).toBe(200);
    const ROWS = 100;
    const valueOf = (i: number) => `REF-${String(i + 1).padStart(4, '0')}`;
    const lines = ['reference,file,name1,email1,phone1,type1,field:ref'];
    for (let i = 0; i < ROWS; i++)
      lines.push(
        `signed-${i},doc.pdf,Signer ${i},signed${i}@example.in,97${String(i).padStart(8, '0')},e-Signature,${valueOf(i)}`,
      );
    const csv = join(dir, 'hundred.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const box = [72, 100, 272, 122];
    const run = cli([
      '--json',
      'bulk',
      csv,
      '--no-otp',
      '--field',
      `id=ref,kind=text,label=Reference,page=1,box=${box.join(',')},required`,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as {
      summary: Record<string, number>;
      rows: Array<{ row: number; refId: number }>;
    };
    expect(json.summary).toMatchObject({ rows: ROWS, sent: ROWS, failed: 0, badRows: 0 });

    // Every signer signs (their link from the dashboard's list), four at a time.
    const key = env.ESIGN_API_KEY;
    const listed = (await (
      await fetch(`${api.url}/v1/request_all/demo?limit=500`, { headers: { apikey: key } })
    ).json()) as {
      data: Array<{ refId: number; data: Array<{ order: number; sign_url: string | null }> }>;
    };
    const linkOf = new Map(listed.data.map((r) => [r.refId, r.data[0]?.sign_url]));
    const call = async (path: string, token: string, init: { method?: string; body?: unknown } = {}) => {
      const res = await fetch(`${api.url}${path}`, {
        method: init.method ?? 'GET',
        headers: { 'x-sign-token': token, ...(init.body ? { 'content-type': 'application/json' } : {}) },
        body: init.body ? JSON.stringify(init.body) : undefined,
      });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    };
    const queue = [...json.rows];
    const signOne = async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        const link = linkOf.get(r.refId);
        expect(link).toBeTruthy();
        const token = new URL(link as string).searchParams.get('token') as string;
        const base = `demo/${r.refId}/1`;
        const ref = (await call(`/v1/reference/${base}`, token)) as { request: { requestId: string } };
        await call(`/v1/signer_details/${base}`, token, { method: 'POST', body: { status: 'signing' } });
        await call(`/v1/init/demo/${ref.request.requestId}?method=2`, token);
        await call(`/v1/esignature/demo/${ref.request.requestId}`, token, {
          method: 'POST',
          body: { kind: 'typed', style: 'normal' },
        });
      }
    };
    await Promise.all([signOne(), signOne(), signOne(), signOne()]);

    // The seal job completes them all; each signed document has its own row's value inside the field's box.
    const deadline = Date.now() + 150_000;
    let done: Array<{ refId: number; request_status: string; data: Array<{ downloadUrl?: string }> }> = [];
    while (Date.now() < deadline) {
      const all = (await (
        await fetch(`${api.url}/v1/request_all/demo?limit=500`, { headers: { apikey: key } })
      ).json()) as {
        data: typeof done;
      };
      done = all.data.filter((r) => json.rows.some((row) => row.refId === r.refId));
      if (done.every((r) => r.request_status === 'completed')) break;
      await new Promise((wait) => setTimeout(wait, 1000));
    }
    expect(done.filter((r) => r.request_status === 'completed')).toHaveLength(ROWS);
    for (const r of json.rows) {
      const item = done.find((d) => d.refId === r.refId);
      const signed = Buffer.from(await (await fetch(item?.data[0]?.downloadUrl as string)).arrayBuffer());
      const html = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', '-', '-'], { input: signed }).toString();
      const inBox = [
        ...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)<\/word>/g),
      ]
        .filter((m) => {
          const cx = (Number(m[1]) + Number(m[3])) / 2;
          const cy = (Number(m[2]) + Number(m[4])) / 2;
          return cx >= box[0] && cx <= box[2] && cy >= box[1] && cy <= box[3];
        })
        .map((m) => m[5]);
      expect([r.row, inBox]).toEqual([r.row, [valueOf(r.row - 2)]]);
    }
  }, 400_000);
});
