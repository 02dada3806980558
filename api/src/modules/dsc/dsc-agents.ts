import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { RedisService, REDIS_PREFIX } from '../redis/redis.service';
import { AppSecretService } from '../secrets/app-secret.service';
import { DscLoginService } from './dsc-login.service';

/** Scale-out: which node holds an identifier's agent (refreshed while connected), and each node's channel. */
const PRESENCE_KEY = (identifier: string) => `${REDIS_PREFIX}dsc:agent:${identifier}`;
const NODE_CHANNEL = (node: string) => `${REDIS_PREFIX}dsc:node:${node}`;
const PRESENCE_TTL_SECONDS = 90;
const PRESENCE_REFRESH_MS = 30_000;
/** Deletes the presence key only while it still names this node (a newer connection elsewhere keeps its own). */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** A message between nodes: a job for an agent connected to the receiving node, or the answer to one. */
type BusMessage =
  | {
      kind: 'ask';
      from: string;
      rid: string;
      identifier: string;
      job: Record<string, unknown> & { type: string };
      expect: string;
      timeoutMs: number;
    }
  | { kind: 'answer'; rid: string; message?: Record<string, unknown>; error?: { code: string; message: string } };

export const AGENT_PATH = '/v1/dsc/agent/connect';

/** What an agent answers to a job: the message of that type, or its error. */
export interface AgentError {
  type: 'error';
  id: string;
  code: string;
  message: string;
}

export class AgentJobError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentJobError';
  }
}

