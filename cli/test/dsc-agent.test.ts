import { randomBytes, verify, X509Certificate } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { WebSocketServer, type WebSocket } from 'ws';
import { dscAgent, type DscAgentCommandOptions } from '../src/commands/dsc-agent';
import { AgentFatalError, DscAgent, agentLogin, tokenSignerOpener } from '../src/dsc/agent';
import { openToken, type TokenModule } from '../src/dsc';
import { createSoftHsmToken, SOFTHSM_MODULE, SoftHsm, type SoftHsmToken } from './support/softhsm';

const RSA_PIN = 'agent-rsa-pin-5551212';
const EC_PIN = 'agent-ec-pin-8675309';
const WRONG_PIN = 'agent-wrong-pin-4242';
const PINS = [RSA_PIN, EC_PIN, WRONG_PIN];
const IDENTIFIER = 'signer@example.com';
const OTP = '246810';
const AGENT_TOKEN = 'agent-token-abc';

/** Everything printed during the tests, to check that no PIN ever shows. */
const printed: string[] = [];
const restores: (() => void)[] = [];

function capture(): void {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      printed.push(args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg))).join(' '));
    });
    restores.push(() => spy.mockRestore());
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    const spy = jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
      printed.push(String(chunk));
      return original(chunk as string, ...rest);
    }) as typeof stream.write);
    restores.push(() => spy.mockRestore());
  }
}

type Json = Record<string, unknown>;

/** One agent connection as the fake API sees it. */
class Connection {
  readonly headers: IncomingMessage['headers'];
  private readonly queue: Json[] = [];
  private waiting: ((message: Json) => void)[] = [];
  closed = false;

  constructor(
    readonly socket: WebSocket,
    request: IncomingMessage,
  ) {
    this.headers = request.headers;
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Json;
      const waiter = this.waiting.shift();
      if (waiter) waiter(message);
      else this.queue.push(message);
    });
    socket.on('close', () => (this.closed = true));
  }

  next(): Promise<Json> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('No message from the agent')), 20_000);
      this.waiting.push((message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
  }

  async ask(message: Json): Promise<Json> {
    this.socket.send(JSON.stringify(message));
    return this.next();
  }
}

/** The API's side of the agent protocol: login, OTP check, Bearer check at upgrade, and jobs sent by the test. */
class FakeApi {
  readonly http: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly connections: Connection[] = [];
  private waiting: ((connection: Connection) => void)[] = [];
  revoked = false;
  upgrades = 0;
  url = '';

  constructor() {
    this.http = createServer((req, res) => void this.route(req, res));
    this.http.on('upgrade', (req, socket, head) => {
      this.upgrades++;
      if (
        req.url !== '/v1/dsc/agent/connect' ||
        req.headers.authorization !== `Bearer ${AGENT_TOKEN}` ||
        this.revoked
      ) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const connection = new Connection(ws, req);
        const waiter = this.waiting.shift();
        if (waiter) waiter(connection);
        else this.connections.push(connection);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  /** The next agent connection, its `hello` already checked. */
  async connection(): Promise<Connection> {
    const connection =
      this.connections.shift() ??
      (await new Promise<Connection>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('The agent did not connect')), 20_000);
        this.waiting.push((c) => {
          clearTimeout(timer);
          resolve(c);
        });
      }));
    expect(await connection.next()).toEqual({ type: 'hello', agent: 'esign-cli', version: '0.1.0-test' });
    return connection;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Json;
    const answer = (status: number, json: Json): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    if (req.method === 'POST' && req.url === '/v1/dsc/agent/login') {
      if (body.identifier !== IDENTIFIER)
        return answer(404, { statusCode: 404, message: 'No signing request for you' });
      return answer(201, { loginId: 'login-1' });
    }
    if (req.method === 'POST' && req.url === '/v1/dsc/agent/verify') {
      if (body.loginId !== 'login-1' || body.otp !== OTP) {
        return answer(401, { statusCode: 401, message: 'The one-time code is wrong or expired.' });
      }
      return answer(201, { agentToken: AGENT_TOKEN });
    }
    answer(404, { message: 'Not found' });
  }
}

function certificateOf(reply: Json): X509Certificate {
  return new X509Certificate(Buffer.from(String(reply.certificate), 'base64'));
}

function verifies(reply: Json, certificate: X509Certificate, data: Buffer): boolean {
  const signature = Buffer.from(String(reply.signature), 'base64');
  return verify('sha256', data, { key: certificate.publicKey, dsaEncoding: 'der' }, signature);
}

