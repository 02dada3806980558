import {
  CATALOGUES,
  RECIPIENT_LANGUAGES,
  RecipientMessages,
  RequestMessages,
  en,
  fillText,
  formatDateTime,
  type RecipientLanguage,
} from '@esign/contract';
import { OutboxMessageEntity, type MessageKind } from '../src/modules/notifications/outbox-message.entity';
import {
  SMS_LIMIT,
  cancelled,
  completed,
  expired,
  failed,
  invitation,
  otp,
  rejected,
  reminder,
  type BuiltMessage,
} from '../src/modules/notifications/templates';
import { SIGNERS, upload, uploadOk } from './support/requests';
import { partyRow, tokensOf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';
import { SCRIPT_OF } from './support/scripts';

/**
 * A recipient's language (issue 22): `language` on each recipient of /v1/upload, kept on the party, shown to staff and
 * to the recipient's page, copied by duplicate; every e-mail and SMS the recipient receives written from the
 * catalogue of that language; the OTP in the signing page's language (sendotp's `lang`).
 */

/** A sign link as long as the product's: PUBLIC_URL, the path and a 43-character token (95 characters). */
const SIGN_URL = 'http://localhost:3000/esign/demo/1234567890/1?token=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const LONG_NAME = 'Lease agreement for the ground floor shop at MG Road, Bengaluru, with schedules A to F (final).pdf';
const AT = new Date('2026-11-25T07:28:00Z');

/** Every message a recipient can receive, in `language`. */
function messagesIn(language: RecipientLanguage, filename = 'lease-2026.pdf'): Record<string, BuiltMessage> {
  const base = { orgName: 'Acme Traders', partyName: 'Kavya Nair', filename, timeZone: 'Asia/Kolkata', language };
  return {
    invitation: invitation({ ...base, senderName: 'Asha Rao', signUrl: SIGN_URL, expiresAt: AT }),
    reminder: reminder({ ...base, signUrl: SIGN_URL, expiresAt: AT }),
    otp: otp({ ...base, code: '482913' }),
    completed: completed({ ...base, downloadUrl: SIGN_URL }),
    rejected: rejected({ ...base, rejectedBy: 'Vikram Shah', remark: 'Clause 4 is wrong.', rejectedAt: AT }),
    failed: failed({ ...base, reason: 'The ESP did not answer.' }),
    expired: expired(base),
    cancelled: cancelled({ ...base, reason: 'Sent to the wrong person.' }),
  };
}

describe("a recipient's messages in the recipient's language", () => {
  it.each(RECIPIENT_LANGUAGES.map((l) => [l]))('%s: subject, text, HTML and SMS of every message', (language) => {
    const mail = CATALOGUES[language].mail;
    for (const m of Object.values(messagesIn(language))) {
      for (const part of [m.subject, m.text, m.html, m.sms]) {
        if (language !== 'en') expect(part).toMatch(SCRIPT_OF[language]);
        expect(part).not.toMatch(/\{\w+\}/); // every placeholder filled
      }
      expect(m.text).toContain(fillText(mail.greeting, { name: 'Kavya Nair' }));
      expect(m.text).toContain(fillText(mail.footerVia, { org: 'Acme Traders' }));
      if (language !== 'en') {
        expect(m.html).toContain(`<html lang="${language}">`);
        // No English sentence left: the English catalogue's words are not in it.
        expect(m.text).not.toContain('Hello ');
        expect(m.text).not.toContain(', via e-Sign');
      } else expect(m.html).toContain('<html><body');
    }
  });

  it('says the dates in the language (the organisation time zone kept)', () => {
    const hindi = messagesIn('hi').rejected;
    const date = formatDateTime(AT, 'Asia/Kolkata', 'hi');
    expect(date).toBe('25 नव॰ 2026, 12:58 pm IST');
    expect(hindi.text).toContain(date);
    expect(messagesIn('en').rejected.text).toContain('25 Nov 2026, 12:58 pm IST');
  });

  it.each(RECIPIENT_LANGUAGES.map((l) => [l]))(
    '%s: every SMS fits 160 characters with a product-length link, the file name shortened when needed',
    (language) => {
      for (const filename of ['lease.pdf', LONG_NAME]) {
        const all = messagesIn(language, filename);
        const tooLong = Object.entries(all).filter(([, m]) => [...m.sms].length > SMS_LIMIT);
        expect(tooLong.map(([kind, m]) => `${kind}: ${m.sms}`)).toEqual([]);
        // The link and the code are always whole.
        expect(all.invitation.sms).toContain(SIGN_URL);
        expect(all.reminder.sms).toContain(SIGN_URL);
        expect(all.otp.sms).toContain('482913');
        // In an Indian script (UCS-2, 70 characters a part) that is at most 3 parts.
        if (language !== 'en') expect(Math.ceil([...all.invitation.sms].length / 67)).toBeLessThanOrEqual(3);
      }
    },
  );

  it('English is exactly what it was', () => {
    const m = messagesIn('en');
    expect(m.invitation.subject).toBe('Asha Rao (Acme Traders) sent you "lease-2026.pdf" to sign');
    // The first wording and the link are over 160 characters: the second, as before.
    expect(m.invitation.sms).toBe(`Acme Traders: sign "lease-2026.pdf" (personal link): ${SIGN_URL}`);
    expect(m.otp.sms).toBe(
      '482913 is your OTP to sign "lease-2026.pdf" (Acme Traders). It is valid for 10 minutes. Do not share it.',
    );
    expect(m.cancelled.text).toContain('Reason: Sent to the wrong person.');
    expect(invitation({ orgName: 'A', partyName: 'B', filename: 'c.pdf', signUrl: SIGN_URL, language: null })).toEqual(
      invitation({ orgName: 'A', partyName: 'B', filename: 'c.pdf', signUrl: SIGN_URL }),
    );
  });
});

describe('the party language through the API', () => {
  let t: TestApp;
  let key: string;
  const orgId = 'lang';
  const recipients = [
    { ...SIGNERS[0], language: 'hi' },
    { ...SIGNERS[1], signature_type: 'e-Signature', language: 'TA' },
    SIGNERS[2],
  ];
  const outbox = (to: string, kind: MessageKind, channel: 'email' | 'sms') =>
    t.db.getRepository(OutboxMessageEntity).find({ where: { to, kind, channel }, order: { id: 'DESC' } });

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, orgId);
    key = await orgApiKey(t, orgId);
  });
  afterAll(() => t.close());

  it('refuses a language it does not have, naming the recipient, and keeps nothing', async () => {
    const before = await t.db.query('SELECT COUNT(*) AS n FROM parties');
    for (const language of ['fr', 'hindi', 7, true]) {
      const res = await upload(t, key, orgId, { recipients: [SIGNERS[0], { ...SIGNERS[1], language }] });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`Recipient 2: ${RequestMessages.languageInvalid}`);
    }
    expect(await t.db.query('SELECT COUNT(*) AS n FROM parties')).toEqual(before);
  });

  it('keeps it on the party, shows it to staff and the recipient, copies it, and writes the messages in it', async () => {
    const up = await uploadOk(t, key, orgId, { recipients, otpRequired: true });
    expect((await partyRow(t, up.refId, 1)).language).toBe('hi');
    expect((await partyRow(t, up.refId, 2)).language).toBe('ta');
    expect((await partyRow(t, up.refId, 3)).language).toBeNull();

    // The draft's reference (the console's edit) and, once sent, the request's page.
    const draft = await t.http.get(`/v1/reference/${orgId}/${up.refId}`).set('apikey', key).expect(200);
    expect(draft.body.data.map((p: { language: string | null }) => p.language)).toEqual(['hi', 'ta', null]);
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId, data: [1, 2].map((order) => ({ refId: up.refId, order, pageNo: [1] })) })
      .expect(200);
    const page = await t.http.get(`/api/requests/${up.refId}`).set('apikey', key).expect(200);
    expect(page.body.data.map((p: { language: string | null }) => p.language)).toEqual(['hi', 'ta', null]);

    // The invitations: Hindi to the first, Tamil to the second (e-mail and SMS).
    const [hiMail] = await outbox(SIGNERS[0].email, 'invitation', 'email');
    expect(hiMail.subject).toBe(
      fillText(CATALOGUES.hi.mail.invitationSubject, { from: `Org ${orgId}`, file: 'normal.pdf' }),
    );
    expect(hiMail.text).toContain(fillText(CATALOGUES.hi.mail.greeting, { name: SIGNERS[0].name }));
    const [taSms] = await outbox('+919123456789', 'invitation', 'sms');
    expect(taSms.text).toMatch(SCRIPT_OF.ta);
    expect(taSms.text).toContain(`Org ${orgId}`);
    expect(taSms.text).toMatch(/\/esign\/lang\/\d+\/2\?token=/);

    // The recipient's own reference answer carries it (the page opens in it).
    const tokens = await tokensOf(t, key, orgId, up.refId);
    const reference = await t.http
      .get(`/v1/reference/${orgId}/${up.refId}/1`)
      .set('x-sign-token', tokens[1])
      .expect(200);
    expect(reference.body.request.language).toBe('hi');

    // The OTP: in the page's language when it says one, else the party's.
    await t.http.get(`/v1/sendotp/${orgId}/${up.refId}/1?lang=ta`).set('x-sign-token', tokens[1]).expect(200);
    const [taOtp] = await outbox(SIGNERS[0].email, 'otp', 'email');
    expect(taOtp.subject).toBe(fillText(CATALOGUES.ta.mail.otpSubject, { file: 'normal.pdf' }));
    const [taOtpSms] = await outbox('+919876543210', 'otp', 'sms');
    expect(taOtpSms.text).toMatch(SCRIPT_OF.ta);
    t.clock.advance(60);
    await t.http.get(`/v1/sendotp/${orgId}/${up.refId}/1`).set('x-sign-token', tokens[1]).expect(200);
    const [hiOtp] = await outbox(SIGNERS[0].email, 'otp', 'email');
    expect(hiOtp.subject).toBe(fillText(CATALOGUES.hi.mail.otpSubject, { file: 'normal.pdf' }));
    const bad = await t.http.get(`/v1/sendotp/${orgId}/${up.refId}/1?lang=xx`).set('x-sign-token', tokens[1]);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(RecipientMessages.languageInvalid);

    // A copy keeps each recipient's language.
    const copy = await t.http.get(`/v1/duplicateRef/${orgId}/${up.refId}`).set('apikey', key).expect(200);
    expect((await partyRow(t, copy.body.refId, 1)).language).toBe('hi');
    expect((await partyRow(t, copy.body.refId, 3)).language).toBeNull();
  });

  it('writes English for a party without a language, as before', async () => {
    const up = await uploadOk(t, key, orgId, {
      recipients: [{ ...SIGNERS[0], email: 'plain@example.in' }],
      otpRequired: false,
    });
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId, data: [{ refId: up.refId, order: 1, pageNo: [1] }] })
      .expect(200);
    const [mail] = await outbox('plain@example.in', 'invitation', 'email');
    expect(mail.subject).toBe(fillText(en.mail.invitationSubject, { from: `Org ${orgId}`, file: 'normal.pdf' }));
    expect(mail.html).toContain('<html><body');
  });
});
