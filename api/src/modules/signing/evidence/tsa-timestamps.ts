import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type * as pkijs from 'pkijs';
import type { Clock } from '../../../common/clock';
import type { AppConfig, TsaEndpoint } from '../../../config/app-config';
import { DEV_TSA_NAME, type DevelopmentTsa } from './development-tsa';
import { Timestamps, TimestampUnavailableError, type TimestampAttempt, type TimestampToken } from './timestamps';
import { certificatesFromPem, checkTimestampReply, TimestampCheckError, timestampQuery } from './tsp';

/** One timestamp authority as the client sees it: how it is named, how it is asked, and the clock genTime must be near. */
export interface TsaSource {
  /** The URL without credentials, or DEV_TSA_NAME. */
  name: string;
  /** The DER TimeStampResp for a DER TimeStampReq; throws TimestampCheckError when there is none to check. */
  ask(query: Uint8Array): Promise<Uint8Array>;
  now(): Date;
}

/** A token with its chain is a few kilobytes; anything much larger is not an answer to wait for. */
const MAX_REPLY_BYTES = 256 * 1024;
const REPLY_TYPES = ['application/timestamp-reply', 'application/timestamp-response'];

/**
 * The Timestamps implementation: each TSA in order (the TSAs of TSA_URLS, or the built-in development TSA), a fresh
 * query each (SHA-256 imprint, random 64-bit nonce, certReq, the policy of TSA_POLICY), and every check of
 * `checkTimestampReply` on the answer before its token is used; a failure moves on to the next TSA, and when none is
 * left TimestampUnavailableError lists each one's reason. Reasons and log lines name TSAs by their URL without
 * credentials.
 */
export class TsaTimestamps extends Timestamps {
  private readonly log = new Logger('Timestamps');

  constructor(
    private readonly sources: TsaSource[],
    private readonly policy: string | null,
    private readonly trustAnchors: pkijs.Certificate[] | undefined,
    private readonly builtIn: boolean,
  ) {
    super();
    if (!sources.length) throw new Error('TsaTimestamps needs at least one timestamp authority');
  }

  async timestamp(digest: Uint8Array): Promise<TimestampToken> {
    if (digest.byteLength !== 32) throw new Error(`A SHA-256 digest has 32 bytes, not ${digest.byteLength}`);
    const attempts: TimestampAttempt[] = [];
    for (const source of this.sources) {
      const query = timestampQuery(digest, this.policy);
      try {
        const reply = await source.ask(query.der);
        const token = await checkTimestampReply(reply, { query, now: source.now(), trustAnchors: this.trustAnchors });
        return { ...token, tsa: source.name };
      } catch (err) {
        const reason =
          err instanceof TimestampCheckError ? err.message : `unexpected error: ${(err as Error)?.message ?? err}`;
        attempts.push({ tsa: source.name, reason });
        this.log.warn(`timestamp authority ${source.name} failed: ${reason}`);
      }
    }
    throw new TimestampUnavailableError(attempts);
  }

  describe(): { builtIn: boolean; tsas: string[] } {
    return { builtIn: this.builtIn, tsas: this.sources.map((s) => s.name) };
  }
}

/** The Timestamps of the configuration: the TSAs of TSA_URLS (and the anchors of TSA_CA_FILE), or the built-in TSA. */
export function createTimestamps(config: AppConfig, clock: Clock, developmentTsa: DevelopmentTsa): Timestamps {
  const tsa = config.tsa;
  if (tsa.mode === 'built-in') {
    const source: TsaSource = {
      name: DEV_TSA_NAME,
      ask: (query) => developmentTsa.answer(query),
      now: () => clock.now(),
    };
    return new TsaTimestamps([source], null, undefined, true);
  }
  // A real TSA's genTime is real time: it is compared with this machine's clock, not the injected one tests move.
  const sources = tsa.endpoints.map((endpoint) => ({
    name: endpoint.url,
    ask: httpTsa(endpoint, tsa.timeoutMs),
    now: () => new Date(),
  }));
  return new TsaTimestamps(sources, tsa.policy, tsa.caFile ? trustAnchors(tsa.caFile) : undefined, false);
}

/** TSA_CA_FILE (loadConfig checked that it reads and has a PEM certificate): the anchors a TSA must chain to. */
function trustAnchors(file: string): pkijs.Certificate[] {
  const anchors = certificatesFromPem(readFileSync(file, 'utf8'));
  if (!anchors.length) throw new Error(`TSA_CA_FILE ${file} holds no PEM certificate`);
  return anchors;
}

/** RFC 3161 over HTTP (section 3.4): POST the query, a 200 with application/timestamp-reply back, within the timeout. */
export function httpTsa(endpoint: TsaEndpoint, timeoutMs: number): (query: Uint8Array) => Promise<Uint8Array> {
  return async (query) => {
    try {
      const res = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/timestamp-query',
          Accept: 'application/timestamp-reply',
          ...(endpoint.authorization ? { Authorization: endpoint.authorization } : {}),
        },
        body: query,
        // A redirect would carry the query (and the credentials) elsewhere: the configured address must be the TSA's.
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => undefined);
        const hint =
          res.status >= 300 && res.status < 400
            ? ' (redirects are not followed: name the final address in TSA_URLS)'
            : res.status === 401
              ? ' (the TSA wants credentials: https://user:password@… in TSA_URLS)'
              : '';
        throw new TimestampCheckError(`HTTP ${res.status}${hint}`);
      }
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (!REPLY_TYPES.includes(type)) {
        await res.body?.cancel().catch(() => undefined);
        throw new TimestampCheckError(
          `the answer's content type is ${JSON.stringify(type.slice(0, 80))}, not application/timestamp-reply`,
        );
      }
      return await readCapped(res);
    } catch (err) {
      throw asCheckError(err, timeoutMs);
    }
  };
}

async function readCapped(res: Response): Promise<Uint8Array> {
  if (Number(res.headers.get('content-length') ?? 0) > MAX_REPLY_BYTES)
    throw new TimestampCheckError(`the answer is larger than ${MAX_REPLY_BYTES} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_REPLY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new TimestampCheckError(`the answer is larger than ${MAX_REPLY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function asCheckError(err: unknown, timeoutMs: number): TimestampCheckError {
  if (err instanceof TimestampCheckError) return err;
  const error = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError')
    return new TimestampCheckError(`no answer within ${timeoutMs} ms`);
  const code = error?.cause?.code;
  if (code === 'ECONNREFUSED') return new TimestampCheckError('connection refused');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new TimestampCheckError('host not found');
  return new TimestampCheckError(`cannot reach it (${code ?? error?.cause?.message ?? error?.message ?? String(err)})`);
}
