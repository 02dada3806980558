import { Brand } from '@esign/contract';
import { createServer, type Server } from 'node:http';
import { PassThrough } from 'node:stream';
import { JobEntity } from '../src/modules/jobs/job.entity';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { NotificationsService } from '../src/modules/notifications/notifications.service';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import {
  completed,
  expired,
  failed,
  invitation,
  otp,
  recipientListOtp,
  rejected,
  rejectedToSender,
  reminder,
  type BuiltMessage,
} from '../src/modules/notifications/templates';
import { freePort } from './support/mariadb-server';
import { parseMime } from './support/mime';
import { startSmtpServer, type ReceivedMail } from './support/smtp';
import { startTestApp, type TestApp } from './support/test-app';

const SIGN_URL = 'http://localhost:3000/esign/acme/1700000000001/1?token=Tk_personal-token_0123456789abcdef';

/** RFC 2047 encoded words, in case a header needed them. */
const decodeWords = (value: string) =>
  value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );

const invitationFor = (partyName: string): BuiltMessage =>
  invitation({
    orgName: 'Acme Corp',
    senderName: 'Asha Rao',
    partyName,
    filename: 'lease-2026.pdf',
    signUrl: SIGN_URL,
  });

describe('notifications through a real SMTP server and SMS gateway', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sms: Server;
  let mails: ReceivedMail[] = [];
  const texts: { contentType: string | undefined; body: unknown }[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const smtpPort = smtp.port;
    mails = smtp.mails;
    sms = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        texts.push({ contentType: req.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString()) });
        res.writeHead(202).end('queued');
      });
    });
    await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', resolve));
    const smsPort = (sms.address() as { port: number }).port;
    t = await startTestApp({
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'Acme Sign <sign@acme.test>',
      SMS_URL: `http://127.0.0.1:${smsPort}/send`,
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await new Promise((r) => sms.close(r));
  });

  it('sends a queued invitation as multipart e-mail (text and HTML, both with the sign link) and the SMS', async () => {
    const built = invitationFor('Ravi Kumar');
    const rows = await t.db.transaction((m) =>
      t.app.get(NotificationsService).queueBuilt(
        m,
        {
          orgId: 'acme',
          refId: 1700000000001,
          partyOrder: 1,
          kind: 'invitation',
          email: 'ravi@example.com',
          phone: '+919876543210',
        },
        built,
      ),
    );
    expect(rows.map((r) => [r.channel, r.status, r.transport])).toEqual([
      ['email', 'queued', 'smtp'],
      ['sms', 'queued', 'sms-http'],
    ]);
    expect(mails).toHaveLength(0);

    expect(await t.app.get(JobsRunner).drain()).toBe(2);

    expect(mails).toHaveLength(1);
    expect(mails[0].from).toBe('sign@acme.test');
    expect(mails[0].to).toEqual(['ravi@example.com']);
    const mail = parseMime(mails[0].raw);
    expect(mail.headers.get('from')).toBe('Acme Sign <sign@acme.test>');
    expect(mail.headers.get('to')).toBe('ravi@example.com');
    expect(decodeWords(mail.headers.get('subject')!)).toBe('Asha Rao (Acme Corp) sent you "lease-2026.pdf" to sign');
    expect(mail.headers.get('content-type')).toMatch(/^multipart\/alternative/);
    const text = mail.parts.find((p) => p.headers.get('content-type')?.startsWith('text/plain'));
    const html = mail.parts.find((p) => p.headers.get('content-type')?.startsWith('text/html'));
    expect(text?.body).toContain(SIGN_URL);
    expect(text?.body).toContain('Hello Ravi Kumar,');
    expect(text?.body).toContain('This link is personal');
    expect(html?.body).toContain(`href="${SIGN_URL}"`);
    expect(html?.body).toContain('Asha Rao of Acme Corp has sent you &quot;lease-2026.pdf&quot;');

    expect(texts).toEqual([{ contentType: 'application/json', body: { to: '+919876543210', text: built.sms } }]);
    expect(built.sms).toContain(SIGN_URL);

    const stored = await t.db.getRepository(OutboxMessageEntity).find({ order: { id: 'ASC' } });
    expect(stored.map((r) => [r.status, r.error, r.sentAt?.toISOString()])).toEqual([
      ['sent', null, t.clock.now().toISOString()],
      ['sent', null, t.clock.now().toISOString()],
    ]);
    // Sent messages are not sent again.
    expect(await t.app.get(JobsRunner).drain()).toBe(0);
    expect(mails).toHaveLength(1);
  });
});

