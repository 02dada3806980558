import { checkInput, dscLoginSchema, dscVerifySchema } from '@esign/contract';
import WebSocket from 'ws';
import { DscTokenError, NoTokenError } from './errors';
import type { TokenModule, TokenSigner } from './token';

/**
 * The desktop signer agent (`esign-cli dsc-agent`): logs in to the e-Sign API with an OTP, keeps a WebSocket open
 * to it, and answers its jobs with the USB token: `certificate` (log in with the PIN the signer typed on the signing
 * page, reply with the certificate and keep the token open for that job), `sign` (sign with the token opened for
 * that job, then close it) and `cancel`. The PIN is passed to the token and never kept, printed or logged.
 */

export interface AgentLogger {
  info(line: string): void;
  error(line: string): void;
}

/** Opens the token signer with a PIN (the PIN goes to C_Login only). */
export type SignerOpener = (pin: string) => Promise<TokenSigner>;

/** The agent's own error codes, next to the token's (DscTokenErrorCode). */
export type AgentErrorCode = 'NO_SESSION' | 'BAD_MESSAGE' | 'AGENT_ERROR';

/** A failure the agent cannot get past (login refused, agent token expired): the command prints it and exits 1. */
export class AgentFatalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentFatalError';
  }
}

function baseUrl(server: string): string {
  return server.trim().replace(/\/+$/, '');
}

/** `http(s)://host/prefix` → `ws(s)://host/prefix/v1/dsc/agent/connect`. */
export function agentSocketUrl(server: string): string {
  const base = baseUrl(server);
  if (!/^https?:\/\//i.test(base))
    throw new AgentFatalError(`The server address must start with http:// or https://: ${server}`);
  return `${base.replace(/^http/i, 'ws')}/v1/dsc/agent/connect`;
}

async function postJson(server: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const url = `${baseUrl(server)}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new AgentFatalError(`Cannot reach ${baseUrl(server)}: ${error instanceof Error ? error.message : error}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = undefined;
  }
  const object = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  if (!res.ok) {
    const message = object.message;
    const text = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : '';
    throw new AgentFatalError(text || `${baseUrl(server)} answered ${res.status}`);
  }
  if (json === undefined) throw new AgentFatalError(`${baseUrl(server)} did not answer JSON`);
  return object;
}

/**
 * Logs the agent in: `POST /v1/dsc/agent/login { identifier }` → `{ loginId }`, then the OTP sent to the signer,
 * `POST /v1/dsc/agent/verify { loginId, otp }` → `{ agentToken }`. Rejects with AgentFatalError carrying the
 * server's message.
 */
export async function agentLogin(server: string, identifier: string, otp: () => Promise<string>): Promise<string> {
  // The server's own checks (the contract's schemas), before anything is sent: the same messages it would answer.
  const checkedLogin = checkInput(dscLoginSchema, { identifier });
  if (!checkedLogin.ok) throw new AgentFatalError(checkedLogin.problem.message);
  const login = await postJson(server, '/v1/dsc/agent/login', { identifier });
  if (typeof login.loginId !== 'string') throw new AgentFatalError('The server gave no loginId');
  const code = (await otp()).trim();
  const checkedOtp = checkInput(dscVerifySchema.shape.otp, code);
  if (!checkedOtp.ok) throw new AgentFatalError(checkedOtp.problem.message);
  const verified = await postJson(server, '/v1/dsc/agent/verify', { loginId: login.loginId, otp: code });
  if (typeof verified.agentToken !== 'string') throw new AgentFatalError('The server gave no agentToken');
  return verified.agentToken;
}

/**
 * The signer opener for a module and an optional token choice (label, slot id or serial). Without a choice, the
 * only inserted token; an error when there are several.
 */
export function tokenSignerOpener(module: TokenModule, token?: string): SignerOpener {
  return async (pin) => {
    if (token !== undefined && token !== '') return module.signer(token, pin);
    const tokens = await module.listTokens();
    if (tokens.length === 0) throw new NoTokenError({ detail: 'No initialised token in any slot' });
    if (tokens.length > 1) {
      throw new NoTokenError({
        message: 'Several USB tokens are inserted. Keep only the DSC token in, or choose it with --token.',
        detail: `${tokens.length} tokens: ${tokens.map((t) => t.label).join(', ')}`,
      });
    }
    return module.signer(tokens[0].slotId, pin);
  };
}

