import type { CliIo } from '../../lib/cli-io.js';
import { parseArgs } from 'node:util';
import { formatScopes, parseScopes, scopeProblem } from '../../auth/scopes.js';
import type { Config } from '../../config/config.js';
import { Database, toBool } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrator.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { isoSeconds, parseApiTime } from '../../lib/time.js';
import { usernameTaken } from '../account/users.repository.js';
import { setPassword } from '../oauth/credentials.js';
import { passwordProblem } from '../oauth/passwords.js';
import { smsOf } from '../oauth/phone.service.js';
import { entityRefs } from '../events/events.types.js';
import { EventWriter } from '../events/events.writer.js';
import { bootstrapAccount } from './bootstrap.js';
import { insertToken } from './identity.repository.js';
import { emailProblem, usernameProblem } from './identity.rules.js';

class CliError extends Error {}

/** Where the admin commands write, and their clock (tests pass their own). */
export interface AdminIo extends CliIo {
  clock: Clock;
  /** The whole of standard input (`admin password` reads the password from it). */
  stdin?: () => Promise<string>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const defaultIo: AdminIo = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  clock: systemClock,
  stdin: readStdin,
};

const TOKEN_RE = /^[A-Za-z0-9_\-.]{16,128}$/;
const OPTIONS = {
  email: { type: 'string' },
  username: { type: 'string' },
  token: { type: 'string' },
  scopes: { type: 'string' },
  expiry: { type: 'string' },
  label: { type: 'string' },
  euuid: { type: 'string' },
  password: { type: 'string' },
} as const;
type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

function need(v: string | undefined, flag: string): string {
  if (v === undefined || v === '') throw new CliError(`--${flag} is required`);
  return v;
}

