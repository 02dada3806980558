import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import {
  BackupMessages,
  ORG_MODES,
  SIGNATURE_LEVELS,
  USER_ROLES,
  type OrgMode,
  type SignatureLevel,
  type UserRole,
} from '@esign/contract';
import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppModule } from './app.module';
import { AppError } from './common/app-error';
import { ConfigError, loadConfig } from './config/app-config';
import { AuthService } from './modules/auth/auth.service';
import { BackupError, restoreBackup, writeBackup } from './modules/backup/backup-archive';
import { UsersService } from './modules/auth/users.service';
import { OrganisationsService } from './modules/organisations/organisations.service';
import { REVOCATION_REASONS } from './modules/signing/pki/ocsp';
import type { PkiCertificateEntity } from './modules/signing/pki/pki-certificate.entity';
import { PkiRegistry } from './modules/signing/pki/pki-registry.service';
import { SealPkiService } from './modules/signing/pki/seal-pki.service';
import { ArchiveService } from './modules/requests/archive-renewal.service';
import { SealService } from './modules/requests/seal.service';

/**
 * The management command: `npm run manage -w api -- <command>`. It uses the same configuration (DATA_DIR or
 * DATABASE_URL) and the same services as the server, and runs the migrations first.
 */
export interface ManageIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Reads a whole input stream (for --password-stdin). */
  readStdin: () => Promise<string>;
}

