import { CliError, ExitCode } from './errors';
import { readProfile } from './profile';

/** The global options every command gets (index.ts). */
export interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
}

export interface Connection {
  url: string;
  /** An organisation API key or a session key; null when not signed in. */
  key: string | null;
  /** The organisation of the profile (null with a bare --key / ESIGN_API_KEY until asked). */
  orgId: string | null;
}

/** Where to call and with which key: flags first, then ESIGN_URL / ESIGN_API_KEY, then the saved profile. */
export function connection(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const profile = readProfile(env);
  const url = (opts.url ?? env.ESIGN_URL ?? profile?.url ?? 'http://localhost:3000').replace(/\/+$/, '');
  const key =
    opts.key ?? env.ESIGN_API_KEY ?? (profile && (!opts.url || opts.url === profile.url) ? profile.key : null);
  const sameProfile = profile && key === profile.key;
  return { url, key: key || null, orgId: sameProfile ? profile.orgId : null };
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  /** Answer the raw response (downloads); errors are still thrown. */
  raw?: boolean;
  /** Send no key even when one is configured. */
  anonymous?: boolean;
}

const exitFor = (status: number) =>
  status === 401 || status === 403 ? ExitCode.auth : status === 404 ? ExitCode.notFound : ExitCode.failed;

/** A thin fetch wrapper: the key in `apikey`, JSON in and out, the API's `{ message }` as a CliError. */
export class ApiClient {
  constructor(readonly conn: Connection) {}

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, options);
    if (options.raw) return res as unknown as T;
    const text = await res.text();
    try {
      return (text ? JSON.parse(text) : null) as T;
    } catch {
      throw new CliError(`${method} ${path}: the API answered something that is not JSON`, ExitCode.failed);
    }
  }

  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = new URL(path, `${this.conn.url}/`);
    for (const [name, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...options.headers };
    if (this.conn.key && !options.anonymous) headers.apikey = this.conn.key;
    let body: FormData | string | undefined;
    if (options.form) body = options.form;
    else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach ${this.conn.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
        ExitCode.network,
      );
    }
    if (!res.ok) {
      let message = `${method} ${url.pathname} answered ${res.status}`;
      let code: string | undefined;
      try {
        const body = (await res.json()) as { message?: unknown; error?: unknown };
        if (typeof body?.message === 'string' && body.message) message = body.message;
        if (typeof body?.error === 'string') code = body.error;
      } catch {
        // not JSON: keep the status line
      }
      throw new CliError(message, exitFor(res.status), { status: res.status, error: code });
    }
    return res;
  }
}

/** A client that must have a key ('Not signed in' otherwise). */
export function signedInClient(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env): ApiClient {
  const conn = connection(opts, env);
  if (!conn.key)
    throw new CliError(
      'Not signed in: run esign-cli login, or pass --key / set ESIGN_API_KEY (an organisation API key).',
      ExitCode.auth,
    );
  return new ApiClient(conn);
}