let hsm: SoftHsm;
let rsaToken: SoftHsmToken;
let ecToken: SoftHsmToken;
let api: FakeApi;
let pkcs11: TokenModule;
const lines: string[] = [];
const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), version: '0.1.0-test' };

beforeAll(async () => {
  capture();
  hsm = new SoftHsm();
  rsaToken = createSoftHsmToken({ hsm, label: 'DSC-RSA', pin: RSA_PIN, keyType: 'rsa', caOnToken: true });
  ecToken = createSoftHsmToken({ hsm, label: 'DSC-EC', pin: EC_PIN, keyType: 'ec' });
  pkcs11 = openToken(SOFTHSM_MODULE);
  api = new FakeApi();
  await api.start();
});

afterAll(async () => {
  await pkcs11?.close();
  await api?.stop();
  hsm?.cleanup();
  for (const restore of restores.splice(0)) restore();
  const all = [...printed, ...lines].join('\n');
  for (const pin of PINS) expect(all).not.toContain(pin);
});

describe('esign-cli dsc-agent', () => {
  it('logs in with the OTP, says hello, and signs with the RSA token; wrong PIN and unknown job keep it connected', async () => {
    const options: DscAgentCommandOptions = {
      server: api.url,
      identifier: IDENTIFIER,
      otp: OTP,
      module: SOFTHSM_MODULE,
      token: 'DSC-RSA',
    };
    const running = dscAgent(options, io);
    const connection = await api.connection();
    expect(connection.headers.authorization).toBe(`Bearer ${AGENT_TOKEN}`);

    const certificate = await connection.ask({ type: 'certificate', id: 'job-1', pin: RSA_PIN });
    expect(certificate).toMatchObject({ type: 'certificate', id: 'job-1', algorithm: 'RSA-SHA256' });
    const x509 = certificateOf(certificate);
    expect(x509.raw).toEqual(new X509Certificate(rsaToken.certPem).raw);
    expect(certificate.chain).toEqual([new X509Certificate(rsaToken.caPem).raw.toString('base64')]);

    const data = randomBytes(333);
    const signature = await connection.ask({ type: 'sign', id: 'job-1', data: data.toString('base64') });
    expect(signature).toMatchObject({ type: 'signature', id: 'job-1' });
    expect(verifies(signature, x509, data)).toBe(true);
    expect(verifies(signature, x509, randomBytes(333))).toBe(false);

    // The signer was closed after the signature: the same id has no session any more.
    expect(await connection.ask({ type: 'sign', id: 'job-1', data: data.toString('base64') })).toMatchObject({
      type: 'error',
      id: 'job-1',
      code: 'NO_SESSION',
    });

    expect(await connection.ask({ type: 'certificate', id: 'job-2', pin: WRONG_PIN })).toEqual({
      type: 'error',
      id: 'job-2',
      code: 'WRONG_PIN',
      message: 'The USB token password is wrong.',
    });
    expect(await connection.ask({ type: 'sign', id: 'job-unknown', data: 'AAAA' })).toMatchObject({
      type: 'error',
      id: 'job-unknown',
      code: 'NO_SESSION',
    });

    // Still connected, and a cancelled job cannot sign.
    expect(connection.closed).toBe(false);
    expect(await connection.ask({ type: 'certificate', id: 'job-3', pin: RSA_PIN })).toMatchObject({
      type: 'certificate',
      id: 'job-3',
    });
    connection.socket.send(JSON.stringify({ type: 'cancel', id: 'job-3' }));
    expect(await connection.ask({ type: 'sign', id: 'job-3', data: 'AAAA' })).toMatchObject({ code: 'NO_SESSION' });

    const more = randomBytes(20);
    await connection.ask({ type: 'certificate', id: 'job-4', pin: RSA_PIN });
    expect(
      verifies(await connection.ask({ type: 'sign', id: 'job-4', data: more.toString('base64') }), x509, more),
    ).toBe(true);

    process.emit('SIGINT');
    expect(await running).toBe(0);
    expect(lines.some((l) => /^Signing for 127\.0\.0\.1:\d+… done$/.test(l))).toBe(true);
    expect(lines.some((l) => /failed: The USB token password is wrong\.$/.test(l))).toBe(true);
  });

  it('signs with EC P-256 through the agent class', async () => {
    const agentToken = await agentLogin(api.url, IDENTIFIER, async () => OTP);
    const agent = new DscAgent({
      server: api.url,
      agentToken,
      openSigner: tokenSignerOpener(pkcs11, 'DSC-EC'),
      log: { info: io.out, error: io.err },
      version: '0.1.0-test',
    });
    const running = agent.run();
    const connection = await api.connection();
    const certificate = await connection.ask({ type: 'certificate', id: 'ec-1', pin: EC_PIN });
    expect(certificate).toMatchObject({ type: 'certificate', algorithm: 'ECDSA-SHA256', chain: [] });
    const x509 = certificateOf(certificate);
    expect(x509.raw).toEqual(new X509Certificate(ecToken.certPem).raw);
    const data = randomBytes(100);
    expect(
      verifies(await connection.ask({ type: 'sign', id: 'ec-1', data: data.toString('base64') }), x509, data),
    ).toBe(true);
    agent.stop();
    await running;
  });

  it('asks which token when several are inserted and none was chosen', async () => {
    const agent = new DscAgent({
      server: api.url,
      agentToken: AGENT_TOKEN,
      openSigner: tokenSignerOpener(pkcs11),
      log: { info: io.out, error: io.err },
      version: '0.1.0-test',
    });
    const running = agent.run();
    const connection = await api.connection();
    expect(await connection.ask({ type: 'certificate', id: 'multi', pin: EC_PIN })).toMatchObject({
      type: 'error',
      code: 'NO_TOKEN',
      message: 'Several USB tokens are inserted. Keep only the DSC token in, or choose it with --token.',
    });
    agent.stop();
    await running;
  });

  it('closes a signer whose sign job does not come in time', async () => {
    const agent = new DscAgent({
      server: api.url,
      agentToken: AGENT_TOKEN,
      openSigner: tokenSignerOpener(pkcs11, 'DSC-EC'),
      log: { info: io.out, error: io.err },
      version: '0.1.0-test',
      sessionTimeoutMs: 50,
    });
    const running = agent.run();
    const connection = await api.connection();
    expect(await connection.ask({ type: 'certificate', id: 'slow', pin: EC_PIN })).toMatchObject({
      type: 'certificate',
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await connection.ask({ type: 'sign', id: 'slow', data: 'AAAA' })).toMatchObject({ code: 'NO_SESSION' });
    agent.stop();
    await running;
  });

  it('reconnects after the connection drops, and stops on 401 at upgrade', async () => {
    const agent = new DscAgent({
      server: api.url,
      agentToken: AGENT_TOKEN,
      openSigner: tokenSignerOpener(pkcs11, 'DSC-EC'),
      log: { info: io.out, error: io.err },
      version: '0.1.0-test',
      reconnect: { initialMs: 20, maxMs: 80 },
    });
    const running = agent.run();
    const first = await api.connection();
    first.socket.terminate();
    const second = await api.connection();
    expect(await second.ask({ type: 'certificate', id: 'again', pin: EC_PIN })).toMatchObject({ type: 'certificate' });

    const upgrades = api.upgrades;
    api.revoked = true;
    second.socket.close();
    await expect(running).rejects.toThrow(AgentFatalError);
    await expect(running).rejects.toThrow(/log in/);
    expect(api.upgrades).toBe(upgrades + 1);
    api.revoked = false;
  });

  it('fails with the server message on a wrong OTP', async () => {
    const before = lines.length;
    const code = await dscAgent(
      { server: api.url, identifier: IDENTIFIER, otp: '000000', module: SOFTHSM_MODULE, token: 'DSC-RSA' },
      io,
    );
    expect(code).toBe(1);
    expect(lines.slice(before)).toEqual(['The one-time code is wrong or expired.']);
  });

  it('fails with the server message for an unknown identifier, and when --server is missing', async () => {
    const before = lines.length;
    expect(await dscAgent({ server: api.url, identifier: 'nobody@example.com', otp: OTP }, io)).toBe(1);
    expect(await dscAgent({ identifier: IDENTIFIER }, io)).toBe(1);
    expect(lines.slice(before)).toEqual(['No signing request for you', '--server <url> is required']);
  });

  it('lists the tokens of the module', async () => {
    const before = lines.length;
    expect(await dscAgent({ listTokens: true, module: SOFTHSM_MODULE }, io)).toBe(0);
    const listed = lines.slice(before);
    expect(listed).toHaveLength(2);
    expect(listed.join('\n')).toMatch(/label "DSC-RSA"/);
    expect(listed.join('\n')).toMatch(/label "DSC-EC"/);
  });

  it('never prints a PIN', () => {
    const all = [...printed, ...lines].join('\n');
    for (const pin of PINS) expect(all).not.toContain(pin);
  });
});
