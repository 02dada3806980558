import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The one reader of process.env. Every variable is validated at start-up; an invalid configuration fails with every
 * bad variable named (README.md lists them all).
 */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;

class EnvDto {
  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-fA-F:.]+$|^localhost$/, { message: 'must be an IP address or localhost' })
  HOST?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(65535)
  @IsInt({ message: 'must be an integer' })
  PORT?: number;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' })
  PUBLIC_URL?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  DATA_DIR?: string;

  @IsOptional()
  @Matches(/^(mysql|mariadb):\/\/[^\s/]+\/[A-Za-z0-9_$-]+(\?\S*)?$/, {
    message: 'must be a mysql:// or mariadb:// URL with a database name (mysql://user:pass@host:3306/esign)',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS as unknown as string[])
  LOG_LEVEL?: string;

  @IsOptional()
  @Matches(
    /^\s*([0-9a-fA-F:.]+(\/\d{1,3})?|loopback|linklocal|uniquelocal)(\s*,\s*([0-9a-fA-F:.]+(\/\d{1,3})?|loopback|linklocal|uniquelocal))*\s*$/,
    {
      message: 'must be a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal',
    },
  )
  TRUSTED_PROXIES?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(60)
  @Max(86_400)
  @IsInt({ message: 'must be an integer' })
  SESSION_IDLE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(60)
  @Max(30 * 86_400)
  @IsInt({ message: 'must be an integer' })
  SESSION_MAX_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(1000)
  @IsInt({ message: 'must be an integer' })
  LOGIN_MAX_FAILURES?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(86_400)
  @IsInt({ message: 'must be an integer' })
  LOGIN_FAILURE_WINDOW_SECONDS?: number;

  @IsOptional()
  @IsIn(['on', 'off'], { message: 'must be on or off' })
  JOBS_RUNNER?: string;

  @IsOptional()
  @IsIn(['on', 'off'], { message: 'must be on or off' })
  LIST_PAGES?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(400)
  @IsInt({ message: 'must be an integer' })
  HEAP_GROWING_PERCENT?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(10)
  @Max(60_000)
  @IsInt({ message: 'must be an integer' })
  JOBS_POLL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(2)
  @Max(3600)
  @IsInt({ message: 'must be an integer' })
  JOBS_LEASE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(1000)
  @IsInt({ message: 'must be an integer' })
  JOBS_MAX_INTERRUPTIONS?: number;

  @IsOptional()
  @IsIn(['0', '1'], { message: 'must be 0 or 1' })
  ESIGN_TEST_JOBS?: string;

  @IsOptional()
  @Matches(
    /^[a-z][a-z0-9.-]{0,63}=(kill|fail)\*[1-9][0-9]{0,3}(,[a-z][a-z0-9.-]{0,63}=(kill|fail)\*[1-9][0-9]{0,3})*$/,
    {
      message: 'must be point=kill*N or point=fail*N, comma-separated (seal.before-completion=kill*1)',
    },
  )
  ESIGN_TEST_FAULTS?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(5)
  @Max(86_400)
  @IsInt({ message: 'must be an integer' })
  WATCHDOG_INTERVAL_SECONDS?: number;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  BACKUP_DIR?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(24 * 90)
  @IsInt({ message: 'must be an integer' })
  BACKUP_EVERY_HOURS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(1000)
  @IsInt({ message: 'must be an integer' })
  BACKUP_KEEP?: number;

  @IsOptional()
  @Matches(/^smtps?:\/\/[^\s/?#]+\/?(\?\S*)?$/, {
    message: 'must be an smtp:// or smtps:// URL (smtp://user:pass@mail.example.com:587)',
  })
  SMTP_URL?: string;

  @IsOptional()
  @Matches(/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, {
    message: 'must be an e-mail address, optionally with a name (e-Sign <no-reply@example.com>)',
  })
  MAIL_FROM?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' })
  SMS_URL?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  FFMPEG_PATH?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  SEAL_P12?: string;

  @IsOptional()
  @IsString()
  SEAL_P12_PASSWORD?: string;

  @IsOptional()
  @Matches(/^https:\/\/[^\s/]+(\/[^\s]*)?$/, { message: "must be the ESP's https:// address" })
  ESP_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be the ASP id the ESP registered (letters, digits, _ . -)' })
  ASP_ID?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  ASP_KEY?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  ASP_CERT?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  ESP_CERT?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL (redis://:password@redis:6379/0)' })
  REDIS_URL?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: "must be the S3 endpoint's http(s):// address, without a path" })
  S3_ENDPOINT?: string;

  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be an S3 bucket name (3 to 63 of a-z 0-9 . -)' })
  S3_BUCKET?: string;

  @IsOptional()
  @Matches(/^[a-z0-9-]{2,32}$/, { message: 'must be a region name (us-east-1)' })
  S3_REGION?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  S3_SECRET_ACCESS_KEY?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  S3_FORCE_PATH_STYLE?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(65535)
  @IsInt({ message: 'must be an integer' })
  METRICS_PORT?: number;

  @IsOptional()
  @Matches(/^[A-Za-z0-9._~-]{16,200}$/, { message: 'must be 16 to 200 letters, digits or . _ ~ -' })
  METRICS_TOKEN?: string;

  // Checked by parseTsaUrls (its entries may carry credentials, which a problem must not repeat).
  @IsOptional()
  @IsString()
  TSA_URLS?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(100)
  @Max(60_000)
  @IsInt({ message: 'must be an integer' })
  TSA_TIMEOUT_MS?: number;

  @IsOptional()
  @Matches(/^[0-2](\.(0|[1-9]\d*))+$/, { message: 'must be an object identifier (1.2.3.4.1)' })
  TSA_POLICY?: string;

  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'must not be empty' })
  TSA_CA_FILE?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  ALLOW_DEV_TSA?: string;
}

