import { Brand, formatDateTime } from '@esign/contract';

/**
 * The e-mails and SMS the product sends, as pure functions: every builder returns a subject, a plain-text part, an HTML
 * part (every interpolated value HTML-escaped) and a short SMS (160 characters where the link allows). Every time is
 * written with formatDateTime in the organisation's time zone ('25 Nov 2026, 12:58 am IST').
 */
export interface BuiltMessage {
  subject: string;
  text: string;
  html: string;
  sms: string;
}

interface Base {
  /** The sending organisation's display name. */
  orgName: string;
  /** The recipient's name. */
  partyName: string;
  /** The document's file name. */
  filename: string;
  /** The organisation's time zone (IANA) for every time in the message; Asia/Kolkata when absent. */
  timeZone?: string | null;
}

export interface InvitationInput extends Base {
  /** Who sent the request (a staff user's name); the organisation speaks when absent. */
  senderName?: string | null;
  /** The party's personal link (it carries the party's token). */
  signUrl: string;
  /** When the request expires, if it does. */
  expiresAt?: Date | null;
}

export interface OtpInput extends Base {
  /** The 6-digit one-time password. */
  code: string;
}

export interface CompletedInput extends Base {
  /** Where the signed document is downloaded. */
  downloadUrl: string;
}

export interface RejectedInput extends Base {
  rejectedBy: string;
  remark?: string | null;
  /** When the party rejected. */
  rejectedAt: Date;
  /** The request's Ref ID (the sender finds it on the dashboard). */
  refId?: number | null;
}

export interface RecipientListOtpInput {
  /** The 6-digit one-time password. */
  code: string;
}

export interface FailedInput extends Base {
  reason: string;
}

export type ExpiredInput = Base;

export interface CancelledInput extends Base {
  /** What the sender gave as the reason, if anything. */
  reason?: string | null;
}

/** The OTP's validity, as the design fixes it (10 minutes). */
export const OTP_VALIDITY_TEXT = 'valid for 10 minutes';
const SMS_LIMIT = 160;

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Header-safe: one line, no control characters. */
export const oneLine = (value: string) =>
  value
    .replace(/[\r\n\t]+/g, ' ')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();

export function checkUrl(url: string): string {
  if (!/^https?:\/\/\S+$/i.test(url)) throw new Error('A link in a message must be an http(s) URL.');
  return url;
}

export function shorten(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, Math.max(max - 1, 1))}…`;
}

/**
 * The first wording of `makers` (most complete first) that fits in 160 characters, shortening the file name down to
 * 12 characters if that is what it takes; the shortest wording when none fits (a very long link).
 */
function fitSms(fileName: string, ...makers: ((file: string) => string)[]): string {
  let last = '';
  for (const make of makers) {
    const full = make(fileName);
    if (full.length <= SMS_LIMIT) return full;
    const spare = SMS_LIMIT - (full.length - fileName.length);
    last = make(shorten(fileName, Math.max(spare, 12)));
    if (last.length <= SMS_LIMIT) return last;
  }
  return last;
}

export interface Layout {
  /** Who speaks in the footer ('Acme, via e-Sign'); the product alone when null. */
  orgName: string | null;
  heading: string;
  /** Paragraphs of plain text (escaped for the HTML part). */
  paragraphs: string[];
  action?: { label: string; url: string };
  /** Small print under the button. */
  notes?: string[];
}

const footer = (orgName: string | null) => (orgName ? `${orgName}, via e-Sign` : 'e-Sign');

export function render(layout: Layout): { text: string; html: string } {
  const text = [
    ...layout.paragraphs,
    ...(layout.action ? [`${layout.action.label}:\n${layout.action.url}`] : []),
    ...(layout.notes ?? []),
    footer(layout.orgName),
  ].join('\n\n');
  const p = (s: string) => `<p style="margin:0 0 16px">${escapeHtml(s).replace(/\n/g, '<br>')}</p>`;
  const html = [
    '<!doctype html>',
    '<html><body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1f2933">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">',
    `<h1 style="font-size:20px;margin:0 0 24px">${escapeHtml(layout.heading)}</h1>`,
    ...layout.paragraphs.map(p),
    ...(layout.action
      ? [
          `<p style="margin:24px 0"><a href="${escapeHtml(layout.action.url)}" style="background:${Brand.primary};` +
            `color:${Brand.onPrimary};` +
            `padding:12px 20px;border-radius:4px;text-decoration:none;display:inline-block">${escapeHtml(
              layout.action.label,
            )}</a></p>`,
          `<p style="margin:0 0 16px;font-size:12px;color:#52606d">Or open this link: ` +
            `<a href="${escapeHtml(layout.action.url)}" style="color:${Brand.primary}">${escapeHtml(layout.action.url)}</a></p>`,
        ]
      : []),
    ...(layout.notes ?? []).map((n) => `<p style="margin:0 0 12px;font-size:12px;color:#52606d">${escapeHtml(n)}</p>`),
    `<p style="margin:24px 0 0;font-size:12px;color:#52606d">${escapeHtml(footer(layout.orgName))}</p>`,
    '</div></body></html>',
  ].join('\n');
  return { text, html };
}

