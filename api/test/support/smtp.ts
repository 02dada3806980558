import { SMTPServer } from 'smtp-server';
import { freePort } from './mariadb-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on 127.0.0.1 and a free port (no auth, no TLS) that keeps every message it receives. While
 * `failing()` answers true it refuses every message with a temporary error (451), as a mail server in trouble does.
 */
export async function startSmtpServer(
  opts: { failing?: () => boolean } = {},
): Promise<{ port: number; mails: ReceivedMail[]; close(): Promise<void> }> {
  const port = await freePort();
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      if (opts.failing?.()) {
        stream.resume();
        stream.on('end', () =>
          callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 })),
        );
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
