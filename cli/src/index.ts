#!/usr/bin/env node
import { Command } from 'commander';
import { version } from '../package.json';
import { health } from './commands/health';

/** esign-cli: operators' and CI scripts' command line (login, send, bulk, status, report, verify come in step 8). */
const program = new Command('esign-cli')
  .description('Command line for the e-Sign API')
  .version(version)
  .option('--url <url>', 'API address', process.env.ESIGN_URL ?? 'http://localhost:3000');

program
  .command('health')
  .description('Check that the API answers, and on which database')
  .action(async () => {
    process.exitCode = await health(program.opts<{ url: string }>(), (line) => console.log(line));
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