function invitationLike(i: InvitationInput, reminder: boolean): BuiltMessage {
  const signUrl = checkUrl(i.signUrl);
  const [org, file] = [oneLine(i.orgName), oneLine(i.filename)];
  const sender = i.senderName ? oneLine(i.senderName) : '';
  /** "Asha Rao (Acme)" in the subject, "Asha Rao of Acme" in the body; the organisation alone without a sender. */
  const from = sender ? `${sender} (${org})` : org;
  const fromText = i.senderName ? `${i.senderName} of ${i.orgName}` : i.orgName;
  const subject = reminder
    ? `Reminder: ${from} is waiting for your signature on "${shorten(file, 120)}"`
    : `${from} sent you "${shorten(file, 120)}" to sign`;
  const { text, html } = render({
    orgName: i.orgName,
    heading: reminder ? `Reminder: please sign "${i.filename}"` : `Please sign "${i.filename}"`,
    paragraphs: [
      `Hello ${i.partyName},`,
      reminder
        ? `Reminder: ${fromText} is still waiting for your signature on "${i.filename}".`
        : `${fromText} has sent you "${i.filename}" to review and sign.`,
    ],
    action: { label: 'Review and sign the document', url: signUrl },
    notes: [
      'This link is personal: anyone who has it can sign as you. Do not forward this e-mail.',
      ...(i.expiresAt ? [`The request expires on ${formatDateTime(i.expiresAt, i.timeZone)}.`] : []),
    ],
  });
  const prefix = reminder ? 'Reminder: ' : '';
  const sms = fitSms(
    file,
    (f) => `${prefix}${org}: please sign "${f}". Personal link, do not share: ${signUrl}`,
    (f) => `${prefix}${shorten(org, 30)}: sign "${f}" (personal link): ${signUrl}`,
    (f) => `${prefix}Sign "${f}": ${signUrl}`,
  );
  return { subject: subject.slice(0, 255), text, html, sms };
}

export function invitation(input: InvitationInput): BuiltMessage {
  return invitationLike(input, false);
}

export function reminder(input: InvitationInput): BuiltMessage {
  return invitationLike(input, true);
}

/** The code is in the body and the SMS, never in the subject (subjects show on lock screens and in logs). */
export function otp(i: OtpInput): BuiltMessage {
  if (!/^\d{6}$/.test(i.code)) throw new Error('An OTP is 6 digits.');
  const file = oneLine(i.filename);
  const { text, html } = render({
    orgName: i.orgName,
    heading: 'Your verification code',
    paragraphs: [
      `Hello ${i.partyName},`,
      `Your one-time password to sign "${i.filename}" is:`,
      i.code,
      `It is ${OTP_VALIDITY_TEXT}. Never share it: ${i.orgName} will never ask you for it.`,
    ],
    notes: ['If you did not ask for this code, ignore this message.'],
  });
  const sms = fitSms(
    file,
    (f) => `${i.code} is your OTP to sign "${f}" (${oneLine(i.orgName)}). It is ${OTP_VALIDITY_TEXT}. Do not share it.`,
  );
  return { subject: `Your verification code for "${shorten(file, 180)}"`, text, html, sms };
}

export function completed(i: CompletedInput): BuiltMessage {
  const downloadUrl = checkUrl(i.downloadUrl);
  const file = oneLine(i.filename);
  const { text, html } = render({
    orgName: i.orgName,
    heading: `"${i.filename}" is signed`,
    paragraphs: [`Hello ${i.partyName},`, `Every party has signed "${i.filename}". The signed document is ready.`],
    action: { label: 'Download the signed document', url: downloadUrl },
  });
  const sms = fitSms(
    file,
    (f) => `${oneLine(i.orgName)}: "${f}" is signed by all parties. Download: ${downloadUrl}`,
    (f) => `"${f}" is signed. Download: ${downloadUrl}`,
  );
  return { subject: `Completed: "${shorten(file, 200)}" is signed by all parties`, text, html, sms };
}

