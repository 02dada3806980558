import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  DEFAULT_RECTANGLE,
  formatDateTime,
  Limits,
  Messages,
  RequestMessages,
  type Organisation,
  type PartyView,
  type RequestListItem,
  type UploadResponse,
  type WhoAmIResponse,
} from '@esign/contract';
import type { Command } from 'commander';
import { signedInClient, type ApiClient } from '../core/client';
import { action } from '../core/command';
import { CliError, ExitCode } from '../core/errors';
import { FIELD_HELP, FIELD_HELP_DETAILS, fieldsForRecipients, parseFieldSpecs } from '../core/fields';
import { emit, table } from '../core/output';
import { parseBox, parsePages, parseRecipients } from '../core/recipients';

const METHODS: Record<number, string> = { 0: 'Aadhaar', 1: 'DSC', 2: 'e-Signature' };
const methodOf = (p: PartyView) =>
  p.sign_method === undefined || p.sign_method === null ? null : METHODS[p.sign_method];
const roleOf = (p: PartyView) => (p.observer ? 'copy' : 'signer');

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The key's organisation: from the profile, else asked of the API (a bare --key or ESIGN_API_KEY). */
async function orgIdOf(client: ApiClient): Promise<string> {
  if (client.conn.orgId) return client.conn.orgId;
  return (await client.request<WhoAmIResponse>('GET', '/api/whoami')).orgId;
}

/**
 * The organisation's time zone, for the times the human output writes (formatDateTime, as everywhere a person reads a
 * time); JSON output keeps ISO 8601 and asks nothing.
 */
export async function timeZoneOf(client: ApiClient, io: { json: boolean }): Promise<string | null> {
  if (io.json) return null;
  const org = await client.request<Organisation>(
    'GET',
    `/api/organisations/${encodeURIComponent(await orgIdOf(client))}`,
  );
  return org.settings.time_zone;
}

function refIdArg(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new CliError(`REFID must be a number (got "${text}").`, ExitCode.usage);
  return n;
}

function dateArg(text: string, flag: string, endOfDay = false): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? new Date(`${text}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`)
    : new Date(text);
  if (Number.isNaN(date.getTime()))
    throw new CliError(`${flag} takes a date like 2026-01-31 or 2026-01-31T10:00:00Z (got "${text}").`, ExitCode.usage);
  return date;
}

async function getRequest(client: ApiClient, refId: number): Promise<RequestListItem> {
  return client.request<RequestListItem>('GET', `/api/requests/${refId}`);
}

/** Every sent request, newest first, a page of 100 at a time, until `stop` says enough. */
async function allRequests(
  client: ApiClient,
  search: string | undefined,
  keep: (r: RequestListItem) => boolean,
  enough: (kept: RequestListItem[], last: RequestListItem) => boolean,
): Promise<RequestListItem[]> {
  const kept: RequestListItem[] = [];
  for (let start = 0; ; start += 100) {
    const page = await client.request<RequestListItem[]>('GET', '/api/requests', {
      query: {
        range: JSON.stringify([start, start + 99]),
        sort: JSON.stringify(['timestamp', 'DESC']),
        filter: search ? JSON.stringify({ q: search }) : undefined,
      },
    });
    for (const r of page) {
      if (keep(r)) kept.push(r);
      if (enough(kept, r)) return kept;
    }
    if (page.length < 100) return kept;
  }
}

interface SendOptions {
  signer?: string[];
  copy?: string[];
  sequential?: boolean;
  otp?: boolean;
  reminder?: string;
  template?: string;
  page?: string;
  allPages?: boolean;
  box?: string;
  field?: string[];
}

interface ListOptions {
  status?: string;
  since?: string;
  search?: string;
  limit?: string;
}