describe('a mail server that is down', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}` });
  });
  afterAll(() => t.close());

  it('retries the message with backoff and ends failed with the error after the last attempt', async () => {
    const row = await t.db.transaction((m) =>
      t.app.get(NotificationsService).queue(m, {
        orgId: 'acme',
        kind: 'invitation',
        channel: 'email',
        to: 'ravi@example.com',
        subject: 'Please sign',
        text: `Sign: ${SIGN_URL}`,
      }),
    );
    const runner = t.app.get(JobsRunner);
    const messages = t.db.getRepository(OutboxMessageEntity);
    const jobs = t.db.getRepository(JobEntity);

    expect(await runner.drain()).toBe(1);
    let msg = await messages.findOneByOrFail({ id: row.id });
    expect(msg.status).toBe('queued');
    expect(msg.error).toMatch(/ECONNREFUSED|connect/i);
    const job = await jobs.findOneByOrFail({ type: 'notify.send' });
    expect(job).toMatchObject({ status: 'queued', attempts: 1, maxAttempts: 5 });
    expect(job.runAt.getTime()).toBeGreaterThan(t.clock.now().getTime());
    expect(await runner.drain()).toBe(0);

    let runs = 1;
    for (let i = 0; i < 10 && runs < 5; i++) {
      t.clock.advance(3600);
      runs += await runner.drain();
    }
    expect(runs).toBe(5);
    msg = await messages.findOneByOrFail({ id: row.id });
    expect(msg).toMatchObject({ status: 'failed', sentAt: null });
    expect(msg.error).toMatch(/ECONNREFUSED|connect/i);
    expect(await jobs.findOneByOrFail({ id: job.id })).toMatchObject({ status: 'failed', attempts: 5 });
    t.clock.advance(24 * 3600);
    expect(await runner.drain()).toBe(0);
  });
});

describe('the dev outbox', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    t = await startTestApp({ LOG_LEVEL: 'info' }, { logDestination: sink });
  });
  afterAll(() => t.close());

  it('keeps every message, lists them newest first at /dev/outbox, and logs kind and recipient but never the body', async () => {
    const notifications = t.app.get(NotificationsService);
    const code = '493817';
    await t.db.transaction((m) =>
      notifications.queueBuilt(
        m,
        { orgId: 'acme', refId: 1700000000001, partyOrder: 2, kind: 'invitation', email: 'meera@example.com' },
        invitationFor('Meera'),
      ),
    );
    t.clock.advance(60);
    await t.db.transaction((m) =>
      notifications.queueBuilt(
        m,
        {
          orgId: 'acme',
          refId: 1700000000001,
          partyOrder: 2,
          kind: 'otp',
          email: 'meera@example.com',
          phone: '+919800000002',
        },
        otp({ orgName: 'Acme Corp', partyName: 'Meera', filename: 'lease-2026.pdf', code }),
      ),
    );
    expect(await t.app.get(JobsRunner).drain()).toBe(3);

    const all = await t.http.get('/dev/outbox').expect(200);
    expect(all.headers['cache-control']).toBe('no-store');
    expect(all.body.map((m: { kind: string; channel: string }) => `${m.kind}/${m.channel}`)).toEqual([
      'otp/sms',
      'otp/email',
      'invitation/email',
    ]);

    const mine = await t.http.get('/dev/outbox').query({ to: 'meera@example.com' }).expect(200);
    expect(mine.body).toHaveLength(2);
    const [otpMail, invite] = mine.body;
    expect(Object.keys(otpMail).sort()).toEqual(
      ['channel', 'createdAt', 'html', 'id', 'kind', 'partyOrder', 'refId', 'status', 'subject', 'text', 'to'].sort(),
    );
    expect(otpMail).toMatchObject({
      channel: 'email',
      kind: 'otp',
      to: 'meera@example.com',
      status: 'sent',
      refId: 1700000000001,
      partyOrder: 2,
      createdAt: t.clock.now().toISOString(),
    });
    expect(otpMail.text).toContain(code);
    expect(otpMail.subject).not.toContain(code);
    expect(invite.text).toContain(SIGN_URL);
    expect(invite.html).toContain(`href="${SIGN_URL}"`);
    expect((await t.http.get('/dev/outbox').query({ to: 'nobody@example.com' }).expect(200)).body).toEqual([]);
    expect((await t.http.get('/dev/outbox').query({ to: 'x', orgId: 'acme' }).expect(400)).body.error).toBe(
      'VALIDATION_FAILED',
    );

    await new Promise((r) => setImmediate(r));
    const logs = lines.join('\n');
    expect(logs).toContain('dev outbox: otp email to meera@example.com');
    expect(logs).toContain('dev outbox: otp sms to +919800000002');
    expect(logs).toContain('dev outbox: invitation email to meera@example.com');
    expect(logs).not.toContain(code);
    expect(logs).not.toContain('Tk_personal-token');
  });

  it('answers 404 to a caller that is not on this machine', async () => {
    const proxied = await startTestApp({ TRUSTED_PROXIES: 'loopback' });
    try {
      await proxied.http.get('/dev/outbox').expect(200);
      await proxied.http.get('/dev/outbox').set('X-Forwarded-For', '203.0.113.7').expect(404);
    } finally {
      await proxied.close();
    }
  });

  it('answers 404 in production', async () => {
    const prod = await startTestApp({ NODE_ENV: 'production', ALLOW_DEV_TSA: 'true' });
    try {
      const res = await prod.http.get('/dev/outbox').expect(404);
      expect(res.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    } finally {
      await prod.close();
    }
  });
});

describe('message templates', () => {
  const base = { orgName: 'Acme Corp', partyName: 'Ravi', filename: 'lease.pdf' };
  /** 25 Nov 2026, 12:58 am in India. */
  const REJECTED_AT = new Date('2026-11-24T19:28:00Z');
  const all: [string, BuiltMessage][] = [
    ['invitation', invitation({ ...base, senderName: 'Asha', signUrl: SIGN_URL })],
    ['reminder', reminder({ ...base, signUrl: SIGN_URL })],
    ['otp', otp({ ...base, code: '123456' })],
    ['completed', completed({ ...base, downloadUrl: 'http://localhost:3000/v1/download/acme/1?token=abc' })],
    ['rejected', rejected({ ...base, rejectedBy: 'Meera', remark: 'Wrong amount on page 2', rejectedAt: REJECTED_AT })],
    [
      'rejected to the sender',
      rejectedToSender({
        ...base,
        partyName: 'Ravi',
        rejectedBy: 'Meera',
        rejectedByEmail: 'meera@example.in',
        rejectedByOrder: 2,
        remark: 'Wrong amount on page 2',
        rejectedAt: REJECTED_AT,
        refId: 4711,
      }),
    ],
    ['failed', failed({ ...base, reason: 'The signature could not be applied.' })],
    ['expired', expired(base)],
  ];

  it.each(all)('%s has a subject, a plain-text part, an HTML part and a short SMS', (_kind, m) => {
    expect(m.subject.length).toBeGreaterThan(5);
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.text).toContain('Ravi');
    expect(m.html).toMatch(/^<!doctype html>/);
    expect(m.sms.length).toBeLessThanOrEqual(160);
  });

  it('says what each message is about', () => {
    const by = Object.fromEntries(all);
    expect(by.invitation.text).toContain('This link is personal');
    expect(by.reminder.subject).toMatch(/^Reminder:/);
    expect(by.reminder.text).toContain('Reminder:');
    expect(by.otp.text).toContain('123456');
    expect(by.otp.text).toContain('valid for 10 minutes');
    expect(by.otp.sms).toContain('123456');
    expect(by.otp.subject).not.toContain('123456');
    expect(by.completed.text).toContain('http://localhost:3000/v1/download/acme/1?token=abc');
    expect(by.completed.sms).toContain('http://localhost:3000/v1/download/acme/1?token=abc');
    expect(by.rejected.text).toContain('Meera rejected "lease.pdf" on 25 Nov 2026, 12:58 am IST.');
    expect(by.rejected.text).toContain('Remark: Wrong amount on page 2');
    expect(by['rejected to the sender'].subject).toBe('Rejected by Meera: "lease.pdf" (Ref ID 4711)');
    expect(by['rejected to the sender'].text).toContain(
      'Meera <meera@example.in>, recipient 2, rejected "lease.pdf" (Ref ID 4711) on 25 Nov 2026, 12:58 am IST.',
    );
    expect(by['rejected to the sender'].text).toContain('Remark: Wrong amount on page 2');
    expect(by.failed.text).toContain('The signature could not be applied.');
    expect(by.expired.text).toContain('has expired');
    for (const [, m] of [all[0], all[1]]) expect(m.sms).toContain(SIGN_URL);
  });

  it('escapes every interpolated value in the HTML part and keeps it as typed in the text part', () => {
    const evil = '<script>alert("x")</script>';
    const m = invitation({
      orgName: `${evil} & Co`,
      senderName: `<b>${evil}</b>`,
      partyName: evil,
      filename: `"><img src=x onerror=alert(1)>.pdf`,
      signUrl: `${SIGN_URL}&a="><script>`,
    });
    expect(m.html).not.toContain('<script>');
    expect(m.html).not.toContain('<img');
    expect(m.html).not.toContain('<b>');
    expect(m.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    expect(m.html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.pdf');
    expect(m.html).toContain('&amp;a=&quot;&gt;&lt;script&gt;');
    expect(m.text).toContain(`Hello ${evil},`);
    for (const [, built] of [
      ['otp', otp({ ...base, partyName: evil, code: '123456' })],
      ['rejected', rejected({ ...base, rejectedBy: evil, remark: evil, rejectedAt: REJECTED_AT })],
      [
        'rejected to the sender',
        rejectedToSender({
          ...base,
          rejectedBy: evil,
          remark: evil,
          rejectedAt: REJECTED_AT,
          rejectedByEmail: evil,
          rejectedByOrder: 1,
        }),
      ],
      ['failed', failed({ ...base, reason: evil })],
      ['expired', expired({ ...base, filename: evil })],
    ] as const) {
      expect(built.html).not.toContain('<script>');
      expect(built.html).toContain('&lt;script&gt;');
    }
  });

  it("writes every time with formatDateTime in the organisation's time zone", () => {
    const rejectedAt = new Date('2026-07-24T19:28:00Z');
    const india = rejected({ ...base, rejectedBy: 'Meera', rejectedAt });
    expect(india.text).toContain('on 25 Jul 2026, 12:58 am IST.');
    expect(india.sms).toContain('on 25 Jul 2026, 12:58 am IST.');
    const london = rejected({ ...base, rejectedBy: 'Meera', rejectedAt, timeZone: 'Europe/London' });
    expect(london.text).toContain('on 24 Jul 2026, 8:28 pm GMT+1.');
    const sender = rejectedToSender({
      ...base,
      rejectedBy: 'Meera',
      rejectedAt,
      rejectedByEmail: 'meera@example.in',
      rejectedByOrder: 1,
      timeZone: 'America/New_York',
    });
    expect(sender.text).toContain('on 24 Jul 2026, 3:28 pm GMT-4.');
    const invite = invitation({ ...base, signUrl: SIGN_URL, expiresAt: rejectedAt, timeZone: 'Asia/Kolkata' });
    expect(invite.text).toContain('The request expires on 25 Jul 2026, 12:58 am IST.');
    expect(invite.html).toContain('The request expires on 25 Jul 2026, 12:58 am IST.');
    expect(reminder({ ...base, signUrl: SIGN_URL, expiresAt: rejectedAt, timeZone: 'UTC' }).text).toContain(
      'The request expires on 24 Jul 2026, 7:28 pm UTC.',
    );
  });

  it("draws the buttons in the product's purple (the console's primary colour)", () => {
    const m = invitation({ ...base, signUrl: SIGN_URL });
    const button = /<a href="[^"]*" style="([^"]*)">Review and sign the document<\/a>/.exec(m.html)?.[1] ?? '';
    expect(button).toContain(`background:${Brand.primary};`);
    expect(button).toContain(`color:${Brand.onPrimary};`);
    expect(Brand.primary).toBe('#5E35B1');
    expect(completed({ ...base, downloadUrl: SIGN_URL }).html).toContain(`background:${Brand.primary};`);
    expect(m.html).not.toContain('#1565c0');
  });

  it("the list's OTP names no organisation or document and keeps the code out of the subject", () => {
    const m = recipientListOtp({ code: '654321' });
    expect(m.text).toContain('654321');
    expect(m.sms).toContain('654321');
    expect(m.subject).not.toContain('654321');
    expect(m.text).toContain('valid for 10 minutes');
    expect(m.text).not.toContain('via e-Sign');
    expect(() => recipientListOtp({ code: '65432' })).toThrow(/6 digits/);
  });

  it('refuses links that are not http(s) and codes that are not 6 digits', () => {
    expect(() => invitation({ ...base, signUrl: 'javascript:alert(1)' })).toThrow(/http/);
    expect(() => otp({ ...base, code: '12345' })).toThrow(/6 digits/);
  });

  it('shortens the file name to keep the SMS within 160 characters', () => {
    const m = invitation({ ...base, filename: `${'very-long-contract-name-'.repeat(8)}.pdf`, signUrl: SIGN_URL });
    expect(m.sms.length).toBeLessThanOrEqual(160);
    expect(m.sms).toContain(SIGN_URL);
    expect(m.sms).toContain('…');
  });
});