/** A timestamp authority of TSA_URLS: its address without credentials (what is shown and logged), and its Basic auth. */
export interface TsaEndpoint {
  url: string;
  /** `Basic …` from the URL's user and password, sent as the Authorization header; null without credentials. */
  authorization: string | null;
}

/**
 * A TSA_URLS entry as a problem may show it: whatever could be a user name or password hidden (up to the last `@`, or
 * an authority with a non-numeric `:` part, e.g. what is left when a password's unencoded comma split the entry).
 */
const withoutCredentials = (text: string): string => {
  const scheme = text.indexOf('://');
  const from = scheme >= 0 ? scheme + 3 : 0;
  const at = text.lastIndexOf('@');
  if (at >= from) return `${text.slice(0, from)}***${text.slice(at)}`;
  const end = text.indexOf('/', from);
  const authority = text.slice(from, end < 0 ? undefined : end);
  if (/:(?!\d*$)/.test(authority)) return `${text.slice(0, from)}***${end < 0 ? '' : text.slice(end)}`;
  return text;
};

/**
 * TSA_URLS: comma-separated http(s) URLs, tried in order; `https://user:pass@host/path` carries Basic credentials
 * (percent-encoded as in any URL: a comma is %2C), which are kept apart from the address. Problems name the entry with its credentials
 * hidden.
 */
