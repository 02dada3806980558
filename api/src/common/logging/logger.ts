import type { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import { Headers } from '@esign/contract';
import type { AppConfig } from '../../config/app-config';

/** Secrets never reach the logs: credentials, keys, link tokens, OTPs, passwords, Aadhaar numbers. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.apikey',
  'req.headers["x-sign-token"]',
  'req.headers["x-signer-session"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.otp',
  '*.token',
  '*.key',
  '*.aadhaar',
];

export function createLogger(config: Pick<AppConfig, 'logLevel'>, destination?: NodeJS.WritableStream): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined };
  return destination ? pino(options, destination) : pino(options);
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Query values that are permissions: link tokens, keys, OTPs, and the HMAC of a document link (`sig`). */
const SECRET_QUERY = /([?&](?:token|key|apikey|otp|sig)=)[^&]*/gi;

/**
 * One log line per request, with a request id taken from x-request-id (when sane) or made up, echoed back: pino-http's
 * line (req: id, method, url without secrets, remoteAddress; res: statusCode; responseTime), written only when its level
 * is enabled. pino-http made a child logger and serialised the request on every call, at any level; this costs a
 * header and a listener when the line is not written (LOG_LEVEL=warn).
 */
export function createHttpLogger(logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const incoming = req.headers[Headers.requestId];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader(Headers.requestId, id);
    const start = Date.now();
    // As the client sent it: routers mounted on a path shorten req.url while they run.
    const url = req.url ?? '';
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      const level = res.writableFinished ? (res.statusCode >= 500 ? 'error' : 'info') : 'warn';
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        req: {
          id,
          method: req.method,
          url: url.replace(SECRET_QUERY, '$1[redacted]'),
          remoteAddress: req.socket?.remoteAddress,
        },
        res: { statusCode: res.statusCode },
        responseTime: Date.now() - start,
      };
      logger[level](line, res.writableFinished ? 'request completed' : 'request aborted');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** Nest's own messages (start-up, routes) go through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