interface Pending {
  resolve: (message: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Agent {
  socket: WebSocket;
  pending: Map<string, Pending>;
}

/**
 * The desktop signer agents connected to this node (`esign-cli dsc-agent`): each opens one WebSocket with its bearer
 * token (no port is opened on the signer's machine), found by the e-mail or phone it logged in with. A job is a
 * message with an id; the agent answers with the same id. The token password passes through in memory only.
 *
 * Scale-out (REDIS_URL): the agent's WebSocket lives on one node and the signing page's call may reach another. Each
 * node records the identifiers of its agents in Redis (`esign:dsc:agent:<identifier>` = node id, kept fresh while
 * connected) and listens on its own channel; `ask()` for an agent of another node publishes the job on that node's
 * channel and waits for the answer on its own. Messages are encrypted (AES-256-GCM, a key from the installation's
 * shared secrets) since they carry the token PIN; pub/sub keeps nothing.
 */
@Injectable()
export class DscAgents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('DscAgents');
  private readonly agents = new Map<string, Agent>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  /** This node's name on the Redis bus. */
  readonly node = randomUUID();
  private subscriber: Redis | null = null;
  private refresh?: NodeJS.Timeout;
  /** Jobs this node sent to another node's agent, by request id. */
  private readonly remote = new Map<string, Pending>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly logins: DscLoginService,
    private readonly redis: RedisService,
    private readonly secrets: AppSecretService,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as
      { on: (event: 'upgrade', fn: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) => void } | undefined;
    if (!server) return; // the worker and the management command hold no agents
    server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
    if (!this.redis.enabled) return;
    // A blocking connection: the subscription waits for Redis (and is renewed on reconnect) instead of failing the
    // start; meanwhile /health/ready reports Redis down.
    this.subscriber = this.redis.connect('dsc-bus', true);
    this.subscriber.on('messageBuffer', (_channel: Buffer, data: Buffer) => void this.onBus(data));
    this.subscriber
      .subscribe(NODE_CHANNEL(this.node))
      .catch((err: Error) => this.log.error(`subscribing to the DSC bus failed: ${err.message}`));
    this.refresh = setInterval(() => void this.publishPresence(), PRESENCE_REFRESH_MS);
    this.refresh.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.refresh);
    const mine = [...this.agents.keys()];
    for (const agent of this.agents.values()) agent.socket.terminate();
    this.wss.close();
    if (this.redis.enabled && mine.length)
      await Promise.all(mine.map((id) => this.redis.client.eval(RELEASE_SCRIPT, 1, PRESENCE_KEY(id), this.node))).catch(
        () => undefined,
      );
    for (const job of this.remote.values()) {
      clearTimeout(job.timer);
      job.reject(new AgentJobError('AGENT_GONE', 'The signer app was closed while signing. Open it and try again.'));
    }
    this.remote.clear();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== AGENT_PATH) return; // not ours (another upgrade handler may want it)
    const bearer = /^Bearer\s+([A-Za-z0-9_-]{20,100})$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const identifier = bearer ? await this.logins.identifierFor(bearer) : null;
    if (!identifier) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(identifier, ws));
  }

  private attach(identifier: string, socket: WebSocket): void {
    const agent: Agent = { socket, pending: new Map() };
    const previous = this.agents.get(identifier);
    if (previous) previous.socket.close(4000, 'replaced by a newer connection');
    this.agents.set(identifier, agent);
    this.log.log(`signer agent connected for ${mask(identifier)}`);
    if (this.redis.enabled) void this.claimPresence(identifier);
    socket.on('message', (data: RawData) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return;
      }
      if (message.type === 'hello') return void socket.send(JSON.stringify({ type: 'ready' }));
      const id = typeof message.id === 'string' ? message.id : '';
      const job = agent.pending.get(id);
      if (!job) return;
      agent.pending.delete(id);
      clearTimeout(job.timer);
      job.resolve(message);
    });
    socket.on('close', () => {
      for (const job of agent.pending.values()) {
        clearTimeout(job.timer);
        job.reject(new AgentJobError('AGENT_GONE', 'The signer app was closed while signing. Open it and try again.'));
      }
      agent.pending.clear();
      if (this.agents.get(identifier) === agent) {
        this.agents.delete(identifier);
        if (this.redis.enabled)
          void this.redis.client.eval(RELEASE_SCRIPT, 1, PRESENCE_KEY(identifier), this.node).catch(() => undefined);
      }
    });
  }

  private connectedHere(identifier: string): boolean {
    return this.agents.get(identifier)?.socket.readyState === WebSocket.OPEN;
  }

  /** Is an agent connected (to this node or, in scale-out, to any node) for any of these identifiers? The first one. */
  async find(identifiers: string[]): Promise<string | null> {
    const here = identifiers.find((id) => this.connectedHere(id));
    if (here || !this.redis.enabled || !identifiers.length) return here ?? null;
    const nodes = await this.redis.client.mget(identifiers.map(PRESENCE_KEY));
    return identifiers.find((_, i) => nodes[i]) ?? null;
  }

  /**
   * Sends a job to the identifier's agent and waits for the answer of the expected type (an error answer rejects
   * with its message). In scale-out an agent connected to another node gets the job through that node.
   */
  async ask(
    identifier: string,
    job: Record<string, unknown> & { type: string },
    expect: string,
    timeoutMs = 60_000,
  ): Promise<Record<string, unknown>> {
    if (this.connectedHere(identifier) || !this.redis.enabled) return this.askHere(identifier, job, expect, timeoutMs);
    const node = await this.redis.client.get(PRESENCE_KEY(identifier));
    if (!node || node === this.node) throw new AgentJobError('NO_AGENT', 'The signer app is not connected.');
    const rid = randomUUID();
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      // The other node times the agent out itself; this one waits a little longer for its answer.
      const timer = setTimeout(() => {
        this.remote.delete(rid);
        reject(new AgentJobError('TIMEOUT', 'The signer app did not answer. Check the USB token and try again.'));
      }, timeoutMs + 5000);
      this.remote.set(rid, { resolve, reject, timer });
    });
    const message: BusMessage = { kind: 'ask', from: this.node, rid, identifier, job, expect, timeoutMs };
    const receivers = await this.redis.client.publish(NODE_CHANNEL(node), await this.seal(message));
    if (receivers === 0) {
      const pending = this.remote.get(rid);
      this.remote.delete(rid);
      if (pending) {
        clearTimeout(pending.timer);
        pending.reject(new AgentJobError('NO_AGENT', 'The signer app is not connected.'));
      }
    }
    return answer;
  }

  private async onBus(data: Buffer): Promise<void> {
    let message: BusMessage;
    try {
      message = await this.open(data);
    } catch {
      this.log.warn('dropped a DSC bus message that did not decrypt');
      return;
    }
    if (message.kind === 'answer') {
      const pending = this.remote.get(message.rid);
      if (!pending) return;
      this.remote.delete(message.rid);
      clearTimeout(pending.timer);
      if (message.error) pending.reject(new AgentJobError(message.error.code, message.error.message));
      else pending.resolve(message.message ?? {});
      return;
    }
    let reply: BusMessage;
    try {
      const answer = await this.askHere(message.identifier, message.job, message.expect, message.timeoutMs);
      reply = { kind: 'answer', rid: message.rid, message: answer };
    } catch (err) {
      const error =
        err instanceof AgentJobError
          ? { code: err.code, message: err.message }
          : { code: 'PROTOCOL', message: 'The signer app answered wrongly.' };
      reply = { kind: 'answer', rid: message.rid, error };
    }
    await this.redis.client.publish(NODE_CHANNEL(message.from), await this.seal(reply)).catch((err: Error) => {
      this.log.error(`answering a DSC job of node ${message.from} failed: ${err.message}`);
    });
  }

  private async claimPresence(identifier: string): Promise<void> {
    await this.redis.client
      .set(PRESENCE_KEY(identifier), this.node, 'EX', PRESENCE_TTL_SECONDS)
      .catch((err: Error) => this.log.error(`recording the signer agent in Redis failed: ${err.message}`));
  }

  private async publishPresence(): Promise<void> {
    for (const identifier of this.agents.keys())
      if (this.connectedHere(identifier)) await this.claimPresence(identifier);
  }

  private async busKey(): Promise<Buffer> {
    return this.secrets.hmac('dsc-bus', 'aes-256-gcm');
  }

  /** iv (12) | tag (16) | AES-256-GCM ciphertext of the JSON. */
  private async seal(message: BusMessage): Promise<Buffer> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.busKey(), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(message), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  private async open(data: Buffer): Promise<BusMessage> {
    const decipher = createDecipheriv('aes-256-gcm', await this.busKey(), data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(12, 28));
    const json = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(json) as BusMessage;
  }

  private askHere(
    identifier: string,
    job: Record<string, unknown> & { type: string },
    expect: string,
    timeoutMs: number,
  ) {
    const agent = this.agents.get(identifier);
    if (!agent || agent.socket.readyState !== WebSocket.OPEN)
      return Promise.reject(new AgentJobError('NO_AGENT', 'The signer app is not connected.'));
    const id = typeof job.id === 'string' ? job.id : randomUUID();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        agent.pending.delete(id);
        reject(new AgentJobError('TIMEOUT', 'The signer app did not answer. Check the USB token and try again.'));
      }, timeoutMs);
      agent.pending.set(id, {
        resolve: (message) => {
          if (message.type === 'error') {
            const error = message as unknown as AgentError;
            reject(new AgentJobError(String(error.code ?? 'TOKEN'), String(error.message ?? 'The USB token failed.')));
          } else if (message.type !== expect) reject(new AgentJobError('PROTOCOL', 'The signer app answered wrongly.'));
          else resolve(message);
        },
        reject,
        timer,
      });
      agent.socket.send(JSON.stringify({ ...job, id }));
    });
  }
}

const mask = (identifier: string) => identifier.replace(/^(.{2}).*(.{2})$/, '$1…$2');