function parse(args: string[]): Values {
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

async function bootstrap(db: Database, io: AdminIo, values: Values): Promise<void> {
  const email = need(values.email, 'email');
  const username = need(values.username, 'username');
  const problem = emailProblem(email) ?? usernameProblem(username);
  if (problem) throw new CliError(problem);
  if (values.token !== undefined && !TOKEN_RE.test(values.token)) {
    throw new CliError('--token must be 16 to 128 characters of letters, digits, "_", "-" or "."');
  }
  if (await usernameTaken(db, username))
    throw new CliError(`The username "${username}" is already taken`);
  try {
    const r = await bootstrapAccount(db, io.clock, {
      email,
      username,
      ...(values.token !== undefined ? { token: values.token } : {}),
    });
    io.out(JSON.stringify({ euuid: r.euuid, username: r.username, token: r.token }));
  } catch (err) {
    if (isUniqueViolation(err)) throw new CliError('That username or token is already in use');
    throw err;
  }
}

async function token(db: Database, io: AdminIo, values: Values): Promise<void> {
  const username = need(values.username, 'username');
  const scopes = parseScopes(values.scopes ?? '*');
  if (!scopes)
    throw new CliError(
      `--scopes must be * or a list such as "computes:read_write events:read_only": ${
        scopeProblem(values.scopes ?? '*') ?? 'invalid'
      }`,
    );
  const nowMs = io.clock.nowMs();
  let expiry: string | null = null;
  if (values.expiry !== undefined) {
    const ms = parseApiTime(values.expiry);
    if (Number.isNaN(ms)) throw new CliError('--expiry must be an ISO 8601 date-time');
    if (ms <= nowMs) throw new CliError('--expiry must be in the future');
    expiry = isoSeconds(ms);
  }
  const label = values.label ?? 'admin-issued';
  if (label.length < 1 || label.length > 100)
    throw new CliError('--label must be 1 to 100 characters');
  const user = await db.db
    .selectFrom('users')
    .select(['id', 'account_id'])
    .where('username', '=', username)
    .executeTakeFirst();
  if (!user) throw new CliError(`No user named "${username}"`);
  const events = new EventWriter(io.clock);
  const issued = await db.transaction(async (tx) => {
    const t = await insertToken(
      tx,
      {
        accountId: user.account_id,
        userId: user.id,
        kind: 'pat',
        label,
        scopes: formatScopes(scopes),
        expiry,
      },
      isoSeconds(nowMs),
    );
    // The operator acts outside the API: the event names no user.
    await events.record(tx, {
      accountId: user.account_id,
      action: 'token_create',
      entity: entityRefs.token(t.id, label),
      status: 'notification',
      username: null,
    });
    return t;
  });
  io.out(JSON.stringify({ token: issued.token }));
}

async function users(db: Database, io: AdminIo, values: Values): Promise<void> {
  let q = db.db
    .selectFrom('accounts')
    .leftJoin('users', 'users.account_id', 'accounts.id')
    .select([
      'accounts.euuid',
      'accounts.email as account_email',
      'users.username',
      'users.email',
      'users.restricted',
    ])
    .orderBy('accounts.id')
    .orderBy('users.id');
  if (values.euuid !== undefined) q = q.where('accounts.euuid', '=', values.euuid.toUpperCase());
  const rows = await q.execute();
  const accounts = new Map<string, { euuid: string; email: string; users: object[] }>();
  for (const r of rows) {
    let a = accounts.get(r.euuid);
    if (!a) {
      a = { euuid: r.euuid, email: r.account_email, users: [] };
      accounts.set(r.euuid, a);
    }
    if (r.username !== null)
      a.users.push({ username: r.username, email: r.email, restricted: toBool(r.restricted) });
  }
  if (values.euuid !== undefined && accounts.size === 0)
    throw new CliError(`No account with euuid ${values.euuid}`);
  io.out(JSON.stringify({ accounts: [...accounts.values()] }));
}

/**
 * `admin password --username U [--password P]`: sets the password the login service's sign-in
 * page checks (stored as a scrypt hash). Without --password it is read from standard input
 * (one line; the trailing newline is dropped), which keeps it out of the process list.
 */
async function password(db: Database, io: AdminIo, values: Values): Promise<void> {
  const username = need(values.username, 'username');
  const pw = values.password ?? (await (io.stdin ?? readStdin)()).replace(/\r?\n$/, '');
  const problem = passwordProblem(pw);
  if (problem) throw new CliError(problem);
  const user = await db.db
    .selectFrom('users')
    .select(['id'])
    .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
    .executeTakeFirst();
  if (!user) throw new CliError(`No user named "${username}"`);
  await setPassword(db, user.id, pw, isoSeconds(io.clock.nowMs()));
  io.out(JSON.stringify({ username, password_set: true }));
}

/** `admin sms --username U`: the simulated SMS sent to a user (phone verification codes). */
async function sms(db: Database, io: AdminIo, values: Values): Promise<void> {
  const username = need(values.username, 'username');
  io.out(JSON.stringify({ messages: await smsOf(db, username) }));
}

const COMMANDS = { bootstrap, token, users, password, sms } as const;

/**
 * `stratus admin …`: the operator's commands. JSON on stdout; errors on stderr with exit code 2.
 * Works on the same DATABASE_URL as the server, also while it runs.
 */
export async function adminCommand(
  config: Config,
  argv: string[],
  io: Partial<AdminIo> = {},
): Promise<number> {
  const out: AdminIo = { ...defaultIo, ...io };
  const [sub, ...rest] = argv;
  const run =
    sub !== undefined && Object.hasOwn(COMMANDS, sub)
      ? COMMANDS[sub as keyof typeof COMMANDS]
      : undefined;
  let values: Values;
  try {
    if (!run) throw new CliError('admin needs a command: bootstrap, token, users, password or sms');
    values = parse(rest);
  } catch (err) {
    out.err((err as Error).message);
    return 2;
  }
  const db = Database.connect(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(db.db, db.dialect);
    await run(db, out, values);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      out.err(err.message);
      return 2;
    }
    throw err;
  } finally {
    await db.close();
  }
}
