/**
 * The CLI's exit codes (documented in cli/README.md). Every failure is one line on stderr (or a JSON object with
 * --json), never a stack trace.
 */
export const ExitCode = {
  ok: 0,
  /** The operation failed (the API refused it, a bulk run had bad rows, …). */
  failed: 1,
  /** Bad usage or input: a missing or malformed flag, an unreadable file. */
  usage: 2,
  /** Not signed in, or the key was refused (401/403). */
  auth: 3,
  /** The thing asked for does not exist (404). */
  notFound: 4,
  /** esign-cli verify: a signature or the audit trail does not check out. */
  verification: 5,
  /** The API could not be reached. */
  network: 6,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure to report as one line with its exit code (and, from the API, its status and error code). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.failed,
    readonly details: { status?: number; error?: string } = {},
  ) {
    super(message);
  }
}