export interface DscAgentOptions {
  server: string;
  agentToken: string;
  openSigner: SignerOpener;
  log: AgentLogger;
  /** The cli package version, sent in `hello`. */
  version: string;
  /** How long a signer opened by `certificate` waits for its `sign`. Default 60 s. */
  sessionTimeoutMs?: number;
  /** Reconnection delays: from initial, doubling up to max. Default 1 s to 30 s. */
  reconnect?: { initialMs: number; maxMs: number };
}

interface Session {
  signer: TokenSigner;
  timer: NodeJS.Timeout;
}

type Reply = Record<string, unknown> & { type: string; id: string };

export class DscAgent {
  private readonly sessions = new Map<string, Session>();
  /** Jobs whose `certificate` is still opening the token, and whether a `cancel` came meanwhile. */
  private readonly opening = new Map<string, { cancelled: boolean }>();
  private socket: WebSocket | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private delay: number;
  private readonly sessionTimeoutMs: number;
  private readonly initialDelay: number;
  private readonly maxDelay: number;
  private readonly server: string;
  private readonly url: string;
  /** Resolves with each open connection (for callers and tests that wait for one). */
  private connectedWaiters: (() => void)[] = [];

  constructor(private readonly options: DscAgentOptions) {
    this.url = agentSocketUrl(options.server);
    this.server = new URL(baseUrl(options.server)).host;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 60_000;
    this.initialDelay = options.reconnect?.initialMs ?? 1_000;
    this.maxDelay = options.reconnect?.maxMs ?? 30_000;
    this.delay = this.initialDelay;
  }

  /**
   * Connects and serves jobs, reconnecting with backoff when the connection drops, until stop(). Rejects with
   * AgentFatalError when the server refuses the agent token (HTTP 401 at upgrade).
   */
  async run(): Promise<void> {
    while (!this.stopped) {
      const outcome = await this.connectOnce();
      if (outcome === 'unauthorized') {
        await this.closeAllSessions();
        throw new AgentFatalError(
          'The e-Sign server refused the agent login (expired or revoked): run esign-cli dsc-agent again to log in.',
        );
      }
      if (this.stopped) break;
      this.options.log.info(`Reconnecting to ${this.server} in ${Math.round(this.delay / 1000)} s…`);
      await this.sleep(this.delay);
      this.delay = Math.min(this.delay * 2, this.maxDelay);
    }
    await this.closeAllSessions();
  }

