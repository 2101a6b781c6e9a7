import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  inject,
  it,
  vi,
} from 'vitest';
import { principalFromToken } from '../../src/auth/tokens.js';
import { main } from '../../src/cli.js';
import { Database } from '../../src/db/database.js';
import { hashSecret } from '../../src/lib/secrets.js';
import { isoSeconds } from '../../src/lib/time.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/stratus.js');

/** A fresh, empty database: a SQLite file in a temporary dir or a new PostgreSQL database. */
async function freshDatabaseUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `cli_${randomBytes(6).toString('hex')}`;
    return { url: await createDatabase(admin, name), drop: () => dropDatabase(admin, name) };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'stratus-admin-'));
  return {
    url: `sqlite:${path.join(dir, 'stratus.db')}`,
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/stratus.js ...args` as a child process. */
function spawnCli(args: string[], env: Record<string, string>): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) {
    if (/^(HOST|PORT|DATABASE_URL|STRATUS_.*)$/.test(k)) delete base[k];
  }
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...base, LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Runs the CLI in this process (same code path as the binary, minus the process start). */
async function cli(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a) => void err.push(a.join(' ')));
  try {
    const code = await main(args);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('stratus migrate', () => {
  let store: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    store = await freshDatabaseUrl();
  });
  afterAll(async () => {
    await store.drop();
  });

  it('migrate: prints the applied migrations as JSON, then none on a second run', async () => {
    const first = await spawnCli(['migrate'], { DATABASE_URL: store.url });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const applied = JSON.parse(first.stdout);
    expect(Object.keys(applied)).toEqual(['applied']);
    expect(applied.applied[0]).toBe('0001-platform');

    process.env.DATABASE_URL = store.url;
    try {
      const second = await cli('migrate');
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
    } finally {
      delete process.env.DATABASE_URL;
    }
  });
});

describe('stratus admin', () => {
  let store: { url: string; drop: () => Promise<void> };
  let db: Database;
  beforeAll(async () => {
    store = await freshDatabaseUrl();
    // Creates the schema, as the commands do on their own.
    process.env.DATABASE_URL = store.url;
    expect((await cli('migrate')).code).toBe(0);
    db = Database.connect(store.url, { poolSize: 1 });
  });
  beforeEach(() => {
    process.env.DATABASE_URL = store.url;
  });
  afterEach(() => {
    delete process.env.DATABASE_URL;
  });
  afterAll(async () => {
    await db.close();
    await store.drop();
  });

  const resolve = (token: string) => principalFromToken(db, token, isoSeconds(Date.now()));

  it('admin bootstrap: prints {euuid, username, token}; the token is an unrestricted * token', async () => {
    const r = await cli('admin', 'bootstrap', '--email', 'ops@example.com', '--username', 'ops1');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['euuid', 'username', 'token']);
    expect(out.username).toBe('ops1');
    expect(out.token).toMatch(/^[0-9a-f]{64}$/);
    const p = await resolve(out.token);
    expect(p).toMatchObject({
      username: 'ops1',
      accountEuuid: out.euuid,
      restricted: false,
      scopesText: '*',
    });
  });

  it('admin bootstrap: --token sets the token', async () => {
    const chosen = `boot-${randomBytes(10).toString('hex')}`;
    const r = await cli(
      'admin',
      'bootstrap',
      '--email',
      'ops2@example.com',
      '--username',
      'ops2',
      '--token',
      chosen,
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).token).toBe(chosen);
    expect((await resolve(chosen))?.username).toBe('ops2');
  });

  it('admin bootstrap: a username in use is an error on stderr with a non-zero exit', async () => {
    await cli('admin', 'bootstrap', '--email', 'a@example.com', '--username', 'taken1');
    const r = await cli('admin', 'bootstrap', '--email', 'b@example.com', '--username', 'taken1');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/taken1.*already taken|already in use/);
  });

  it('admin bootstrap: missing or invalid arguments are errors on stderr', async () => {
    const cases: [string[], string][] = [
      [['--username', 'nomail'], '--email is required'],
      [['--email', 'x@example.com'], '--username is required'],
      [['--email', 'not-an-email', '--username', 'okname'], 'Must be a valid email address'],
      [
        ['--email', 'x@example.com', '--username', 'a'],
        'Username must be between 3 and 32 characters',
      ],
      [
        ['--email', 'x@example.com', '--username', 'okname', '--token', 'short'],
        '--token must be 16 to 128 characters of letters, digits, "_", "-" or "."',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli('admin', 'bootstrap', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(message);
    }
  });

  it('admin token: prints {token} for an existing user with the scopes given', async () => {
    await cli('admin', 'bootstrap', '--email', 't@example.com', '--username', 'tokuser');
    const r = await cli(
      'admin',
      'token',
      '--username',
      'tokuser',
      '--scopes',
      'events:read_only,account:read_write',
      '--label',
      'ci',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['token']);
    const p = await resolve(out.token);
    expect(p?.username).toBe('tokuser');
    expect(p?.scopesText).toBe('account:read_write events:read_only');
    const row = await db.db
      .selectFrom('tokens')
      .select(['label', 'expiry'])
      .where('token_hash', '=', hashSecret(out.token))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ label: 'ci', expiry: null });
  });

  it('admin token: --expiry sets the expiry; a past or malformed one is an error', async () => {
    await cli('admin', 'bootstrap', '--email', 'e@example.com', '--username', 'expuser');
    const ok = await cli(
      'admin',
      'token',
      '--username',
      'expuser',
      '--expiry',
      '2099-01-02T03:04:05',
    );
    expect(ok.code).toBe(0);
    const row = await db.db
      .selectFrom('tokens')
      .select(['expiry', 'scopes'])
      .where('token_hash', '=', hashSecret(JSON.parse(ok.stdout).token))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ expiry: '2099-01-02T03:04:05', scopes: '*' });

    const past = await cli('admin', 'token', '--username', 'expuser', '--expiry', '2001-01-01');
    expect(past.code).toBe(2);
    expect(past.stderr).toBe('--expiry must be in the future');
    const bad = await cli('admin', 'token', '--username', 'expuser', '--expiry', 'tomorrow');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('--expiry must be an ISO 8601 date-time');
  });

  it('admin token: an unknown username is an error on stderr with a non-zero exit', async () => {
    const r = await cli('admin', 'token', '--username', 'nobody-here');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('No user named "nobody-here"');
  });

  it('admin token: bad scopes are an error on stderr with a non-zero exit', async () => {
    await cli('admin', 'bootstrap', '--email', 's@example.com', '--username', 'scopeuser');
    for (const [scopes, named] of [
      ['everything', '"everything": unknown area "everything"'],
      ['events:read_only computes:write', '"computes:write": unknown level "write"'],
      ['* events:read_only', '"*" is every scope and cannot be listed with others'],
    ] as const) {
      const r = await cli('admin', 'token', '--username', 'scopeuser', '--scopes', scopes);
      expect(r.code, scopes).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        '--scopes must be * or a list such as "computes:read_write events:read_only": ',
      );
      expect(r.stderr).toContain(named);
    }
  });

  it('admin users: lists accounts with their users; --euuid selects one account', async () => {
    const boot = JSON.parse(
      (await cli('admin', 'bootstrap', '--email', 'u@example.com', '--username', 'listuser'))
        .stdout,
    );
    const all = await cli('admin', 'users');
    expect(all.code).toBe(0);
    const { accounts } = JSON.parse(all.stdout);
    const mine = accounts.find((a: { euuid: string }) => a.euuid === boot.euuid);
    expect(mine).toEqual({
      euuid: boot.euuid,
      email: 'u@example.com',
      users: [{ username: 'listuser', email: 'u@example.com', restricted: false }],
    });

    const one = await cli('admin', 'users', '--euuid', boot.euuid);
    expect(JSON.parse(one.stdout)).toEqual({ accounts: [mine] });

    const none = await cli('admin', 'users', '--euuid', 'NOPE');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('No account with euuid NOPE');
  });

  it('admin: an unknown subcommand or flag is an error on stderr', async () => {
    const sub = await cli('admin', 'frobnicate');
    expect(sub.code).toBe(2);
    expect(sub.stderr).toBe('admin needs a command: bootstrap, token, users, password or sms');
    const flag = await cli('admin', 'users', '--bogus');
    expect(flag.code).not.toBe(0);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toMatch(/--bogus/);
  });

  it('stratus: an unknown command exits 2 with the usage on stderr; help exits 0', async () => {
    const r = await cli('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Unknown command "frobnicate"\.\n\nUsage: stratus <command>/);
    const help = await cli('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: stratus <command>/);
  });

  it('stratus: a bad environment value exits 78 naming the variable', async () => {
    process.env.DATABASE_URL = 'mysql://x';
    const r = await cli('admin', 'users');
    expect(r.code).toBe(78);
    expect(r.stderr).toBe(
      'Configuration error: DATABASE_URL: must start with postgres://, postgresql:// or sqlite:',
    );
  });

  it('admin token: through the binary, errors go to stderr with a non-zero exit code', async () => {
    const r = await spawnCli(['admin', 'token', '--username', 'ghost-user'], {
      DATABASE_URL: store.url,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('No user named "ghost-user"');
  });
});
