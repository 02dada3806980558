import { createInterface } from 'node:readline/promises';
import { AgentFatalError, DscAgent, agentLogin, tokenSignerOpener } from '../dsc/agent';
import { DscTokenError } from '../dsc/errors';
import { knownModules } from '../dsc/modules';
import { openToken, type TokenModule } from '../dsc/token';

export interface DscAgentCommandOptions {
  server?: string;
  identifier?: string;
  module?: string;
  token?: string;
  otp?: string;
  listTokens?: boolean;
}

export interface DscAgentIo {
  out(line: string): void;
  err(line: string): void;
  version: string;
}

async function askOtp(identifier: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // Ctrl-C at the prompt: readline would otherwise only pause the input and leave the question hanging.
  const abort = new AbortController();
  rl.on('SIGINT', () => abort.abort());
  try {
    return await rl.question(`One-time code sent to ${identifier}: `, { signal: abort.signal });
  } catch (error) {
    if (abort.signal.aborted) throw new AgentFatalError('Stopped before the one-time code was entered.');
    throw error;
  } finally {
    rl.close();
  }
}

function modulePathOf(opts: DscAgentCommandOptions): string {
  if (opts.module) return opts.module;
  const found = knownModules()[0];
  if (!found) {
    throw new AgentFatalError(
      'No USB token driver found on this computer: install it, or give its file with --module.',
    );
  }
  return found.path;
}

/** esign-cli dsc-agent: the desktop signer agent that signs with the USB token for the e-Sign server. */
export async function dscAgent(opts: DscAgentCommandOptions, io: DscAgentIo): Promise<number> {
  let module: TokenModule | undefined;
  try {
    if (!opts.listTokens) {
      if (!opts.server) throw new AgentFatalError('--server <url> is required');
      if (!opts.identifier) throw new AgentFatalError('--identifier <email|phone> is required');
    }
    module = openToken(modulePathOf(opts));
    if (opts.listTokens) {
      const tokens = await module.listTokens();
      if (tokens.length === 0) io.out(`No token in ${module.modulePath}`);
      for (const t of tokens) {
        const locked = t.pinLocked ? ' (locked)' : '';
        io.out(`slot ${t.slotId}  label "${t.label}"  serial ${t.serial}  ${t.manufacturer} ${t.model}${locked}`);
      }
      return 0;
    }
    const server = opts.server ?? '';
    const identifier = opts.identifier ?? '';
    const otp = opts.otp;
    const agentToken = await agentLogin(server, identifier, () =>
      otp !== undefined ? Promise.resolve(otp) : askOtp(identifier),
    );
    const agent = new DscAgent({
      server,
      agentToken,
      openSigner: tokenSignerOpener(module, opts.token),
      log: { info: io.out, error: io.err },
      version: io.version,
    });
    const onSigint = (): void => {
      io.out('Stopping the signer agent.');
      agent.stop();
    };
    process.once('SIGINT', onSigint);
    try {
      await agent.run();
    } finally {
      process.off('SIGINT', onSigint);
    }
    return 0;
  } catch (error) {
    if (error instanceof AgentFatalError || error instanceof DscTokenError) io.err(error.message);
    else io.err(`The signer agent failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await module?.close().catch(() => undefined);
  }
}