/** To a party who had been invited: who rejected, when and why; the request is closed. */
export function rejected(i: RejectedInput): BuiltMessage {
  const file = oneLine(i.filename);
  const remark = i.remark?.trim();
  const when = formatDateTime(i.rejectedAt, i.timeZone);
  const { text, html } = render({
    orgName: i.orgName,
    heading: `"${i.filename}" was rejected`,
    paragraphs: [
      `Hello ${i.partyName},`,
      `${i.rejectedBy} rejected "${i.filename}" on ${when}. The signature request is closed.`,
      remark ? `Remark: ${remark}` : 'No remark was given.',
    ],
  });
  const sms = fitSms(file, (f) => `${oneLine(i.orgName)}: "${f}" was rejected by ${oneLine(i.rejectedBy)} on ${when}.`);
  return {
    subject: `Rejected: "${shorten(file, 150)}" was rejected by ${shorten(oneLine(i.rejectedBy), 80)}`,
    text,
    html,
    sms: shorten(sms, SMS_LIMIT),
  };
}

/** To the staff user who sent the request: which party rejected, when, and the remark. */
export function rejectedToSender(
  i: RejectedInput & { rejectedByEmail: string; rejectedByOrder: number },
): BuiltMessage {
  const file = oneLine(i.filename);
  const remark = i.remark?.trim();
  const when = formatDateTime(i.rejectedAt, i.timeZone);
  const ref = i.refId ? ` (Ref ID ${i.refId})` : '';
  const { text, html } = render({
    orgName: i.orgName,
    heading: `"${i.filename}" was rejected`,
    paragraphs: [
      `Hello ${i.partyName},`,
      `${i.rejectedBy} <${i.rejectedByEmail}>, recipient ${i.rejectedByOrder}, rejected "${i.filename}"${ref} on ${when}. ` +
        'The signature request is closed; the other recipients were told.',
      remark ? `Remark: ${remark}` : 'No remark was given.',
    ],
  });
  const sms = fitSms(file, (f) => `"${f}"${ref} was rejected by ${oneLine(i.rejectedBy)} on ${when}.`);
  return {
    subject: `Rejected by ${shorten(oneLine(i.rejectedBy), 80)}: "${shorten(file, 150)}"${ref}`.slice(0, 255),
    text,
    html,
    sms: shorten(sms, SMS_LIMIT),
  };
}

/** The OTP of /list, the recipient's own list: not tied to one organisation or document. */
export function recipientListOtp(i: RecipientListOtpInput): BuiltMessage {
  if (!/^\d{6}$/.test(i.code)) throw new Error('An OTP is 6 digits.');
  const { text, html } = render({
    orgName: null,
    heading: 'Your verification code',
    paragraphs: [
      'Your one-time password to see the signing requests sent to you is:',
      i.code,
      `It is ${OTP_VALIDITY_TEXT}. Never share it.`,
    ],
    notes: ['If you did not ask for this code, ignore this message.'],
  });
  const sms = `${i.code} is your OTP to see your signing requests. It is ${OTP_VALIDITY_TEXT}. Do not share it.`;
  return { subject: 'Your verification code for your signing requests', text, html, sms };
}

export function failed(i: FailedInput): BuiltMessage {
  const file = oneLine(i.filename);
  const { text, html } = render({
    orgName: i.orgName,
    heading: `Signing "${i.filename}" failed`,
    paragraphs: [
      `Hello ${i.partyName},`,
      `Signing "${i.filename}" failed: ${i.reason}`,
      'Please wait for a new signature request by e-mail.',
    ],
  });
  const sms = fitSms(file, (f) => `${oneLine(i.orgName)}: signing "${f}" failed. Please wait for a new request.`);
  return { subject: `Signing failed: "${shorten(file, 200)}"`, text, html, sms };
}

/** To a party who had been invited and had not finished: the sender cancelled the request (issue 22). */
export function cancelled(i: CancelledInput): BuiltMessage {
  const file = oneLine(i.filename);
  const reason = i.reason?.trim();
  const { text, html } = render({
    orgName: i.orgName,
    heading: 'The signature request was cancelled',
    paragraphs: [
      `Hello ${i.partyName},`,
      `${i.orgName} cancelled the signature request for "${i.filename}". It can no longer be signed.`,
      ...(reason ? [`Reason: ${reason}`] : []),
    ],
  });
  const sms = fitSms(file, (f) => `${oneLine(i.orgName)}: the signature request for "${f}" was cancelled.`);
  return { subject: `Cancelled: the signature request for "${shorten(file, 180)}"`, text, html, sms };
}

export function expired(i: ExpiredInput): BuiltMessage {
  const file = oneLine(i.filename);
  const { text, html } = render({
    orgName: i.orgName,
    heading: 'The signature request has expired',
    paragraphs: [
      `Hello ${i.partyName},`,
      `The signature request for "${i.filename}" has expired and can no longer be signed.`,
    ],
  });
  const sms = fitSms(file, (f) => `${oneLine(i.orgName)}: the signature request for "${f}" has expired.`);
  return { subject: `Expired: the signature request for "${shorten(file, 180)}"`, text, html, sms };
}
