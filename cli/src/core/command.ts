import type { Command } from 'commander';
import type { GlobalOptions } from './client';
import { defaultIo, fail, type Io } from './output';

/** What a command's action gets: the global options (--url, --key, --json) and where to write. */
export interface CommandContext {
  globals: GlobalOptions;
  io: Io;
  env: NodeJS.ProcessEnv;
}

/**
 * Wraps a command's action: builds its context from the program's global options, runs it, and turns any failure
 * into one line (or JSON) and the exit code. The action answers its exit code (0 when it returns nothing).
 */
export function action<A extends unknown[]>(
  program: Command,
  fn: (ctx: CommandContext, ...args: A) => Promise<number | void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const globals = program.opts<GlobalOptions>();
    const ctx: CommandContext = { globals, io: defaultIo(Boolean(globals.json)), env: process.env };
    try {
      process.exitCode = (await fn(ctx, ...args)) ?? 0;
    } catch (error) {
      process.exitCode = fail(ctx.io, error);
    }
  };
}
