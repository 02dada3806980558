#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { version } from '../package.json';
import { registerAccount } from './commands/account';
import { registerBulk } from './commands/bulk';
import { dscAgent } from './commands/dsc-agent';
import { health } from './commands/health';
import { registerRequests } from './commands/requests';
import { registerVerify } from './commands/verify';
import { ExitCode } from './core/errors';

/**
 * esign-cli: operators' and CI scripts' command line. Global options: --url (ESIGN_URL), --key (ESIGN_API_KEY) and
 * --json; otherwise the profile saved by `esign-cli login`. Nothing prompts under CI=true or without a terminal.
 * Exit codes: cli/README.md (core/errors.ts).
 */
const program = new Command('esign-cli')
  .description('Command line for the e-Sign API')
  .version(version)
  .option('--url <url>', 'API address (default: $ESIGN_URL, the saved profile, http://localhost:3000)')
  .option('--key <key>', 'organisation API key or session key (default: $ESIGN_API_KEY, the saved profile)')
  .option('--json', 'print JSON instead of text (errors too)')
  .showHelpAfterError()
  .exitOverride();

program
  .command('health')
  .description('Check that the API answers, and on which database')
  .action(async () => {
    const url = program.opts<{ url?: string }>().url ?? process.env.ESIGN_URL ?? 'http://localhost:3000';
    process.exitCode = await health({ url }, (line) => console.log(line));
  });

registerAccount(program);
registerRequests(program);
registerBulk(program);
registerVerify(program);

program
  .command('dsc-agent')
  .description('Desktop signer agent: signs with your USB token (DSC) for the e-Sign server')
  .option('--server <url>', 'e-Sign API address, e.g. https://esign.example.com')
  .option('--identifier <email|phone>', 'your e-mail or phone, as in the signing request')
  .option('--module <path>', 'PKCS#11 driver of the token (default: the first known driver found)')
  .option('--token <label|slot|serial>', 'the token to use (default: the only token inserted)')
  .option('--otp <code>', 'the one-time code sent to you (default: asked on the terminal)')
  .option('--list-tokens', 'print the tokens of the driver and exit')
  .action(async (opts: Parameters<typeof dscAgent>[0]) => {
    process.exitCode = await dscAgent(opts, {
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      version,
    });
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    // Help and --version end with code 0; a usage error was printed by commander already.
    process.exitCode = err.exitCode === 0 ? 0 : ExitCode.usage;
    return;
  }
  console.error(`esign-cli: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = ExitCode.failed;
});
