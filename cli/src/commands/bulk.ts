import type { FieldDefinition, TemplateView } from '@esign/contract';
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { readBulkCsv, templatesToRead } from '../bulk/rows';
import { writeResults } from '../bulk/results';
import { pool, sendRow, type RowResult } from '../bulk/send';
import { signedInClient, type ApiClient } from '../core/client';
import { action, type CommandContext } from '../core/command';
import { CliError, ExitCode } from '../core/errors';
import { FIELD_HELP, FIELD_HELP_DETAILS, parseFieldSpecs } from '../core/fields';
import { emit, table } from '../core/output';

interface BulkOptions {
  template?: string;
  concurrency?: string;
  dryRun?: boolean;
  results?: string;
  sequential?: boolean;
  otp?: boolean;
  field?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const MAX_CONCURRENCY = 16;

/** esign-cli bulk FILE.csv: one signing request per CSV row (cli/README.md, "bulk"). */
export function registerBulk(program: Command): void {
  program
    .command('bulk')
    .description('Send one signing request per CSV row (resumable: each row has a client reference)')
    .argument('<file.csv>', 'reference,file (or template),name1,email1,phone1,type1 … name6,email6,phone6,type6')
    .option('--template <id>', 'start every row from this template (instead of a file column)')
    .option('--concurrency <n>', `requests sent at once, 1 to ${MAX_CONCURRENCY}`, '4')
    .option('--dry-run', 'check the rows only; send nothing')
    .option('--results <file>', 'where to write the results CSV (default: <file.csv>.results.csv)')
    .option('--sequential', 'signers sign one after another, in order (default: all at once)')
    .option('--otp', 'signers confirm with a one-time code (the default)')
    .option('--no-otp', 'signers do not need a one-time code')
    .option('--field <spec>', `${FIELD_HELP} (every row gets them)`, collect)
    .addHelpText(
      'after',
      [
        '',
        ...FIELD_HELP_DETAILS,
        '  signer= is the recipient order within the row (its filled recipient columns, 1…).',
        '',
        'Prefilled per row: a column field:<id> holds the value of the field with that id (--field id=<id>,…) for',
        "that row; an empty cell keeps the field's own value= (or leaves it empty). A column naming no --field is",
        'refused before anything is sent; a value the field refuses (a PAN that is not a PAN, an option that is not one',
        "of the field's) makes that row a bad row.",
        '',
        'Example (one personalised letter per row, the signer confirms the amount):',
        '  reference,file,name1,email1,phone1,type1,field:amount',
        '  L-001,letter.pdf,Asha Rao,asha@example.in,9876543210,e-Signature,"12,500"',
        '  esign-cli bulk letters.csv --field "id=amount,kind=number,label=Amount,page=1,box=72,640,200,662"',
      ].join('\n'),
    )
    .action(action(program, (ctx, file: string, opts: BulkOptions) => bulk(ctx, file, opts)));
}

export async function bulk(ctx: CommandContext, path: string, opts: BulkOptions): Promise<number> {
  const { io } = ctx;
  const concurrency = Number(opts.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)
    throw new CliError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}.`, ExitCode.usage);
  const fields = parseFieldSpecs(opts.field ?? []);
  // field:<id> columns naming no --field name a template's own fields: those are asked of the API first.
  const templateFields = new Map<string, FieldDefinition[]>();
  const templates = templatesToRead(path, { template: opts.template, fields });
  if (templates.length) {
    const client = signedInClient(ctx.globals, ctx.env);
    for (const id of templates) templateFields.set(id, await templateFieldsOf(client, id));
  }
  const csv = readBulkCsv(path, { template: opts.template, fields, templateFields });
  const resultsFile = resolve(opts.results ?? `${csv.path}.results.csv`);
  const results = new Map<number, RowResult>();
  for (const r of csv.rows)
    if (r.error)
      results.set(r.row, { row: r.row, reference: r.reference, refId: null, status: 'bad row', error: r.error });
  const good = csv.rows.filter((r) => !r.error);
  if (!io.json) {
    if (csv.derivedReferences)
      io.err(
        'Note: rows without a reference get one from the file name, row number and row content: ' +
          'a resumed run must use the same, unchanged file.',
      );
    for (const r of csv.rows) if (r.error) io.err(`row ${r.row}: ${r.error}`);
  }

  if (opts.dryRun) {
    for (const r of good)
      results.set(r.row, { row: r.row, reference: r.reference, refId: null, status: 'valid', error: null });
  } else if (good.length) {
    const client = signedInClient(ctx.globals, ctx.env);
    const options = {
      orgId: client.conn.orgId,
      sequential: Boolean(opts.sequential),
      otpRequired: opts.otp !== false,
    };
    const bar = io.interactive && process.stderr.isTTY ? await progressBar(good.length) : null;
    let authFailure = null as CliError | null;
    await pool(
      good,
      concurrency,
      async (row) => {
        let result: RowResult;
        try {
          result = await sendRow(client, row, options);
        } catch (error) {
          // A refused key or an API that cannot be reached (after retries) fails every row alike: the run stops.
          if (error instanceof CliError && (error.exitCode === ExitCode.auth || error.exitCode === ExitCode.network))
            authFailure ??= error;
          const message = error instanceof Error ? error.message : String(error);
          result = { row: row.row, reference: row.reference, refId: null, status: 'failed', error: message };
        }
        results.set(row.row, result);
        if (bar) bar.increment();
        else if (result.status === 'failed' && !io.json) io.err(`row ${row.row}: ${result.error}`);
      },
      () => authFailure !== null,
    );
    bar?.stop();
    // Rows never tried (the key was refused) are failed too, so the results name every row.
    for (const r of good)
      if (!results.has(r.row))
        results.set(r.row, {
          row: r.row,
          reference: r.reference,
          refId: null,
          status: 'failed',
          error: `not sent: ${authFailure?.message ?? 'the run stopped'}`,
        });
    writeResults(resultsFile, [...results.values()]);
    if (authFailure) throw authFailure;
  }
  if (!opts.dryRun && !good.length) writeResults(resultsFile, [...results.values()]);

  const rows = [...results.values()].sort((a, b) => a.row - b.row);
  const count = (status: RowResult['status']) => rows.filter((r) => r.status === status).length;
  const summary = {
    rows: rows.length,
    ...(opts.dryRun ? { valid: count('valid') } : { sent: count('sent'), alreadySent: count('already sent') }),
    failed: count('failed'),
    badRows: count('bad row'),
  };
  const ok = summary.failed === 0 && summary.badRows === 0;
  emit(
    io,
    { ok, csv: csv.path, dryRun: Boolean(opts.dryRun), results: opts.dryRun ? null : resultsFile, summary, rows },
    () => {
      const lines = [
        '',
        ...table(
          ['', 'rows'],
          opts.dryRun
            ? [
                ['valid', count('valid')],
                ['bad rows', summary.badRows],
              ]
            : [
                ['sent', count('sent')],
                ['already sent', count('already sent')],
                ['failed', summary.failed],
                ['bad rows', summary.badRows],
              ],
        ),
      ];
      const problems = rows.filter((r) => r.status === 'failed' || r.status === 'bad row');
      if (problems.length)
        lines.push(
          '',
          ...table(
            ['row', 'reference', 'status', 'error'],
            problems.map((r) => [r.row, r.reference, r.status, r.error]),
          ),
        );
      if (!opts.dryRun) lines.push('', `Results: ${resultsFile}`);
      else lines.push('', ok ? 'Dry run: every row is valid; nothing was sent.' : 'Dry run: nothing was sent.');
      return lines;
    },
  );
  return ok ? ExitCode.ok : ExitCode.failed;
}

/** A template's fields beyond the signature box; none for a template that does not exist (its rows fail at upload). */
async function templateFieldsOf(client: ApiClient, id: string): Promise<FieldDefinition[]> {
  try {
    const res = await client.request<{ data: TemplateView }>('GET', `/v1/templates/${encodeURIComponent(id)}`);
    return res.data?.template_annotation?.fields ?? [];
  } catch (error) {
    if (error instanceof CliError && (error.details.status === 404 || error.details.status === 400)) return [];
    throw error;
  }
}

/** A progress bar on stderr (only for a person at a terminal). */
async function progressBar(total: number) {
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar(
    { stream: process.stderr, format: 'bulk [{bar}] {value}/{total} rows | {eta_formatted} left', hideCursor: true },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return bar;
}
