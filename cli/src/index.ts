#!/usr/bin/env node
import { Command } from 'commander';
import { version } from '../package.json';
import { dscAgent } from './commands/dsc-agent';
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
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
