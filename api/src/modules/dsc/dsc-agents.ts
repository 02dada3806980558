import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { DscLoginService } from './dsc-login.service';

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
 * In scale-out the agent's connection lives on one node: the signing page's call must reach that node (sticky
 * routing on the request id); ARCHITECTURE.md says so.
 */
@Injectable()
export class DscAgents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('DscAgents');
  private readonly agents = new Map<string, Agent>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly logins: DscLoginService,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as
      { on: (event: 'upgrade', fn: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) => void } | undefined;
    server?.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
  }

  onApplicationShutdown(): void {
    for (const agent of this.agents.values()) agent.socket.terminate();
    this.wss.close();
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
      if (this.agents.get(identifier) === agent) this.agents.delete(identifier);
    });
  }

  /** Is an agent connected for any of these identifiers? The first one found. */
  find(identifiers: string[]): string | null {
    return identifiers.find((id) => this.agents.get(id)?.socket.readyState === WebSocket.OPEN) ?? null;
  }

  /** Sends a job and waits for the answer of the expected type (an error answer rejects with its message). */
  ask(identifier: string, job: Record<string, unknown> & { type: string }, expect: string, timeoutMs = 60_000) {
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
