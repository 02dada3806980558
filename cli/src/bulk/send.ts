import { DEFAULT_RECTANGLE, type UploadResponse } from '@esign/contract';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ApiClient } from '../core/client';
import { CliError, ExitCode } from '../core/errors';
import type { BulkRow } from './rows';

export type RowStatus = 'sent' | 'already sent' | 'failed' | 'bad row' | 'valid';

export interface RowResult {
  row: number;
  reference: string;
  refId: number | null;
  status: RowStatus;
  error: string | null;
}

export interface SendOptions {
  orgId: string | null;
  /** Sequential signing (checkOrder). */
  sequential: boolean;
  otpRequired: boolean;
}

const RETRIES = 3;
const retryable = (error: unknown) =>
  error instanceof CliError &&
  (error.exitCode === ExitCode.network || (error.details.status ?? 0) >= 500 || error.details.status === 429);

/** Network failures, 5xx and 429 are tried again (the upload is idempotent by its client reference). */
async function withRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= RETRIES || !retryable(error)) throw error;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }
}

/**
 * One good row: upload (with its client reference) → save a default box on page 1 for each signer (as the console
 * does; a template's own boxes are kept), with the signer's fields → process. An upload answered `duplicate` for a request already sent is
 * "already sent"; a duplicate draft (an earlier run stopped half-way) is saved and processed.
 */
export async function sendRow(client: ApiClient, row: BulkRow, options: SendOptions): Promise<RowResult> {
  const result: RowResult = { row: row.row, reference: row.reference, refId: null, status: 'failed', error: null };
  const pdf = row.file ? await readFile(row.file) : null;
  const uploaded = await withRetry(() => {
    const form = new FormData();
    form.set('data', JSON.stringify(row.recipients));
    form.set('checkOrder', String(options.sequential));
    form.set('otpRequired', String(options.otpRequired));
    if (options.orgId) form.set('orgId', options.orgId);
    form.set('clientReference', row.reference);
    if (row.templateId) form.set('template_id', row.templateId);
    // The row's values of the template's own fields (field:<id> columns naming them).
    if (row.templateId && row.fieldValues) form.set('fieldValues', JSON.stringify(row.fieldValues));
    if (pdf && row.file)
      form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), basename(row.file));
    return client.request<UploadResponse>('POST', '/v1/upload', { form });
  });
  result.refId = uploaded.refId;
  if (uploaded.duplicate && uploaded.status && uploaded.status !== 'draft') {
    if (uploaded.status === 'deleted')
      return { ...result, error: `The draft with the reference ${row.reference} was deleted; use a new reference.` };
    result.status = 'already sent';
    return result;
  }
  const signers = uploaded.requests.filter((r) => !r.observer);
  // The row's fields (--field, with its field:<id> values) by signer: only a signer given fields carries `fields`,
  // so a template's own fields stay with the others.
  const fieldsOf = (order: number) => {
    const fields = row.fields.filter((f) => f.signer === order);
    return fields.length ? { fields } : {};
  };
  if (!row.templateId) {
    const data = signers.map((s) => ({
      refId: uploaded.refId,
      order: s.order,
      pageNo: [1],
      apply_all: false,
      rectangle: DEFAULT_RECTANGLE,
      ...fieldsOf(s.order),
    }));
    await withRetry(() => client.request('POST', '/v1/save', { json: { data, orgId: options.orgId ?? undefined } }));
  }
  const first = signers[0] ?? uploaded.requests[0];
  // From a template (no save: its boxes are kept), the fields go in /v1/process's entries, one per signer with fields.
  const entries = [
    { refId: uploaded.refId, order: first.order, ...(row.templateId ? fieldsOf(first.order) : {}) },
    ...(row.templateId
      ? signers
          .filter((s) => s.order !== first.order && row.fields.some((f) => f.signer === s.order))
          .map((s) => ({ refId: uploaded.refId, order: s.order, ...fieldsOf(s.order) }))
      : []),
  ];
  await withRetry(() =>
    client.request('POST', '/v1/process', { json: { data: entries, orgId: options.orgId ?? undefined } }),
  );
  result.status = 'sent';
  return result;
}

/** Runs `work` over `items` with at most `concurrency` at a time, in order of the items; stops taking new ones on stop(). */
export async function pool<T>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stopped()) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
