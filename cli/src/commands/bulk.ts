import type { Command } from 'commander';

/** Placeholder while the command is written (step 8): registers nothing yet. */
export function registerBulk(_program: Command): void {}
