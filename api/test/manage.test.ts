import { manage, type ManageIo } from '../src/manage';
import { createDataSource } from '../src/database/data-source';
import { loadConfig } from '../src/config/app-config';
import { freshDatabase } from './support/test-app';

function io(stdin = ''): ManageIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), readStdin: async () => stdin };
}

describe('the management command', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    database = await freshDatabase();
    env = { NODE_ENV: 'test', ...database.env };
  });
  afterAll(() => database.drop());

  it('creates an organisation, a user (password from stdin), sets a password and creates an API key', async () => {
    let out = io();
    expect(await manage(['create-org', '--id', 'acme', '--name', 'Acme Ltd', '--mode', 'live'], env, out)).toBe(0);
    expect(out.lines).toEqual(["Created organisation 'acme' (Acme Ltd, live mode)."]);

    out = io('first-password\n');
    expect(await manage(['create-user', '--org', 'acme', '--username', 'Alice', '--password-stdin'], env, out)).toBe(0);
    expect(out.lines).toEqual(["Created user 'alice' in organisation 'acme' (role admin)."]);

    out = io();
    expect(await manage(['set-password', '--username', 'alice', '--password', 'second-password'], env, out)).toBe(0);

    out = io();
    expect(await manage(['create-api-key', '--org', 'acme', '--name', 'ci'], env, out)).toBe(0);
    const key = out.lines[1];
    expect(key).toMatch(/^eso_/);

    const ds = createDataSource(loadConfig(env));
    await ds.initialize();
    try {
      const [org] = await ds.query("SELECT mode FROM organisations WHERE id = 'acme'");
      expect(org.mode).toBe('live');
      const [user] = await ds.query("SELECT password_hash FROM users WHERE username = 'alice'");
      expect(user.password_hash).toMatch(/^\$argon2id\$/);
      const keys: unknown[] = await ds.query("SELECT * FROM api_keys WHERE kind = 'org'");
      expect(keys).toHaveLength(1);
      expect(JSON.stringify(keys)).not.toContain(key);
    } finally {
      await ds.destroy();
    }
  });

  it("gives a user an e-mail address at creation or later, and removes it (where a rejection's e-mail goes)", async () => {
    const emailOf = async (username: string) => {
      const ds = createDataSource(loadConfig(env));
      await ds.initialize();
      try {
        return (
          (await ds.query('SELECT email FROM users WHERE username = ?', [username])) as { email: string | null }[]
        )[0].email;
      } finally {
        await ds.destroy();
      }
    };
    let out = io();
    const create = ['create-user', '--org', 'acme', '--username', 'carol', '--password', 'long-enough'];
    expect(await manage([...create, '--email', ' Carol@Acme.example '], env, out)).toBe(0);
    expect(out.lines).toEqual([
      "Created user 'carol' in organisation 'acme' with e-mail Carol@Acme.example (role admin).",
    ]);
    expect(await emailOf('carol')).toBe('Carol@Acme.example');

    out = io();
    expect(await manage(['set-email', '--username', 'alice', '--email', 'alice@acme.example'], env, out)).toBe(0);
    expect(out.lines).toEqual(["E-mail of 'alice' set to alice@acme.example."]);
    expect(await emailOf('alice')).toBe('alice@acme.example');

    out = io();
    expect(await manage(['set-email', '--username', 'alice', '--clear'], env, out)).toBe(0);
    expect(out.lines).toEqual(["E-mail of 'alice' removed."]);
    expect(await emailOf('alice')).toBeNull();
  });

  it.each([
    [
      ['create-user', '--org', 'acme', '--username', 'dave', '--password', 'long-enough', '--email', 'not-an-email'],
      "'not-an-email' is not a valid e-mail address.",
    ],
    [['set-email', '--username', 'alice', '--email', 'a@b'], "'a@b' is not a valid e-mail address."],
    [['set-email', '--username', 'ghost', '--email', 'ghost@acme.example'], "No user 'ghost'."],
    [['set-email', '--username', 'alice'], 'Give --email <address> or --clear.'],
    [
      ['set-email', '--username', 'alice', '--email', 'a@acme.example', '--clear'],
      'Give --email <address> or --clear.',
    ],
    [['create-org', '--id', 'acme', '--name', 'Again'], "The organisation 'acme' exists already."],
    [['create-org', '--id', 'Bad Id!', '--name', 'x'], 'An organisation id is 2 to 64 characters'],
    [
      ['create-user', '--org', 'nowhere', '--username', 'bob', '--password', 'long-enough'],
      "No organisation 'nowhere'.",
    ],
    [
      ['create-user', '--org', 'acme', '--username', 'bob', '--password', 'short'],
      'A password is 8 to 256 characters.',
    ],
    [
      ['create-user', '--org', 'acme', '--username', 'alice', '--password', 'long-enough'],
      'That username is already taken.',
    ],
    [['set-password', '--username', 'ghost', '--password', 'long-enough'], "No user 'ghost'."],
    [['create-api-key', '--org', 'nowhere', '--name', 'x'], "No organisation 'nowhere'."],
  ])('refuses %j with a clear message and exit code 1', async (argv, message) => {
    const out = io();
    expect(await manage(argv, env, out)).toBe(1);
    expect(out.errors.join('\n')).toContain(message);
  });

  it('creates an administrator by default or a staff user with --role, and changes roles with set-role (issue 22)', async () => {
    const roleOf = async (username: string) => {
      const ds = createDataSource(loadConfig(env));
      await ds.initialize();
      try {
        return ((await ds.query('SELECT role FROM users WHERE username = ?', [username])) as { role: string }[])[0]
          .role;
      } finally {
        await ds.destroy();
      }
    };
    await manage(['create-org', '--id', 'solo', '--name', 'Solo Ltd'], env, io());
    let out = io();
    const create = ['create-user', '--org', 'solo', '--password', 'long-enough'];
    expect(await manage([...create, '--username', 'sole-admin'], env, out)).toBe(0);
    expect(out.lines).toEqual(["Created user 'sole-admin' in organisation 'solo' (role admin)."]);
    out = io();
    expect(await manage([...create, '--username', 'sole-staff', '--role', 'staff'], env, out)).toBe(0);
    expect(out.lines).toEqual(["Created user 'sole-staff' in organisation 'solo' (role staff)."]);
    expect([await roleOf('sole-admin'), await roleOf('sole-staff')]).toEqual(['admin', 'staff']);

    // The only administrator stays one; once another exists, the first may step down.
    out = io();
    expect(await manage(['set-role', '--username', 'sole-admin', '--role', 'staff'], env, out)).toBe(1);
    expect(out.errors).toEqual(['The organisation must keep at least one active administrator.']);
    out = io();
    expect(await manage(['set-role', '--username', 'sole-staff', '--role', 'admin'], env, out)).toBe(0);
    expect(out.lines).toEqual(["User 'sole-staff' of organisation 'solo' is now admin."]);
    expect(await manage(['set-role', '--username', 'sole-admin', '--role', 'staff'], env, io())).toBe(0);
    expect([await roleOf('sole-admin'), await roleOf('sole-staff')]).toEqual(['staff', 'admin']);
    expect(await manage(['set-role', '--username', 'sole-admin', '--role', 'boss'], env, io())).toBe(2);
    expect(await manage([...create, '--username', 'x-user', '--role', 'boss'], env, io())).toBe(2);
  });

  it('exits 2 on an unknown command or a missing option', async () => {
    expect(await manage(['launch-rockets'], env, io())).toBe(2);
    expect(await manage(['create-org', '--id', 'x1'], env, io())).toBe(2);
  });
});