export function parseTsaUrls(value: string): { endpoints: TsaEndpoint[]; problems: string[] } {
  const endpoints: TsaEndpoint[] = [];
  const problems: string[] = [];
  value.split(',').forEach((raw, i) => {
    const entry = raw.trim();
    const bad = (why: string) =>
      problems.push(`TSA_URLS entry ${i + 1} ${why} (got ${JSON.stringify(withoutCredentials(entry))})`);
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return bad('must be an http(s) URL (https://tsa.example.com/tsr, optionally https://user:password@…)');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return bad('must be an http:// or https:// URL');
    if (url.hash) return bad('must not have a #fragment');
    let authorization: string | null = null;
    if (url.username || url.password) {
      let user: string, password: string;
      try {
        user = decodeURIComponent(url.username);
        password = decodeURIComponent(url.password);
      } catch {
        return bad('has credentials that are not valid percent-encoding');
      }
      // Basic credentials in clear text over the network: only to a TSA on this machine.
      if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
        return bad('sends its credentials in clear: use https:// (http:// with credentials only on loopback)');
      authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    endpoints.push({ url: url.href, authorization });
  });
  return { endpoints, problems };
}

/** The variables that configure a real ESP: all of them, or none (the built-in sandbox ESP). */
const ESP_VARIABLES = ['ESP_URL', 'ASP_ID', 'ASP_KEY', 'ASP_CERT', 'ESP_CERT'] as const;

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  database: { engine: 'sqlite'; file: string } | { engine: 'mysql'; url: string; flavour: 'mysql' | 'mariadb' };
  logLevel: (typeof LOG_LEVELS)[number];
  trustedProxies: string[];
  session: { idleSeconds: number; maxSeconds: number };
  loginThrottle: { maxFailures: number; windowSeconds: number; maxFailuresPerIp: number };
  /** Seeds the demo organisation on an empty database (never in production). */
  seedDemo: boolean;
  /** Where the built web apps live; the server answers 503 on their routes when they are not built. */
  webRoots: { admin: string; signer: string };
  /** The face detector and landmark ONNX models (api/models/face, committed files), and the video decoder. */
  faceModelsDir: string;
  ffmpegPath: string;
  /**
   * The durable job runner: on by default, off under NODE_ENV=test (tests run due jobs with JobsRunner.drain()).
   * leaseSeconds: a running job whose runner stopped renewing it for that long is run again by another runner.
   * maxInterruptions: a job whose process died while running it that many times in a row fails for good.
   * testJobs registers the test-only job types (never in production).
   */
  jobs: { runner: boolean; pollMs: number; leaseSeconds: number; maxInterruptions: number; testJobs: boolean };
  /** Whether the console's list pages are kept while nothing of their organisation changed (SQLite; LIST_PAGES). */
  listPages: boolean;
  /**
   * How far V8 lets the old generation grow past what the last full collection kept before it collects again, in
   * percent (HEAP_GROWING_PERCENT, default 50; 0 leaves V8's own factor, up to 300 % on a small heap). See
   * common/runtime/heap-growth.ts.
   */
  heapGrowingPercent: number;
  /**
   * Test-only fault points (ESIGN_TEST_FAULTS, refused in production): at the named point the process kills itself
   * (`kill`) or the step throws (`fail`), at most `times` times over the data directory's life (common/fault-points.ts).
   */
  testFaults: { point: string; action: 'kill' | 'fail'; times: number }[];
  /** Issue 24: how often the watchdog looks for requests that should have moved and did not. */
  watchdog: { intervalSeconds: number };
  /**
   * Issue 24: scheduled backups (the recurring `backup.run` job) into `dir` every `everyHours`, keeping the latest
   * `keep` archives; null without BACKUP_DIR (`manage backup FILE` works either way).
   */
  backup: { dir: string; everyHours: number; keep: number } | null;
  /** E-mail through SMTP when smtpUrl is set, else into the dev outbox. */
  mail: { smtpUrl: string | null; from: string };
  /** SMS through the HTTP gateway (POST JSON { to, text }) when url is set, else into the dev outbox. */
  sms: { url: string | null };
  /**
   * Seals: a PKCS#12 file (and its password) used for every organisation that has not imported its own; without it a
   * development CA is generated at first need (stored in the database, its certificate written to $DATA_DIR/pki).
   */
  seal: { p12Path: string | null; p12Password: string };
  /**
   * Aadhaar eSign: a real ESP (its address, our ASP id, the ASP's key and certificate as PEM files, and the ESP's
   * certificate that signs its answers), or, with none of them set, the built-in sandbox ESP on this server.
   */
  esp:
    | { mode: 'sandbox' }
    | { mode: 'esp'; url: string; aspId: string; aspKeyPath: string; aspCertPath: string; espCertPath: string };
  /**
   * Scale-out: with a Redis URL, jobs go through BullMQ (run by the separate worker process, `npm run worker -w api`),
   * login throttles count in Redis and DSC agent jobs are routed between nodes by Redis pub/sub.
   */
  redis: { url: string } | null;
  /** Documents: $DATA_DIR/files (local, the default) or an S3-compatible bucket (S3_BUCKET, with S3_ENDPOINT off AWS). */
  storage:
    | { kind: 'local' }
    | {
        kind: 's3';
        endpoint: string | null;
        bucket: string;
        region: string;
        credentials: { accessKeyId: string; secretAccessKey: string } | null;
        forcePathStyle: boolean;
      };
  /** When set, GET /metrics wants `Authorization: Bearer <token>`; without it /metrics is open (scrape on a private network). */
  metricsToken: string | null;
  /** The worker only: serve GET /metrics and GET /health on this port (on HOST); null: no HTTP at all. */
  workerMetricsPort: number | null;
  /**
   * RFC 3161 timestamps: the timestamp authorities of TSA_URLS, tried in order (each attempt at most timeoutMs; the
   * policy requested when set; their certificates made to chain to the PEM bundle caFile when set), or, without them,
   * the built-in development TSA (refused under NODE_ENV=production unless ALLOW_DEV_TSA=true).
   */
  tsa:
    | { mode: 'built-in' }
    | { mode: 'remote'; endpoints: TsaEndpoint[]; timeoutMs: number; policy: string | null; caFile: string | null };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Every variable the product reads; README.md documents each one. */
export const CONFIG_VARIABLES = [
  'NODE_ENV',
  'HOST',
  'PORT',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'LOG_LEVEL',
  'TRUSTED_PROXIES',
  'SESSION_IDLE_SECONDS',
  'SESSION_MAX_SECONDS',
  'LOGIN_MAX_FAILURES',
  'LOGIN_FAILURE_WINDOW_SECONDS',
  'JOBS_RUNNER',
  'LIST_PAGES',
  'HEAP_GROWING_PERCENT',
  'JOBS_POLL_MS',
  'JOBS_LEASE_SECONDS',
  'JOBS_MAX_INTERRUPTIONS',
  'ESIGN_TEST_JOBS',
  'ESIGN_TEST_FAULTS',
  'WATCHDOG_INTERVAL_SECONDS',
  'BACKUP_DIR',
  'BACKUP_EVERY_HOURS',
  'BACKUP_KEEP',
  'SMTP_URL',
  'MAIL_FROM',
  'SMS_URL',
  'FFMPEG_PATH',
  'SEAL_P12',
  'SEAL_P12_PASSWORD',
  'ESP_URL',
  'ASP_ID',
  'ASP_KEY',
  'ASP_CERT',
  'ESP_CERT',
  'REDIS_URL',
  'S3_ENDPOINT',
  'S3_BUCKET',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'METRICS_TOKEN',
  'METRICS_PORT',
  'TSA_URLS',
  'TSA_TIMEOUT_MS',
  'TSA_POLICY',
  'TSA_CA_FILE',
  'ALLOW_DEV_TSA',
] as const;

/** The variables that only configure the TSAs of TSA_URLS. */
const TSA_VARIABLES = ['TSA_TIMEOUT_MS', 'TSA_POLICY', 'TSA_CA_FILE'] as const;

/** Reads and validates the environment. Throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv, cwd = process.cwd()): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of CONFIG_VARIABLES) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const dto = plainToInstance(EnvDto, raw);
  const errors = validateSync(dto, { whitelist: true, stopAtFirstError: true });
  const problems = errors.map((e) => {
    const reasons = Object.values(e.constraints ?? {}).map((m) => m.replace(new RegExp(`^${e.property} `), ''));
    return `${e.property} ${reasons.join('; ')} (got ${JSON.stringify(raw[e.property])})`;
  });
  const idle = dto.SESSION_IDLE_SECONDS ?? 3600;
  const max = dto.SESSION_MAX_SECONDS ?? 12 * 3600;
  if (!problems.length && max < idle) {
    problems.push(`SESSION_MAX_SECONDS must not be less than SESSION_IDLE_SECONDS (got ${max} < ${idle})`);
  }
  if (dto.ESIGN_TEST_JOBS === '1' && dto.NODE_ENV === 'production') {
    problems.push('ESIGN_TEST_JOBS must not be set when NODE_ENV=production (it registers test-only job types)');
  }
  if (dto.ESIGN_TEST_FAULTS && dto.NODE_ENV === 'production') {
    problems.push('ESIGN_TEST_FAULTS must not be set when NODE_ENV=production (it makes the server fail on purpose)');
  }
  const espSet = ESP_VARIABLES.filter((name) => raw[name] !== undefined);
  if (espSet.length && espSet.length < ESP_VARIABLES.length) {
    const missing = ESP_VARIABLES.filter((name) => raw[name] === undefined);
    problems.push(
      `${missing.join(', ')} must be set too: a real ESP needs ${ESP_VARIABLES.join(', ')} (set none for the built-in sandbox ESP)`,
    );
  }
  if (raw.S3_ENDPOINT !== undefined && raw.S3_BUCKET === undefined) {
    problems.push('S3_BUCKET must be set too: S3_ENDPOINT picks the S3-compatible store, S3_BUCKET the bucket in it');
  }
  if ((raw.S3_ACCESS_KEY_ID === undefined) !== (raw.S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither, for the default AWS chain)');
  }
  const backupDir = dto.BACKUP_DIR ? resolve(env.INIT_CWD ?? cwd, dto.BACKUP_DIR) : null;
  if (!backupDir) {
    const alone = (['BACKUP_EVERY_HOURS', 'BACKUP_KEEP'] as const).filter((name) => raw[name] !== undefined);
    if (alone.length)
      problems.push(`${alone.join(', ')} only configure the scheduled backups of BACKUP_DIR, which is not set`);
  } else {
    if (raw.DATABASE_URL !== undefined && raw.S3_BUCKET !== undefined)
      problems.push(
        'BACKUP_DIR has nothing to back up: the database is DATABASE_URL and the documents are in S3_BUCKET (back them up with their own tools; README.md, "Backups")',
      );
    const data = dto.DATA_DIR
      ? resolve(env.INIT_CWD ?? cwd, dto.DATA_DIR)
      : resolve(__dirname, '..', '..', '..', 'data');
    if (`${backupDir}/`.startsWith(`${data}/`))
      problems.push(
        `BACKUP_DIR must not be inside DATA_DIR: a backup kept in the folder it backs up is lost with it (got ${JSON.stringify(raw.BACKUP_DIR)})`,
      );
  }
  const tsaUrls = raw.TSA_URLS === undefined ? null : parseTsaUrls(raw.TSA_URLS);
  problems.push(...(tsaUrls?.problems ?? []));
  const tsaCaFile = dto.TSA_CA_FILE ? resolve(env.INIT_CWD ?? cwd, dto.TSA_CA_FILE) : null;
  if (tsaCaFile && tsaUrls) {
    // Read now so that a wrong path stops the start, not the first signature.
    let text = '';
    try {
      text = readFileSync(tsaCaFile, 'utf8');
    } catch (err) {
      problems.push(
        `TSA_CA_FILE cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}) (got ${JSON.stringify(raw.TSA_CA_FILE)})`,
      );
    }
    if (text && !text.includes('-----BEGIN CERTIFICATE-----'))
      problems.push(`TSA_CA_FILE holds no PEM certificate (got ${JSON.stringify(raw.TSA_CA_FILE)})`);
  }
  if (!tsaUrls) {
    const alone = TSA_VARIABLES.filter((name) => raw[name] !== undefined);
    if (alone.length)
      problems.push(
        `${alone.join(', ')} only configure the timestamp authorities of TSA_URLS, which is not set (the built-in development TSA has its own policy and no timeout)`,
      );
    if ((dto.NODE_ENV ?? 'development') === 'production' && dto.ALLOW_DEV_TSA !== 'true')
      problems.push(
        'TSA_URLS must be set when NODE_ENV=production: without it the built-in development TSA signs the timestamps, and nobody trusts it (set ALLOW_DEV_TSA=true to start with it anyway)',
      );
  }
  if (problems.length) throw new ConfigError(problems);

  const port = dto.PORT ?? 3000;
  const repoRoot = resolve(__dirname, '..', '..', '..');
  // The default is the repository's data/ whichever workspace runs (npm start at the root, npm run manage -w api);
  // a relative DATA_DIR is taken from where the command was typed (npm's INIT_CWD).
  const dataDir = dto.DATA_DIR ? resolve(env.INIT_CWD ?? cwd, dto.DATA_DIR) : resolve(repoRoot, 'data');
  const envName = (dto.NODE_ENV ?? 'development') as AppConfig['env'];
  const url = dto.DATABASE_URL;
  return {
    env: envName,
    host: dto.HOST ?? '0.0.0.0',
    port,
    publicUrl: (dto.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir,
    database: url
      ? {
          engine: 'mysql',
          url: url.replace(/^mariadb:/, 'mysql:'),
          flavour: url.startsWith('mariadb:') ? 'mariadb' : 'mysql',
        }
      : { engine: 'sqlite', file: resolve(dataDir, 'esign.sqlite') },
    logLevel: (dto.LOG_LEVEL ?? (envName === 'test' ? 'silent' : 'info')) as AppConfig['logLevel'],
    trustedProxies: (dto.TRUSTED_PROXIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    session: { idleSeconds: idle, maxSeconds: max },
    loginThrottle: {
      maxFailures: dto.LOGIN_MAX_FAILURES ?? 5,
      windowSeconds: dto.LOGIN_FAILURE_WINDOW_SECONDS ?? 900,
      maxFailuresPerIp: Math.max(20, (dto.LOGIN_MAX_FAILURES ?? 5) * 4),
    },
    seedDemo: envName !== 'production',
    webRoots: { admin: resolve(repoRoot, 'admin', 'dist'), signer: resolve(repoRoot, 'signer-web', 'dist') },
    faceModelsDir: resolve(repoRoot, 'api', 'models', 'face'),
    ffmpegPath: dto.FFMPEG_PATH ?? 'ffmpeg',
    jobs: {
      runner: (dto.JOBS_RUNNER ?? (envName === 'test' ? 'off' : 'on')) === 'on',
      pollMs: dto.JOBS_POLL_MS ?? 1000,
      leaseSeconds: dto.JOBS_LEASE_SECONDS ?? 60,
      maxInterruptions: dto.JOBS_MAX_INTERRUPTIONS ?? 50,
      testJobs: dto.ESIGN_TEST_JOBS === '1',
    },
    listPages: (dto.LIST_PAGES ?? 'on') === 'on',
    heapGrowingPercent: dto.HEAP_GROWING_PERCENT ?? 50,
    testFaults: (dto.ESIGN_TEST_FAULTS ?? '')
      .split(',')
      .filter(Boolean)
      .map((entry) => {
        const [point, rest] = entry.split('=');
        const [action, times] = rest.split('*');
        return { point, action: action as 'kill' | 'fail', times: Number(times) };
      }),
    watchdog: { intervalSeconds: dto.WATCHDOG_INTERVAL_SECONDS ?? 900 },
    backup: backupDir ? { dir: backupDir, everyHours: dto.BACKUP_EVERY_HOURS ?? 24, keep: dto.BACKUP_KEEP ?? 7 } : null,
    mail: { smtpUrl: dto.SMTP_URL ?? null, from: dto.MAIL_FROM ?? 'e-Sign <no-reply@localhost>' },
    sms: { url: dto.SMS_URL ?? null },
    seal: {
      p12Path: dto.SEAL_P12 ? resolve(env.INIT_CWD ?? cwd, dto.SEAL_P12) : null,
      p12Password: env.SEAL_P12_PASSWORD ?? '',
    },
    esp:
      dto.ESP_URL && dto.ASP_ID && dto.ASP_KEY && dto.ASP_CERT && dto.ESP_CERT
        ? {
            mode: 'esp',
            url: dto.ESP_URL,
            aspId: dto.ASP_ID,
            aspKeyPath: resolve(env.INIT_CWD ?? cwd, dto.ASP_KEY),
            aspCertPath: resolve(env.INIT_CWD ?? cwd, dto.ASP_CERT),
            espCertPath: resolve(env.INIT_CWD ?? cwd, dto.ESP_CERT),
          }
        : { mode: 'sandbox' },
    redis: dto.REDIS_URL ? { url: dto.REDIS_URL } : null,
    storage: dto.S3_BUCKET
      ? {
          kind: 's3',
          endpoint: dto.S3_ENDPOINT ? dto.S3_ENDPOINT.replace(/\/+$/, '') : null,
          bucket: dto.S3_BUCKET,
          region: dto.S3_REGION ?? 'us-east-1',
          credentials:
            dto.S3_ACCESS_KEY_ID && dto.S3_SECRET_ACCESS_KEY
              ? { accessKeyId: dto.S3_ACCESS_KEY_ID, secretAccessKey: dto.S3_SECRET_ACCESS_KEY }
              : null,
          // S3-compatible servers (MinIO, Garage, SeaweedFS) want path-style addressing; AWS itself takes either.
          forcePathStyle: dto.S3_FORCE_PATH_STYLE ? dto.S3_FORCE_PATH_STYLE === 'true' : Boolean(dto.S3_ENDPOINT),
        }
      : { kind: 'local' },
    metricsToken: dto.METRICS_TOKEN ?? null,
    workerMetricsPort: dto.METRICS_PORT ?? null,
    tsa: tsaUrls
      ? {
          mode: 'remote',
          endpoints: tsaUrls.endpoints,
          timeoutMs: dto.TSA_TIMEOUT_MS ?? 5000,
          policy: dto.TSA_POLICY ?? null,
          caFile: tsaCaFile,
        }
      : { mode: 'built-in' },
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
