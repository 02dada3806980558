import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { UploadResponse } from '@esign/contract';
import { readFixture } from './fixtures';
import type { TestApp } from './test-app';

export interface Recipient {
  name: string;
  email: string;
  phoneNumber: string;
  observer?: boolean;
  signature_type?: string;
}

export const SIGNERS: Recipient[] = [
  {
    name: 'Asha Rao',
    email: 'asha@example.in',
    phoneNumber: '+91 98765 43210',
    observer: false,
    signature_type: 'e-Signature',
  },
  {
    name: 'Vikram Shah',
    email: 'vikram@example.in',
    phoneNumber: '9123456789',
    observer: false,
    signature_type: 'Aadhaar',
  },
  { name: 'Meera Iyer', email: 'meera@example.in', phoneNumber: '+919988776655', observer: true },
];

export interface UploadOptions {
  recipients?: unknown;
  fixture?: string;
  file?: Buffer;
  filename?: string;
  contentType?: string;
  checkOrder?: boolean | string;
  otpRequired?: boolean | string;
  reminder?: boolean | string;
  reminderDuration?: number | string;
  orgId?: string;
  fields?: Record<string, string>;
}

/** POST /v1/upload as the console sends it (multipart). */
export function upload(t: TestApp, key: string, orgId: string, o: UploadOptions = {}) {
  const fixture = o.fixture ?? 'normal.pdf';
  let req = t.http
    .post('/v1/upload')
    .set('apikey', key)
    .field('data', typeof o.recipients === 'string' ? o.recipients : JSON.stringify(o.recipients ?? SIGNERS))
    .field('checkOrder', String(o.checkOrder ?? false))
    .field('otpRequired', String(o.otpRequired ?? true))
    .field('orgId', o.orgId ?? orgId);
  if (o.reminder !== undefined) req = req.field('reminder', String(o.reminder));
  if (o.reminderDuration !== undefined) req = req.field('reminder_duration', String(o.reminderDuration));
  for (const [k, v] of Object.entries(o.fields ?? {})) req = req.field(k, v);
  if (o.file !== null) {
    const bytes = o.file ?? readFixture('pdfs', fixture);
    req = req.attach('file', bytes, {
      filename: o.filename ?? fixture,
      contentType: o.contentType ?? 'application/pdf',
    });
  }
  return req;
}

export async function uploadOk(t: TestApp, key: string, orgId: string, o: UploadOptions = {}): Promise<UploadResponse> {
  const res = await upload(t, key, orgId, o);
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as UploadResponse;
}

/**
 * POST /v1/save with every signer at the default place, as SAVE on the placement screen does for boxes left where
 * they are: the draft is listed from then on.
 */
export async function saveDefault(t: TestApp, key: string, orgId: string, up: UploadResponse): Promise<void> {
  const data = up.requests.filter((r) => !r.observer).map((r) => ({ refId: up.refId, order: r.order, pageNo: [1] }));
  const res = await t.http.post('/v1/save').set('apikey', key).send({ orgId, data });
  if (res.status !== 200) throw new Error(`save answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** Every file under a directory (to show a rejected upload stored nothing). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

export const tokenOf = (signUrl: string): string => new URL(signUrl).searchParams.get('token') as string;