interface ReportOptions {
  from: string;
  to: string;
  format?: string;
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function registerRequests(program: Command): void {
  program
    .command('send')
    .description('Send one PDF for signing: upload, place the signature boxes, send the invitations')
    .argument('[file]', 'the PDF to send (not with --template)')
    .option(
      '--signer <spec>',
      'a signer: "Name,email,phone,type[,language]" (type Aadhaar|DSC|e-Signature|All|Dual; language en|hi|bn|mr|ta|te|gu|kn); repeat',
      collect,
    )
    .option('--copy <spec>', 'a copy receiver: "Name,email,phone[,language]"; repeat', collect)
    .option('--sequential', 'signers sign one after another, in the order given (default: in parallel)')
    .option('--otp', 'signers confirm an OTP before an e-signature (the default)')
    .option('--no-otp', 'no OTP')
    .option('--reminder <hours>', 'remind signers every 12, 24 or 48 hours')
    .option('--template <id>', 'use a saved template instead of a file')
    .option('--page <pages>', 'pages to sign, e.g. 1,3-5 (default: 1)')
    .option('--all-pages', 'a signature box on every page')
    .option('--box <x1,y1,x2,y2>', `signature box in PDF points (default: ${DEFAULT_RECTANGLE}, bottom-left)`)
    .option('--field <spec>', FIELD_HELP, collect)
    .addHelpText(
      'after',
      [
        '',
        ...FIELD_HELP_DETAILS,
        "  Each signer's fields go with their placement (with --template they replace that signer's template fields).",
        '',
        'Example:',
        '  esign-cli send lease.pdf --signer "Asha Rao,asha@example.in,9876543210,e-Signature" \\',
        '    --field "kind=text,label=PAN,page=1,box=72,640,272,662,pattern=PAN" \\',
        '    --field "kind=checkbox,label=I agree,page=2,box=72,100,86,114,required"',
      ].join('\n'),
    )
    .action(
      action(program, async (ctx, file: string | undefined, opts: SendOptions) => {
        const recipients = parseRecipients(opts.signer ?? [], opts.copy ?? []);
        // Every field checked before anything is sent: its spec, and that its signer is one of the signers.
        const placed = fieldsForRecipients(parseFieldSpecs(opts.field ?? []), recipients);
        if (!placed.ok) throw new CliError(placed.message, ExitCode.usage);
        if (file && opts.template) throw new CliError('Pass a FILE or --template, not both.', ExitCode.usage);
        if (!file && !opts.template) throw new CliError(RequestMessages.fileRequired, ExitCode.usage);
        if (opts.page && opts.allPages) throw new CliError('Pass --page or --all-pages, not both.', ExitCode.usage);
        let reminder: number | null = null;
        if (opts.reminder !== undefined) {
          reminder = Number(opts.reminder);
          if (!(Limits.reminderHours as readonly number[]).includes(reminder))
            throw new CliError(RequestMessages.durationInvalid, ExitCode.usage);
        }
        const pageNo = opts.page ? parsePages(opts.page) : [1];
        const rectangle = opts.box ? parseBox(opts.box) : DEFAULT_RECTANGLE;
        let bytes: Buffer | null = null;
        if (file) {
          if (!existsSync(file) || !statSync(file).isFile())
            throw new CliError(`Cannot read ${file}: no such file.`, ExitCode.usage);
          if (!/\.pdf$/i.test(file)) throw new CliError(Messages.invalidPdf, ExitCode.usage);
          if (statSync(file).size > Limits.maxFileBytes) throw new CliError(Messages.fileTooLarge, ExitCode.usage);
          bytes = readFileSync(file);
        }
        const client = signedInClient(ctx.globals, ctx.env);
        const orgId = await orgIdOf(client);

        const form = new FormData();
        form.set('data', JSON.stringify(recipients));
        form.set('checkOrder', String(Boolean(opts.sequential)));
        form.set('otpRequired', String(opts.otp !== false));
        form.set('orgId', orgId);
        if (reminder !== null) {
          form.set('reminder', 'true');
          form.set('reminder_duration', String(reminder));
        }
        if (opts.template) form.set('template_id', opts.template);
        if (bytes && file) form.set('file', new Blob([bytes], { type: 'application/pdf' }), basename(file));
        const up = await client.request<UploadResponse>('POST', '/v1/upload', { form });
        const refId = up.refId;

        const placements = recipients
          .map((r, i) => ({ r, order: i + 1 }))
          .filter(({ r }) => !r.observer)
          .map(({ order }) => ({
            refId,
            order,
            pageNo: opts.allPages ? [] : pageNo,
            apply_all: Boolean(opts.allPages),
            rectangle,
            // Only a signer given fields: an entry without `fields` keeps a template's fields for that signer.
            ...(placed.bySigner.has(order) ? { fields: placed.bySigner.get(order) } : {}),
          }));
        try {
          await client.request('POST', '/v1/save', { json: { orgId, data: placements } });
          await client.request('POST', '/v1/process', { json: { orgId, data: [{ refId, order: 1 }] } });
        } catch (error) {
          // A placement the API refused (a page out of range, …): remove the draft, so nothing is left behind.
          await client.request('GET', `/v1/deleteRef/${encodeURIComponent(orgId)}/${refId}`).catch(() => undefined);
          if (error instanceof CliError && error.details.status && error.details.status < 500)
            throw new CliError(error.message, ExitCode.usage, error.details);
          throw error;
        }

        const sent = await getRequest(client, refId);
        const data = {
          refId,
          recipients: sent.data
            .filter((p) => !p.observer)
            .map((p) => ({ order: p.order, name: p.name, email: p.email, sign_url: p.sign_url })),
        };
        emit(ctx.io, data, () => [
          `Sent request ${refId} (${sent.filename}).`,
          ...data.recipients.map(
            (p) => `  ${p.order}. ${p.name} <${p.email}>: ${p.sign_url ?? '(invited when their turn comes)'}`,
          ),
        ]);
      }),
    );

  program
    .command('status')
    .description(
      'A request: its status and each party (order, role, status, method, signed, sign link), and who rejected it, when and why',
    )
    .argument('<refId>', 'the Ref ID')
    .action(
      action(program, async (ctx, ref: string) => {
        const client = signedInClient(ctx.globals, ctx.env);
        const r = await getRequest(client, refIdArg(ref));
        const zone = await timeZoneOf(client, ctx.io);
        const when = (value: string | null | undefined) => formatDateTime(value, zone);
        const parties = r.data.map((p) => ({
          order: p.order,
          name: p.name,
          email: p.email,
          role: roleOf(p),
          status: p.status,
          signature_type: p.signature_type,
          method: methodOf(p),
          signed_at: p.signed_at ?? null,
          rejected_at: p.rejected_at ?? null,
          remark: p.remark ?? null,
          language: p.language ?? null,
          sign_url: p.sign_url,
        }));
        const data = {
          refId: r.refId,
          filename: r.filename,
          created: r.timestamp,
          completed: r.completed_at ?? null,
          status: r.request_status,
          status_text: r.status_text,
          seal_error: r.seal_error,
          parties,
        };
        emit(ctx.io, data, () => [
          `Request ${r.refId}: ${r.filename}`,
          `Status:  ${r.request_status} (${r.status_text})${r.seal_error ? ` – ${r.seal_error}` : ''}`,
          `Created: ${when(r.timestamp)}${r.completed_at ? `, completed ${when(r.completed_at)}` : ''}`,
          '',
          ...table(
            ['ORDER', 'NAME', 'ROLE', 'STATUS', 'METHOD', 'SIGNED', 'SIGN LINK'],
            parties.map((p) => [
              p.order,
              p.name,
              p.role,
              p.status,
              p.method ?? p.signature_type,
              when(p.signed_at),
              p.sign_url,
            ]),
          ),
          ...parties
            .filter((p) => p.rejected_at)
            .flatMap((p) => [
              '',
              `Rejected by ${p.order}. ${p.name} on ${when(p.rejected_at)}`,
              `Remark:  ${p.remark ?? '(none)'}`,
            ]),
        ]);
      }),
    );

  program
    .command('list')
    .description('Sent requests, newest first')
    .option('--status <status>', 'only this status: in-progress, completed, rejected, expired, cancelled')
    .option('--since <date>', 'only requests created on or after this date')
    .option('--search <text>', 'a Ref ID or part of the file name')
    .option('--limit <n>', 'at most this many (default 20)', '20')
    .action(
      action(program, async (ctx, opts: ListOptions) => {
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new CliError('--limit must be a positive number.', ExitCode.usage);
        const since = opts.since ? dateArg(opts.since, '--since') : null;
        const client = signedInClient(ctx.globals, ctx.env);
        const zone = await timeZoneOf(client, ctx.io);
        const rows = await allRequests(
          client,
          opts.search,
          (r) => (!opts.status || r.request_status === opts.status) && (!since || new Date(r.timestamp) >= since),
          (kept, last) => kept.length >= limit || (since !== null && new Date(last.timestamp) < since),
        );
        const data = rows.slice(0, limit).map((r) => ({
          refId: r.refId,
          filename: r.filename,
          created: r.timestamp,
          status: r.request_status,
          status_text: r.status_text,
          completed: r.completed_at ?? null,
          parties: r.data.map((p) => ({ order: p.order, name: p.name, role: roleOf(p), status: p.status })),
        }));
        emit(ctx.io, data, () =>
          data.length
            ? table(
                ['REFID', 'FILE', 'CREATED', 'STATUS', 'PROGRESS'],
                data.map((r) => [r.refId, r.filename, formatDateTime(r.created, zone), r.status, r.status_text]),
              )
            : Messages.noRecordsFound,
        );
      }),
    );

  program
    .command('download')
    .description('Save the signed PDF of a completed request')
    .argument('<refId>', 'the Ref ID')
    .option('-o, --output <file>', 'where to write it (default: <refId>-signed.pdf)')
    .action(
      action(program, async (ctx, ref: string, opts: { output?: string }) => {
        const client = signedInClient(ctx.globals, ctx.env);
        const refId = refIdArg(ref);
        const r = await getRequest(client, refId);
        if (r.request_status !== 'completed')
          throw new CliError(
            `Request ${refId} is not completed (${r.request_status}: ${r.status_text}); the signed PDF is not ready.`,
            ExitCode.failed,
          );
        const url = r.data.find((p) => p.downloadUrl)?.downloadUrl;
        if (!url) throw new CliError(`Request ${refId} is completed but has no signed PDF yet; try again shortly.`);
        const res = await client.send('GET', url, { anonymous: true });
        const bytes = Buffer.from(await res.arrayBuffer());
        if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
          throw new CliError(`The download of request ${refId} is not a PDF.`);
        const out = opts.output ?? `${refId}-signed.pdf`;
        try {
          writeFileSync(out, bytes);
        } catch (error) {
          throw new CliError(`Cannot write ${out}: ${(error as Error).message}`, ExitCode.usage);
        }
        emit(ctx.io, { refId, file: out, bytes: bytes.length }, () => `Saved ${out} (${bytes.length} bytes).`);
      }),
    );

  program
    .command('resend')
    .description('Send the invitation again with a new link (the old link stops working)')
    .argument('<refId>', 'the Ref ID')
    .argument('<order>', "the party's order (1, 2, …)")
    .action(
      action(program, async (ctx, ref: string, orderText: string) => {
        const refId = refIdArg(ref);
        const order = Number(orderText);
        if (!Number.isInteger(order) || order < 1) throw new CliError('ORDER must be 1, 2, …', ExitCode.usage);
        const client = signedInClient(ctx.globals, ctx.env);
        const res = await client.request<{ message?: string }>(
          'GET',
          `/v1/resend_invite/${encodeURIComponent(await orgIdOf(client))}/${refId}/${order}`,
        );
        emit(
          ctx.io,
          { ok: true, refId, order, message: res?.message ?? RequestMessages.inviteSent },
          () => `${res?.message ?? RequestMessages.inviteSent} (request ${refId}, party ${order}).`,
        );
      }),
    );

  program
    .command('templates')
    .description("The organisation's templates")
    .action(
      action(program, async (ctx) => {
        const client = signedInClient(ctx.globals, ctx.env);
        const zone = await timeZoneOf(client, ctx.io);
        const res = await client.request<{
          data: Array<{
            id: string;
            template_name: string;
            filename: string;
            total_pages: number;
            field_count: number;
            timestamp: string;
          }>;
        }>('GET', '/v1/templates');
        const data = (res?.data ?? []).map((t) => ({
          id: t.id,
          name: t.template_name,
          filename: t.filename,
          pages: t.total_pages,
          fields: t.field_count,
          created: t.timestamp,
        }));
        emit(ctx.io, data, () =>
          data.length
            ? table(
                ['ID', 'NAME', 'FILE', 'PAGES', 'FIELDS', 'CREATED'],
                data.map((t) => [t.id, t.name, t.filename, t.pages, t.fields, formatDateTime(t.created, zone)]),
              )
            : Messages.noTemplatesAvailable,
        );
      }),
    );

  program
    .command('report')
    .description("Requests created in a period: times, duration and each party's outcome (CSV or JSON)")
    .requiredOption('--from <date>', 'created on or after (e.g. 2026-01-01)')
    .requiredOption('--to <date>', 'created on or before (a bare date counts the whole day)')
    .option('--format <format>', 'csv or json', 'csv')
    .action(
      action(program, async (ctx, opts: ReportOptions) => {
        const from = dateArg(opts.from, '--from');
        const to = dateArg(opts.to, '--to', true);
        if (to < from) throw new CliError('--to is before --from.', ExitCode.usage);
        const format = ctx.io.json ? 'json' : opts.format;
        if (format !== 'csv' && format !== 'json')
          throw new CliError(`--format must be csv or json (got "${opts.format}").`, ExitCode.usage);
        const client = signedInClient(ctx.globals, ctx.env);
        const rows = await allRequests(
          client,
          undefined,
          (r) => new Date(r.timestamp) >= from && new Date(r.timestamp) <= to,
          (_kept, last) => new Date(last.timestamp) < from,
        );
        const report = rows.map((r) => {
          const created = r.timestamp;
          const completed = r.completed_at ?? null;
          return {
            refId: r.refId,
            filename: r.filename,
            status: r.request_status,
            created,
            completed,
            duration_seconds: completed
              ? Math.round((new Date(completed).getTime() - new Date(created).getTime()) / 1000)
              : null,
            parties: r.data.map((p) => ({
              order: p.order,
              name: p.name,
              email: p.email,
              role: roleOf(p),
              outcome: p.status,
              method: methodOf(p),
              signed_at: p.signed_at ?? null,
            })),
          };
        });
        if (format === 'json') {
          ctx.io.out(JSON.stringify(report, null, 2));
          return;
        }
        const header = ['refId', 'filename', 'status', 'created', 'completed', 'duration_seconds', 'parties'];
        ctx.io.out(header.join(','));
        for (const r of report)
          ctx.io.out(
            [
              r.refId,
              r.filename,
              r.status,
              r.created,
              r.completed,
              r.duration_seconds,
              r.parties
                .map((p) => `${p.order} ${p.name} (${p.role}): ${p.outcome}${p.method ? ` by ${p.method}` : ''}`)
                .join('; '),
            ]
              .map(csvCell)
              .join(','),
          );
      }),
    );
}