export async function manage(argv: string[], env: NodeJS.ProcessEnv, io: ManageIo): Promise<number> {
  const withServices = async <T>(
    fn: (app: Awaited<ReturnType<typeof NestFactory.createApplicationContext>>) => Promise<T>,
  ) => {
    const config = loadConfig(env);
    const app = await NestFactory.createApplicationContext(AppModule.forRoot({ ...config, logLevel: 'silent' }), {
      logger: false,
    });
    try {
      return await fn(app);
    } finally {
      await app.close();
    }
  };
  const password = async (opts: { password?: string; passwordStdin?: boolean }): Promise<string> => {
    if (opts.password !== undefined && opts.passwordStdin)
      throw new AppError('VALIDATION_FAILED', 'Give --password or --password-stdin, not both.');
    if (opts.passwordStdin) return (await io.readStdin()).replace(/\r?\n$/, '');
    if (opts.password === undefined)
      throw new AppError('VALIDATION_FAILED', 'Give the password with --password-stdin (or --password).');
    return opts.password;
  };

  const program = new Command('manage')
    .description('Manage organisations, staff users and API keys of the e-Sign API.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  program
    .command('create-org')
    .description('Create an organisation.')
    .requiredOption('--id <id>', 'organisation id used in URLs (lower-case letters, digits, _ or -)')
    .requiredOption('--name <name>', 'display name')
    .addOption(new Option('--mode <mode>', 'test or live').choices(ORG_MODES as unknown as string[]).default('test'))
    .option('--tag <tag>', 'tag returned at sign-in (defaults to the id)')
    .action(async (opts: { id: string; name: string; mode: OrgMode; tag?: string }) => {
      const org = await withServices((app) => app.get(OrganisationsService).create(opts));
      io.out(`Created organisation '${org.id}' (${org.name}, ${org.mode} mode).`);
    });

  program
    .command('create-user')
    .description('Create a staff user in an organisation.')
    .requiredOption('--org <orgId>', 'organisation id')
    .requiredOption('--username <username>', 'sign-in name')
    .option('--password <password>', 'password (visible to other local users; prefer --password-stdin)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--email <address>', 'where the product writes to the user (e.g. when a request they sent is rejected)')
    .addOption(
      new Option(
        '--role <role>',
        "admin (the organisation's administrator: users, API keys, webhooks, settings, seal) or staff (sending)",
      )
        .choices(USER_ROLES as unknown as string[])
        .default('admin'),
    )
    .action(
      async (opts: {
        org: string;
        username: string;
        password?: string;
        passwordStdin?: boolean;
        email?: string;
        role: UserRole;
      }) => {
        const secret = await password(opts);
        const user = await withServices((app) =>
          app.get(UsersService).create(opts.org, opts.username, secret, opts.email, opts.role),
        );
        io.out(
          `Created user '${user.username}' in organisation '${user.orgId}'${user.email ? ` with e-mail ${user.email}` : ''} (role ${user.role}).`,
        );
      },
    );

  program
    .command('set-role')
    .description(
      "Make a staff user an organisation administrator (admin) or not (staff); the organisation's last active administrator stays one.",
    )
    .requiredOption('--username <username>', 'sign-in name')
    .addOption(
      new Option('--role <role>', 'admin or staff').choices(USER_ROLES as unknown as string[]).makeOptionMandatory(),
    )
    .action(async (opts: { username: string; role: UserRole }) => {
      const user = await withServices((app) => app.get(UsersService).setRole(opts.username, opts.role));
      io.out(`User '${user.username}' of organisation '${user.orgId}' is now ${user.role}.`);
    });

  program
    .command('set-email')
    .description("Set a staff user's e-mail address (rejections of the requests they sent are written there).")
    .requiredOption('--username <username>', 'sign-in name')
    .option('--email <address>', 'the e-mail address')
    .option('--clear', 'remove the address: nothing is sent to the user')
    .action(async (opts: { username: string; email?: string; clear?: boolean }) => {
      if (Boolean(opts.email) === Boolean(opts.clear))
        throw new AppError('VALIDATION_FAILED', 'Give --email <address> or --clear.');
      const user = await withServices((app) => app.get(UsersService).setEmail(opts.username, opts.email ?? null));
      io.out(
        user.email ? `E-mail of '${user.username}' set to ${user.email}.` : `E-mail of '${user.username}' removed.`,
      );
    });

  program
    .command('set-password')
    .description("Set a staff user's password.")
    .requiredOption('--username <username>', 'sign-in name')
    .option('--password <password>', 'new password (prefer --password-stdin)')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (opts: { username: string; password?: string; passwordStdin?: boolean }) => {
      const secret = await password(opts);
      await withServices((app) => app.get(UsersService).setPassword(opts.username, secret));
      io.out(`Password of '${opts.username.toLowerCase()}' changed.`);
    });

  program
    .command('create-api-key')
    .description('Create a long-lived organisation API key for the CLI or CI scripts; it is printed once.')
    .requiredOption('--org <orgId>', 'organisation id')
    .requiredOption('--name <name>', 'what the key is for')
    .action(async (opts: { org: string; name: string }) => {
      const key = await withServices((app) => app.get(AuthService).createOrgKey(opts.org, opts.name));
      io.out(
        `Created API key '${key.name}' (id ${key.id}) for organisation '${opts.org}'. Store it now; it is not shown again:`,
      );
      io.out(key.key);
    });

  program
    .command('reseal')
    .description(
      "Apply a request's submitted signatures and, when every signer is done, its certificate of completion and seal, now (after the seal job gave up).",
    )
    .requiredOption('--ref <refId>', 'Ref ID of the request')
    .option(
      '--accept-level <level>',
      "complete below the organisation's level when no timestamp authority answers: B-B (no timestamps) or B-LT (no archive timestamp); audited as a downgrade",
    )
    .action(async (opts: { ref: string; acceptLevel?: string }) => {
      if (opts.acceptLevel !== undefined && !(SIGNATURE_LEVELS as readonly string[]).includes(opts.acceptLevel))
        throw new AppError('VALIDATION_FAILED', `--accept-level is one of ${SIGNATURE_LEVELS.join(', ')}.`);
      const outcome = await withServices((app) =>
        app.get(SealService).reseal(opts.ref, opts.acceptLevel as SignatureLevel | undefined),
      );
      io.out(
        `Request ${opts.ref}: ${outcome.applied} signature(s) applied${outcome.completed ? ', completed and sealed' : ''}; status ${outcome.status}.`,
      );
    });

  program
    .command('renew-archive')
    .description(
      'Add fresh validation data and a new archive timestamp to completed documents (B-LTA) before their last timestamp expires: the due ones, or one with --ref (--force: even when not due).',
    )
    .option('--ref <refId>', 'Ref ID of one completed request')
    .option('--force', 'renew even when not due yet')
    .option('--limit <n>', 'at most this many due documents', '100')
    .action(async (opts: { ref?: string; force?: boolean; limit: string }) => {
      const outcomes = await withServices((app) => {
        const archive = app.get(ArchiveService);
        if (opts.ref) return archive.renewRef(opts.ref, Boolean(opts.force)).then((o) => [o]);
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new AppError('VALIDATION_FAILED', '--limit is a positive whole number.');
        return archive.renewDue(limit);
      });
      if (!outcomes.length) io.out('No archive is due for renewal.');
      for (const o of outcomes)
        io.out(
          o.renewed
            ? `Request ${o.refId}: archive timestamp ${o.archivedAt}; next renewal ${o.renewAt ?? 'not set'}${o.revocationGaps ? `; ${o.revocationGaps} certificate(s) without revocation data` : ''}.`
            : `Request ${o.refId}: not renewed (${o.reason}).`,
        );
    });

  program
    .command('import-seal')
    .description(
      "Use an organisation's own PKCS#12 for its seals: a CA certificate issues each signer's certificate, a leaf certificate signs everything.",
    )
    .requiredOption('--org <orgId>', 'organisation id')
    .requiredOption('--p12 <file>', 'the .p12 / .pfx file')
    .option('--password-stdin', 'read the PKCS#12 password from standard input (default: no password)')
    .action(async (opts: { org: string; p12: string; passwordStdin?: boolean }) => {
      const secret = opts.passwordStdin ? (await io.readStdin()).replace(/\r?\n$/, '') : '';
      let bytes: Buffer;
      try {
        bytes = readFileSync(opts.p12);
      } catch {
        throw new AppError('VALIDATION_FAILED', `Cannot read ${opts.p12}.`);
      }
      const summary = await withServices(async (app) => {
        const org = await app.get(OrganisationsService).get(opts.org);
        return app.get(SealPkiService).importPkcs12(org, bytes, secret);
      });
      io.out(`Organisation '${opts.org}' now seals with "${summary.subject}" (serial ${summary.serialNumber}).`);
    });

  const reasonOption = () =>
    new Option('--reason <reason>', 'why (RFC 5280 CRLReason)').choices(REVOCATION_REASONS).default('unspecified');
  const revoked = (row: PkiCertificateEntity) =>
    `Revoked "${row.subject}" (serial ${row.serial}, CA ${row.caId}) at ${row.revokedAt!.toISOString()}: ${row.revocationReason}. ` +
    "Its OCSP status is now revoked, its CA's CRL lists it, and nothing more is signed with it.";

  program
    .command('revoke-certificate')
    .description(
      "Revoke a certificate issued by this installation's CAs (development root, organisation CAs, sandbox ESP CA).",
    )
    .requiredOption(
      '--serial <hex>',
      'serial number in hexadecimal (as `openssl x509 -serial` or list-certificates prints it)',
    )
    .addOption(reasonOption())
    .option('--ca <id>', 'the issuing CA, when two CAs used the same serial')
    .action(async (opts: { serial: string; reason: string; ca?: string }) => {
      const row = await withServices((app) => app.get(PkiRegistry).revoke(opts.serial, opts.reason, opts.ca));
      io.out(revoked(row));
    });

  program
    .command('revoke-seal')
    .description(
      "Revoke an organisation's seal certificate, or with --issuer its issuing CA (and so every certificate it issued).",
    )
    .requiredOption('--org <orgId>', 'organisation id')
    .option('--issuer', "revoke the organisation's issuing CA instead of its seal certificate")
    .addOption(reasonOption())
    .action(async (opts: { org: string; issuer?: boolean; reason: string }) => {
      const row = await withServices(async (app) => {
        const org = await app.get(OrganisationsService).get(opts.org);
        return app.get(SealPkiService).revokeOrganisation(org, opts.issuer ? 'issuer' : 'seal', opts.reason);
      });
      io.out(revoked(row));
      io.out(
        `Organisation '${opts.org}' cannot sign until it has new certificates: manage import-seal --org ${opts.org} --p12 FILE, or manage renew-seal --org ${opts.org}.`,
      );
    });

  program
    .command('renew-seal')
    .description(
      'Give an organisation new development certificates (an issuing CA under the development root and a seal), e.g. after revoke-seal.',
    )
    .requiredOption('--org <orgId>', 'organisation id')
    .action(async (opts: { org: string }) => {
      const summary = await withServices(async (app) => {
        const org = await app.get(OrganisationsService).get(opts.org);
        return app.get(SealPkiService).renew(org);
      });
      io.out(`Organisation '${opts.org}' now seals with "${summary.subject}" (serial ${summary.serialNumber}).`);
    });

  program
    .command('list-certificates')
    .description("List the certificates this installation's CAs issued, newest first, with their revocation.")
    .option('--org <orgId>', "only an organisation's")
    .option('--limit <n>', 'at most this many', '50')
    .action(async (opts: { org?: string; limit: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new AppError('VALIDATION_FAILED', '--limit must be a whole number from 1 to 10000.');
      const rows = await withServices((app) => app.get(PkiRegistry).list({ orgId: opts.org, limit }));
      for (const r of rows)
        io.out(
          [
            r.serial,
            r.caId,
            r.kind,
            r.notAfter.toISOString(),
            r.revokedAt ? `revoked ${r.revokedAt.toISOString()} (${r.revocationReason})` : 'valid',
            r.subject,
          ].join('\t'),
        );
    });

  const fill = (text: string, values: Record<string, string | number>) =>
    text.replace(/\{(\w+)\}/g, (all, name: string) => (name in values ? String(values[name]) : all));
  /** A path as the operator typed it: relative to where the command was run (npm's INIT_CWD), not api/. */
  const typed = (file: string) => resolve(env.INIT_CWD ?? process.cwd(), file);

  program
    .command('backup')
    .description(
      'Write one archive of this installation while the server runs: the SQLite database (its online backup), every stored document it refers to, and a manifest with the SHA-256 of each part. With MariaDB or S3 it says what your own backups must cover.',
    )
    .argument('<file>', 'the archive to write (a .tar; mode 0600)')
    .action(async (file: string) => {
      const config = loadConfig(env);
      const result = await writeBackup(config, typed(file));
      const mb = `${(result.bytes / 1_048_576).toFixed(1)} MB`;
      io.out(fill(BackupMessages.written, { file: result.file, count: result.documents, size: mb }));
      io.out(fill(BackupMessages.holds, { what: result.manifest.covers.join('; ') }));
      if (result.manifest.not_covered.length)
        io.out(fill(BackupMessages.notHeld, { what: result.manifest.not_covered.join('; ') }));
      io.out(BackupMessages.secret);
    });

  program
    .command('restore')
    .description(
      'Restore an archive of `backup` into DATA_DIR, which must be new or empty: the whole archive is checked against its checksum and manifest first, and nothing is written when it does not match.',
    )
    .argument('<file>', 'the archive written by `backup`')
    .action(async (file: string) => {
      const config = loadConfig(env);
      const { manifest, documents } = await restoreBackup(config, typed(file));
      const hasDatabase = manifest.database === 'sqlite';
      io.out(
        fill(hasDatabase ? BackupMessages.restored : BackupMessages.restoredFiles, {
          count: documents,
          dir: config.dataDir,
        }),
      );
      if (manifest.not_covered.length) io.out(fill(BackupMessages.notHeld, { what: manifest.not_covered.join('; ') }));
    });

  program
    .command('dev-ca')
    .description('Print the development root CA certificate (PEM): what a PDF verifier must trust for the seals.')
    .action(async () => {
      io.out((await withServices((app) => app.get(SealPkiService).rootCertificatePem())).trimEnd());
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof AppError || err instanceof ConfigError || err instanceof BackupError) {
      io.err(err.message);
      return 1;
    }
    io.err(`manage failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (require.main === module) {
  manage(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  }).then((code) => {
    process.exitCode = code;
  });
}
