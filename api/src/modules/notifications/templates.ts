import {
  Brand,
  OTP_VALIDITY_TEXT,
  catalogueOf,
  en,
  fillText,
  formatDateTime,
  type Catalogue,
  type RecipientLanguage,
} from '@esign/contract';

/**
 * The e-mails and SMS the product sends, as pure functions: every builder returns a subject, a plain-text part, an HTML
 * part (every interpolated value HTML-escaped) and a short SMS (160 characters where the link allows). Every time is
 * written with formatDateTime in the organisation's time zone ('25 Nov 2026, 12:58 am IST'). A recipient's messages
 * are in the recipient's language (issue 22): their texts are the contract's catalogue of it (`mail`), English when
 * none is set; the sender's and the /list messages stay English.
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
  /** The recipient's language (their party's, or the signing page's for an OTP); English when absent. */
  language?: RecipientLanguage | null;
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

/** The OTP's validity, as the design fixes it (10 minutes): the contract's, which the English catalogue says. */
export { OTP_VALIDITY_TEXT };
/**
 * The most characters an SMS is made to fit (GSM-7: one part). A text in an Indian script goes as UCS-2 (70 a part),
 * so such an SMS of 160 characters is three parts at most.
 */
export const SMS_LIMIT = 160;

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
  /** The recipient's language; English when null. */
  language?: RecipientLanguage | null;
  /** Who speaks in the footer ('Acme, via e-Sign'); the product alone when null. */
  orgName: string | null;
  heading: string;
  /** Paragraphs of plain text (escaped for the HTML part). */
  paragraphs: string[];
  action?: { label: string; url: string };
  /** Small print under the button. */
  notes?: string[];
}

const PRODUCT = 'e-Sign';
const footer = (layout: Layout) =>
  layout.orgName ? fillText(mailTexts(layout.language).footerVia, { org: layout.orgName }) : PRODUCT;

/** The e-mail and SMS texts of a language (the contract's catalogue; English for none). */
const mailTexts = (language: RecipientLanguage | null | undefined): Catalogue['mail'] => catalogueOf(language).mail;

export function render(layout: Layout): { text: string; html: string } {
  const mail = mailTexts(layout.language);
  const text = [
    ...layout.paragraphs,
    ...(layout.action ? [`${layout.action.label}:\n${layout.action.url}`] : []),
    ...(layout.notes ?? []),
    footer(layout),
  ].join('\n\n');
  // English as it always was; another language names itself, so mail clients pick its fonts (and screen readers it).
  const lang = layout.language && layout.language !== 'en' ? ` lang="${layout.language}"` : '';
  const p = (s: string) => `<p style="margin:0 0 16px">${escapeHtml(s).replace(/\n/g, '<br>')}</p>`;
  const html = [
    '<!doctype html>',
    `<html${lang}><body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1f2933">`,
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
          `<p style="margin:0 0 16px;font-size:12px;color:#52606d">${escapeHtml(mail.orOpenLink)} ` +
            `<a href="${escapeHtml(layout.action.url)}" style="color:${Brand.primary}">${escapeHtml(layout.action.url)}</a></p>`,
        ]
      : []),
    ...(layout.notes ?? []).map((n) => `<p style="margin:0 0 12px;font-size:12px;color:#52606d">${escapeHtml(n)}</p>`),
    `<p style="margin:24px 0 0;font-size:12px;color:#52606d">${escapeHtml(footer(layout))}</p>`,
    '</div></body></html>',
  ].join('\n');
  return { text, html };
}

