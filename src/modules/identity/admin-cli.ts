import { parseArgs } from 'node:util';
import { parseScopes, formatScopes } from '../../auth/scopes.js';
import type { Config } from '../../config/config.js';
import { Database, toBool } from '../../db/database.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { migrateToLatest } from '../../db/migrator.js';
import { systemClock } from '../../lib/clock.js';
import { isoSeconds, parseApiTime } from '../../lib/time.js';
import { bootstrapAccount } from './bootstrap.js';
import { insertToken } from './identity.repository.js';
import { emailProblem, usernameProblem } from './identity.rules.js';

class CliError extends Error {}

function need(v: string | undefined, flag: string): string {
  if (v === undefined || v === '') throw new CliError(`--${flag} is required`);
  return v;
}

/**
 * `stratus admin …`: the operator's commands. JSON on stdout; errors on stderr with a non-zero
 * exit. Works on the same DATABASE_URL as the server, also while it runs.
 */
export async function adminCommand(config: Config, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      username: { type: 'string' },
      token: { type: 'string' },
      scopes: { type: 'string' },
      expiry: { type: 'string' },
      label: { type: 'string' },
      euuid: { type: 'string' },
    },
    strict: true,
  });
  const db = Database.connect(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(db.db, db.dialect);
    switch (sub) {
      case 'bootstrap': {
        const email = need(values.email, 'email');
        const username = need(values.username, 'username');
        const problem = emailProblem(email) ?? usernameProblem(username);
        if (problem) throw new CliError(problem);
        if (values.token !== undefined && !/^[A-Za-z0-9_\-.]{16,128}$/.test(values.token)) {
          throw new CliError(
            '--token must be 16 to 128 characters of letters, digits, "_", "-" or "."',
          );
        }
        try {
          const r = await bootstrapAccount(db, systemClock, {
            email,
            username,
            ...(values.token ? { token: values.token } : {}),
          });
          console.log(JSON.stringify({ euuid: r.euuid, username: r.username, token: r.token }));
        } catch (err) {
          if (isUniqueViolation(err))
            throw new CliError('That username or token is already in use');
          throw err;
        }
        return 0;
      }
      case 'token': {
        const username = need(values.username, 'username');
        const scopes = parseScopes(values.scopes ?? '*');
        if (!scopes)
          throw new CliError(
            '--scopes must be * or a list such as "computes:read_write events:read_only"',
          );
        let expiry: string | null = null;
        if (values.expiry !== undefined) {
          const ms = parseApiTime(values.expiry);
          if (Number.isNaN(ms)) throw new CliError('--expiry must be an ISO 8601 date-time');
          if (ms <= systemClock.nowMs()) throw new CliError('--expiry must be in the future');
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
        const { token } = await insertToken(
          db,
          {
            accountId: user.account_id,
            userId: user.id,
            kind: 'pat',
            label,
            scopes: formatScopes(scopes),
            expiry,
          },
          isoSeconds(systemClock.nowMs()),
        );
        console.log(JSON.stringify({ token }));
        return 0;
      }
      case 'users': {
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
        if (values.euuid) q = q.where('accounts.euuid', '=', values.euuid);
        const rows = await q.execute();
        const accounts = new Map<string, { euuid: string; email: string; users: object[] }>();
        for (const r of rows) {
          let a = accounts.get(r.euuid);
          if (!a) {
            a = { euuid: r.euuid, email: r.account_email, users: [] };
            accounts.set(r.euuid, a);
          }
          if (r.username)
            a.users.push({
              username: r.username,
              email: r.email,
              restricted: toBool(r.restricted),
            });
        }
        if (values.euuid && accounts.size === 0)
          throw new CliError(`No account with euuid ${values.euuid}`);
        console.log(JSON.stringify({ accounts: [...accounts.values()] }));
        return 0;
      }
      default:
        throw new CliError('admin needs a command: bootstrap, token or users');
    }
  } catch (err) {
    if (err instanceof CliError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  } finally {
    await db.close();
  }
}
