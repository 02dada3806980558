import { CliError, ExitCode, type ExitCodeValue } from './errors';

/** Where a command writes: human lines, or one JSON document with --json. Tests pass their own. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  json: boolean;
  /** A person at the keyboard: prompts allowed (not under CI=true, not when stdin is not a terminal). */
  interactive: boolean;
}

export function defaultIo(json: boolean, env: NodeJS.ProcessEnv = process.env): Io {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    json,
    interactive: Boolean(process.stdin.isTTY) && env.CI !== 'true' && env.CI !== '1' && !json,
  };
}

/** Prints the result: `data` as JSON with --json, else the human text. */
export function emit(io: Io, data: unknown, human: () => string | string[]): void {
  if (io.json) io.out(JSON.stringify(data, null, 2));
  else for (const line of ([] as string[]).concat(human())) io.out(line);
}

/** Reports a failure as one line (or `{ error }` JSON) and answers its exit code. */
export function fail(io: Io, error: unknown): ExitCodeValue {
  const e =
    error instanceof CliError
      ? error
      : new CliError(error instanceof Error ? error.message : String(error), ExitCode.failed);
  if (io.json) {
    // `error` is the message; the API's domain code (e.g. VALIDATION_FAILED) and HTTP status come as code and status.
    const { error: code, status } = e.details;
    io.out(JSON.stringify({ ok: false, error: e.message, exitCode: e.exitCode, status, code }, null, 2));
  } else io.err(`esign-cli: ${e.message}`);
  return e.exitCode;
}

/** A plain text table: columns padded to their widest cell. */
export function table(headers: string[], rows: Array<Array<string | number | null | undefined>>): string[] {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}