function invitationLike(i: InvitationInput, reminder: boolean): BuiltMessage {
  const mail = mailTexts(i.language);
  const signUrl = checkUrl(i.signUrl);
  const [org, file] = [oneLine(i.orgName), oneLine(i.filename)];
  const sender = i.senderName ? oneLine(i.senderName) : '';
  /** "Asha Rao (Acme)" in the subject, "Asha Rao of Acme" in the body; the organisation alone without a sender. */
  const from = sender ? fillText(mail.senderAndOrg, { sender, org }) : org;
  const fromText = i.senderName ? fillText(mail.senderOfOrg, { sender: i.senderName, org: i.orgName }) : i.orgName;
  const subject = fillText(reminder ? mail.reminderSubject : mail.invitationSubject, {
    from,
    file: shorten(file, 120),
  });
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: fillText(reminder ? mail.reminderHeading : mail.invitationHeading, { file: i.filename }),
    paragraphs: [
      fillText(mail.greeting, { name: i.partyName }),
      fillText(reminder ? mail.reminderBody : mail.invitationBody, { from: fromText, file: i.filename }),
    ],
    action: { label: mail.reviewAndSign, url: signUrl },
    notes: [
      mail.personalLink,
      ...(i.expiresAt ? [fillText(mail.expiresOn, { date: formatDateTime(i.expiresAt, i.timeZone, i.language) })] : []),
    ],
  });
  const prefix = reminder ? mail.smsReminder : '';
  const sms = fitSms(
    file,
    (f) => prefix + fillText(mail.smsInvitation1, { org, file: f, link: signUrl }),
    (f) => prefix + fillText(mail.smsInvitation2, { org: shorten(org, 30), file: f, link: signUrl }),
    (f) => prefix + fillText(mail.smsInvitation3, { file: f, link: signUrl }),
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
  const mail = mailTexts(i.language);
  const file = oneLine(i.filename);
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: mail.otpHeading,
    paragraphs: [
      fillText(mail.greeting, { name: i.partyName }),
      fillText(mail.otpIntro, { file: i.filename }),
      i.code,
      fillText(mail.otpValidity, { org: i.orgName }),
    ],
    notes: [mail.otpIgnore],
  });
  const sms = fitSms(file, (f) => fillText(mail.smsOtp, { code: i.code, file: f, org: oneLine(i.orgName) }));
  return { subject: fillText(mail.otpSubject, { file: shorten(file, 180) }), text, html, sms };
}

export function completed(i: CompletedInput): BuiltMessage {
  const mail = mailTexts(i.language);
  const downloadUrl = checkUrl(i.downloadUrl);
  const file = oneLine(i.filename);
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: fillText(mail.completedHeading, { file: i.filename }),
    paragraphs: [fillText(mail.greeting, { name: i.partyName }), fillText(mail.completedBody, { file: i.filename })],
    action: { label: mail.downloadSigned, url: downloadUrl },
  });
  const sms = fitSms(
    file,
    (f) => fillText(mail.smsCompleted1, { org: oneLine(i.orgName), file: f, link: downloadUrl }),
    (f) => fillText(mail.smsCompleted2, { file: f, link: downloadUrl }),
  );
  return { subject: fillText(mail.completedSubject, { file: shorten(file, 200) }), text, html, sms };
}

/** To a party who had been invited: who rejected, when and why; the request is closed. */
export function rejected(i: RejectedInput): BuiltMessage {
  const mail = mailTexts(i.language);
  const file = oneLine(i.filename);
  const remark = i.remark?.trim();
  const when = formatDateTime(i.rejectedAt, i.timeZone, i.language);
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: fillText(mail.rejectedHeading, { file: i.filename }),
    paragraphs: [
      fillText(mail.greeting, { name: i.partyName }),
      fillText(mail.rejectedBody, { name: i.rejectedBy, file: i.filename, date: when }),
      remark ? fillText(mail.remark, { remark }) : mail.noRemark,
    ],
  });
  const sms = fitSms(file, (f) =>
    fillText(mail.smsRejected, { org: oneLine(i.orgName), file: f, name: oneLine(i.rejectedBy), date: when }),
  );
  return {
    subject: fillText(mail.rejectedSubject, { file: shorten(file, 150), name: shorten(oneLine(i.rejectedBy), 80) }),
    text,
    html,
    sms: shorten(sms, SMS_LIMIT),
  };
}

