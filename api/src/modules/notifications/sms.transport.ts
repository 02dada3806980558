export interface OutgoingSms {
  to: string;
  text: string;
}

/** Where SMS go: the HTTP gateway adapter when SMS_URL is set, else the dev outbox. */
export interface SmsTransport {
  readonly name: 'sms-http' | 'outbox';
  send(sms: OutgoingSms, signal?: AbortSignal): Promise<void>;
}

export class OutboxSmsTransport implements SmsTransport {
  readonly name = 'outbox' as const;
  async send(): Promise<void> {}
}

const TIMEOUT_MS = 10_000;

/**
 * The HTTP SMS gateway adapter: POST SMS_URL with JSON { to, text }; any 2xx is sent. The gateway's answer is not
 * recorded (it may echo the text, which can hold an OTP), only its status.
 */
export class HttpSmsTransport implements SmsTransport {
  readonly name = 'sms-http' as const;
  constructor(private readonly url: string) {}

  async send(sms: OutgoingSms, signal?: AbortSignal): Promise<void> {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ to: sms.to, text: sms.text }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: 'error',
      });
    } catch (err) {
      if (timeout.aborted) throw new Error(`the SMS gateway did not answer in ${TIMEOUT_MS / 1000} s`);
      throw new Error(`the SMS gateway could not be reached: ${describe(err)}`);
    }
    await res.body?.cancel().catch(() => undefined);
    if (!res.ok) throw new Error(`the SMS gateway answered ${res.status}`);
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
