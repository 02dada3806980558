import { createTransport, type SMTPTransportOptions, type Transporter } from 'nodemailer';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
}

/** Where e-mail goes: SMTP when SMTP_URL is set, else the dev outbox (the outbox_messages row is the message). */
export interface MailTransport {
  readonly name: 'smtp' | 'outbox';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export class OutboxMailTransport implements MailTransport {
  readonly name = 'outbox' as const;
  async send(): Promise<void> {}
  close(): void {}
}

export class SmtpMailTransport implements MailTransport {
  readonly name = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(url: string) {
    this.transporter = createTransport(smtpOptions(url));
  }

  async send(mail: OutgoingMail): Promise<void> {
    // Multipart/alternative: the plain-text part always, the HTML part when there is one.
    await this.transporter.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html ? { html: mail.html } : {}),
    });
  }

  close(): void {
    this.transporter.close();
  }
}

/**
 * SMTP_URL to nodemailer options: smtp:// (STARTTLS when the server offers it) or smtps:// (TLS from the start),
 * user and password URL-encoded, and the query flags requireTLS=true, ignoreTLS=true and rejectUnauthorized=false.
 */
export function smtpOptions(url: string): SMTPTransportOptions {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error('SMTP_URL must be smtp:// or smtps://');
  const secure = u.protocol === 'smtps:';
  const flag = (name: string) => u.searchParams.get(name) === 'true';
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    ...(flag('requireTLS') ? { requireTLS: true } : {}),
    ...(flag('ignoreTLS') ? { ignoreTLS: true } : {}),
    ...(u.searchParams.get('rejectUnauthorized') === 'false' ? { tls: { rejectUnauthorized: false } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}