/** To the staff user who sent the request (in English): which party rejected, when, and the remark. */
export function rejectedToSender(
  i: RejectedInput & { rejectedByEmail: string; rejectedByOrder: number },
): BuiltMessage {
  const mail = en.mail;
  const file = oneLine(i.filename);
  const remark = i.remark?.trim();
  const when = formatDateTime(i.rejectedAt, i.timeZone);
  const ref = i.refId ? ` (Ref ID ${i.refId})` : '';
  const { text, html } = render({
    orgName: i.orgName,
    heading: fillText(mail.rejectedHeading, { file: i.filename }),
    paragraphs: [
      fillText(mail.greeting, { name: i.partyName }),
      `${i.rejectedBy} <${i.rejectedByEmail}>, recipient ${i.rejectedByOrder}, rejected "${i.filename}"${ref} on ${when}. ` +
        'The signature request is closed; the other recipients were told.',
      remark ? fillText(mail.remark, { remark }) : mail.noRemark,
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

/** The OTP of /list, the recipient's own list: not tied to one organisation or document (nor to a language). */
export function recipientListOtp(i: RecipientListOtpInput): BuiltMessage {
  if (!/^\d{6}$/.test(i.code)) throw new Error('An OTP is 6 digits.');
  const { text, html } = render({
    orgName: null,
    heading: en.mail.otpHeading,
    paragraphs: [
      'Your one-time password to see the signing requests sent to you is:',
      i.code,
      `It is ${OTP_VALIDITY_TEXT}. Never share it.`,
    ],
    notes: [en.mail.otpIgnore],
  });
  const sms = `${i.code} is your OTP to see your signing requests. It is ${OTP_VALIDITY_TEXT}. Do not share it.`;
  return { subject: 'Your verification code for your signing requests', text, html, sms };
}

export function failed(i: FailedInput): BuiltMessage {
  const mail = mailTexts(i.language);
  const file = oneLine(i.filename);
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: fillText(mail.failedHeading, { file: i.filename }),
    paragraphs: [
      fillText(mail.greeting, { name: i.partyName }),
      fillText(mail.failedBody, { file: i.filename, reason: i.reason }),
      mail.failedWait,
    ],
  });
  const sms = fitSms(file, (f) => fillText(mail.smsFailed, { org: oneLine(i.orgName), file: f }));
  return { subject: fillText(mail.failedSubject, { file: shorten(file, 200) }), text, html, sms };
}

export function expired(i: ExpiredInput): BuiltMessage {
  const mail = mailTexts(i.language);
  const file = oneLine(i.filename);
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: mail.expiredHeading,
    paragraphs: [fillText(mail.greeting, { name: i.partyName }), fillText(mail.expiredBody, { file: i.filename })],
  });
  const sms = fitSms(file, (f) => fillText(mail.smsExpired, { org: oneLine(i.orgName), file: f }));
  return { subject: fillText(mail.expiredSubject, { file: shorten(file, 180) }), text, html, sms };
}

/** To a party who had been invited and had not finished: the sender cancelled the request (issue 22). */
export function cancelled(i: CancelledInput): BuiltMessage {
  const mail = mailTexts(i.language);
  const file = oneLine(i.filename);
  const reason = i.reason?.trim();
  const { text, html } = render({
    language: i.language,
    orgName: i.orgName,
    heading: mail.cancelledHeading,
    paragraphs: [
      fillText(mail.greeting, { name: i.partyName }),
      fillText(mail.cancelledBody, { org: i.orgName, file: i.filename }),
      ...(reason ? [fillText(mail.cancelledReason, { reason })] : []),
    ],
  });
  const sms = fitSms(file, (f) => fillText(mail.smsCancelled, { org: oneLine(i.orgName), file: f }));
  return { subject: fillText(mail.cancelledSubject, { file: shorten(file, 180) }), text, html, sms };
}
