import type { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
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

/** One log line per request, with a request id taken from x-request-id (when sane) or made up, echoed back. */
export function createHttpLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const incoming = req.headers[Headers.requestId];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader(Headers.requestId, id);
      return id;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url.replace(SECRET_QUERY, '$1[redacted]'),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  });
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