  /** Closes the connection and the open signers; run() then resolves. */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.wake?.();
    this.socket?.terminate();
  }

  /** Resolves when a connection is next open (or now if one is). */
  connected(): Promise<void> {
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.retryTimer = setTimeout(resolve, ms);
    });
  }

  private connectOnce(): Promise<'closed' | 'unauthorized'> {
    return new Promise((resolve) => {
      let unauthorized = false;
      const socket = new WebSocket(this.url, {
        headers: { Authorization: `Bearer ${this.options.agentToken}` },
        handshakeTimeout: 15_000,
      });
      this.socket = socket;
      socket.on('unexpected-response', (_req, res) => {
        if (res.statusCode === 401) unauthorized = true;
        else this.options.log.error(`${this.server} refused the connection: HTTP ${res.statusCode}`);
        res.resume();
        socket.terminate();
      });
      socket.on('open', () => {
        this.delay = this.initialDelay;
        this.options.log.info(`Connected to ${this.server}. Keep this window open while you sign.`);
        this.send({ type: 'hello', agent: 'esign-cli', version: this.options.version });
        for (const waiter of this.connectedWaiters.splice(0)) waiter();
      });
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        void this.onMessage(data.toString());
      });
      socket.on('error', (error) => {
        if (!unauthorized && !this.stopped && !/before the connection was established/.test(error.message)) {
          this.options.log.error(`Connection to ${this.server}: ${error.message}`);
        }
      });
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
        // The jobs of this connection cannot be answered any more: release the token.
        void this.closeAllSessions();
        resolve(unauthorized ? 'unauthorized' : 'closed');
      });
    });
  }

  private send(message: Record<string, unknown>): void {
    const socket = this.socket;
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  private reply(reply: Reply): void {
    this.send(reply);
  }

  private replyError(id: string, error: unknown): void {
    if (error instanceof DscTokenError) {
      this.reply({ type: 'error', id, code: error.code, message: error.message });
    } else {
      this.reply({ type: 'error', id, code: 'AGENT_ERROR', message: 'The signer app failed. Restart it and retry.' });
    }
  }

  private async onMessage(text: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.options.log.error('Ignored a message from the server that is not JSON.');
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const { type, id } = message as { type?: unknown; id?: unknown };
    if (typeof id !== 'string' || id === '') {
      this.reply({ type: 'error', id: '', code: 'BAD_MESSAGE', message: 'The job has no id.' });
      return;
    }
    switch (type) {
      case 'certificate': {
        const { pin } = message as { pin?: unknown };
        await this.onCertificate(id, typeof pin === 'string' ? pin : '');
        return;
      }
      case 'sign': {
        const { data } = message as { data?: unknown };
        await this.onSign(id, typeof data === 'string' ? data : undefined);
        return;
      }
      case 'cancel':
        await this.onCancel(id);
        return;
      default:
        this.reply({ type: 'error', id, code: 'BAD_MESSAGE', message: 'The signer app does not know this job.' });
    }
  }

  private async onCertificate(id: string, pin: string): Promise<void> {
    await this.closeSession(id);
    const pending = { cancelled: false };
    this.opening.set(id, pending);
    let signer: TokenSigner;
    try {
      signer = await this.options.openSigner(pin);
    } catch (error) {
      this.opening.delete(id);
      this.options.log.info(`Reading the certificate for ${this.server}… failed: ${this.describe(error)}`);
      this.replyError(id, error);
      return;
    } finally {
      if (this.opening.get(id) === pending && pending.cancelled) this.opening.delete(id);
    }
    if (pending.cancelled || this.opening.get(id) !== pending) {
      await signer.close();
      this.options.log.info(`Reading the certificate for ${this.server}… cancelled`);
      return;
    }
    this.opening.delete(id);
    const timer = setTimeout(() => void this.closeSession(id), this.sessionTimeoutMs);
    timer.unref();
    this.sessions.set(id, { signer, timer });
    this.reply({
      type: 'certificate',
      id,
      certificate: Buffer.from(signer.certificateDer).toString('base64'),
      chain: signer.chainDers.map((der) => Buffer.from(der).toString('base64')),
      algorithm: signer.algorithm,
    });
    this.options.log.info(`Reading the certificate for ${this.server}… done (${signer.token.label})`);
  }

  private async onSign(id: string, data: string | undefined): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) {
      this.reply({
        type: 'error',
        id,
        code: 'NO_SESSION',
        message: 'The USB token is not open for this signature any more. Sign again.',
      });
      this.options.log.info(`Signing for ${this.server}… failed: no open token for this job`);
      return;
    }
    this.sessions.delete(id);
    clearTimeout(session.timer);
    try {
      if (data === undefined || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
        this.reply({ type: 'error', id, code: 'BAD_MESSAGE', message: 'The data to sign is not base64.' });
        return;
      }
      const signature = await session.signer.sign(Buffer.from(data, 'base64'));
      this.reply({ type: 'signature', id, signature: Buffer.from(signature).toString('base64') });
      this.options.log.info(`Signing for ${this.server}… done`);
    } catch (error) {
      this.options.log.info(`Signing for ${this.server}… failed: ${this.describe(error)}`);
      this.replyError(id, error);
    } finally {
      await session.signer.close().catch(() => undefined);
    }
  }

  private async onCancel(id: string): Promise<void> {
    const pending = this.opening.get(id);
    if (pending) pending.cancelled = true;
    if (this.sessions.has(id)) this.options.log.info(`Signing for ${this.server}… cancelled`);
    await this.closeSession(id);
  }

  private async closeSession(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    clearTimeout(session.timer);
    await session.signer.close().catch(() => undefined);
  }

  private async closeAllSessions(): Promise<void> {
    for (const pending of this.opening.values()) pending.cancelled = true;
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
  }

  private describe(error: unknown): string {
    return error instanceof DscTokenError ? error.message : 'unexpected error';
  }
}
