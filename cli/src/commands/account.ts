import type { KeyAuthResponse, WhoAmIResponse } from '@esign/contract';
import type { Command } from 'commander';
import { ApiClient, connection, signedInClient } from '../core/client';
import { action } from '../core/command';
import { CliError, ExitCode } from '../core/errors';
import { emit } from '../core/output';
import { readProfile, removeProfile, writeProfile, type Profile } from '../core/profile';
import { readStdin } from '../core/stdin';

interface LoginOptions {
  username?: string;
  passwordStdin?: boolean;
  apiKeyStdin?: boolean;
}

/** Who a key is: GET /api/whoami answers its kind, organisation and user (or key name). */
async function whoIs(client: ApiClient): Promise<WhoAmIResponse> {
  return client.request<WhoAmIResponse>('GET', '/api/whoami');
}

async function askPassword(username: string): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  return password({ message: `Password for ${username}:`, mask: '*' });
}

export function registerAccount(program: Command): void {
  program
    .command('login')
    .description('Sign in with a username and password (a session key), or check and save an organisation API key')
    .option('--username <name>', 'the console user to sign in as')
    .option('--password-stdin', 'read the password from stdin')
    .option('--api-key-stdin', 'read an organisation API key from stdin')
    .action(
      action(program, async (ctx, opts: LoginOptions) => {
        const conn = connection({ url: ctx.globals.url }, { ...ctx.env, ESIGN_API_KEY: undefined });
        let profile: Profile;
        if (opts.username) {
          if (opts.apiKeyStdin)
            throw new CliError('--username and --api-key-stdin do not go together.', ExitCode.usage);
          let password: string;
          if (opts.passwordStdin) password = (await readStdin()).replace(/\r?\n$/, '');
          else if (ctx.io.interactive) password = await askPassword(opts.username);
          else throw new CliError('No password: pass --password-stdin (and the password on stdin).', ExitCode.usage);
          if (!password) throw new CliError('The password read from stdin is empty.', ExitCode.usage);
          const client = new ApiClient({ ...conn, key: null });
          const auth = Buffer.from(`${opts.username}:${password}`).toString('base64');
          const res = await client.request<KeyAuthResponse>(
            'GET',
            `/consumers/${encodeURIComponent(opts.username)}/key-auth`,
            { headers: { authorization: `Basic ${auth}` }, anonymous: true },
          );
          const key = res?.data?.[0]?.key;
          if (!key) throw new CliError('The API answered no session key.', ExitCode.failed);
          const who = await whoIs(new ApiClient({ ...conn, key }));
          profile = {
            url: conn.url,
            key,
            orgId: who.orgId,
            username: who.username ?? opts.username,
            kind: 'session',
            savedAt: new Date().toISOString(),
          };
        } else {
          let key = ctx.globals.key ?? ctx.env.ESIGN_API_KEY;
          if (opts.apiKeyStdin) key = (await readStdin()).trim();
          if (!key)
            throw new CliError(
              'Nothing to sign in with: pass --username (with --password-stdin), or an API key with --key, ESIGN_API_KEY or --api-key-stdin.',
              ExitCode.usage,
            );
          let who: WhoAmIResponse;
          try {
            who = await whoIs(new ApiClient({ ...conn, key }));
          } catch (error) {
            if (error instanceof CliError && error.exitCode === ExitCode.auth)
              throw new CliError(`The API key was refused: ${error.message}`, ExitCode.auth, error.details);
            throw error;
          }
          profile = {
            url: conn.url,
            key,
            orgId: who.orgId,
            username: who.username,
            kind: who.kind === 'session' ? 'session' : 'api-key',
            savedAt: new Date().toISOString(),
          };
        }
        const file = writeProfile(profile, ctx.env);
        emit(
          ctx.io,
          {
            ok: true,
            url: profile.url,
            orgId: profile.orgId,
            username: profile.username,
            kind: profile.kind,
            profile: file,
          },
          () =>
            `Signed in to ${profile.url} as ${profile.username ?? 'an organisation API key'} (organisation ${profile.orgId}); saved ${file}`,
        );
      }),
    );

  program
    .command('logout')
    .description('Sign out: revoke the session key on the server and remove the saved profile')
    .action(
      action(program, async (ctx) => {
        const profile = readProfile(ctx.env);
        let revoked = false;
        let warning: string | null = null;
        if (profile?.kind === 'session' && profile.username) {
          try {
            await new ApiClient({ url: profile.url, key: profile.key, orgId: profile.orgId }).request(
              'DELETE',
              `/consumers/${encodeURIComponent(profile.username)}/key-auth`,
            );
            revoked = true;
          } catch (error) {
            // An expired key or an unreachable server: the profile goes anyway.
            warning = `the session key was not revoked: ${(error as Error).message}`;
          }
        }
        const removed = removeProfile(ctx.env);
        if (warning && !ctx.io.json) ctx.io.err(`esign-cli: warning: ${warning}`);
        emit(ctx.io, { ok: true, removed, revoked, warning }, () =>
          removed ? `Signed out${revoked ? ' (session key revoked)' : ''}.` : 'Not signed in: nothing to remove.',
        );
      }),
    );

  program
    .command('whoami')
    .description('Show the API address, the organisation and who the key is')
    .action(
      action(program, async (ctx) => {
        const client = signedInClient(ctx.globals, ctx.env);
        const who = await whoIs(client);
        const data = {
          url: client.conn.url,
          orgId: who.orgId,
          kind: who.kind === 'session' ? 'session' : 'api-key',
          username: who.username,
          keyName: who.keyName,
        };
        emit(ctx.io, data, () => [
          `url:          ${data.url}`,
          `organisation: ${data.orgId}`,
          `signed in as: ${
            data.username
              ? `${data.username} (session key)`
              : `organisation API key${data.keyName ? ` "${data.keyName}"` : ''}`
          }`,
        ]);
      }),
    );
}
