import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { insertAccount, insertToken, insertUser } from './identity.repository.js';

export interface BootstrapResult {
  euuid: string;
  accountId: number;
  userId: number;
  username: string;
  token: string;
}

/** Creates an account with an unrestricted user and a `*` personal access token. */
export async function bootstrapAccount(
  db: Database,
  clock: Clock,
  opts: { email: string; username: string; token?: string },
): Promise<BootstrapResult> {
  return db.transaction(async (tx) => {
    const now = isoSeconds(clock.nowMs());
    const account = await insertAccount(tx, opts.email, now);
    const userId = await insertUser(
      tx,
      { accountId: account.id, username: opts.username, email: opts.email, restricted: false },
      now,
    );
    const { token } = await insertToken(
      tx,
      {
        accountId: account.id,
        userId,
        kind: 'pat',
        label: 'bootstrap',
        scopes: '*',
        expiry: null,
        ...(opts.token ? { plaintext: opts.token } : {}),
      },
      now,
    );
    return { euuid: account.euuid, accountId: account.id, userId, username: opts.username, token };
  });
}

/**
 * On an empty database: the default account with the unrestricted user `admin` and its token.
 * Returns undefined when accounts already exist (later starts print no token).
 */
export async function ensureDefaultAccount(
  db: Database,
  clock: Clock,
  adminToken: string | undefined,
): Promise<BootstrapResult | undefined> {
  const existing = await db.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (existing) return undefined;
  try {
    return await bootstrapAccount(db, clock, {
      email: 'admin@stratus.local',
      username: 'admin',
      ...(adminToken ? { token: adminToken } : {}),
    });
  } catch (err) {
    // Another process started at the same moment and created it.
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

/** A `*` token made by a first start, as stored (its hash and the prefix tokens list shows). */
export interface StoredToken {
  hash: string;
  prefix: string;
}

/**
 * The first-start tokens (label `bootstrap`) of every user, by lower-case username: read before a
 * full reset, so the users the reset makes again get the same tokens back.
 */
export async function bootstrapTokens(db: Database): Promise<Map<string, StoredToken>> {
  const rows = await db.db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['users.username', 'tokens.token_hash', 'tokens.token_prefix'])
    .where('tokens.label', '=', 'bootstrap')
    .where('tokens.kind', '=', 'pat')
    .orderBy('tokens.id')
    .execute();
  const out = new Map<string, StoredToken>();
  for (const r of rows) {
    const key = r.username.toLowerCase();
    if (!out.has(key)) out.set(key, { hash: r.token_hash, prefix: r.token_prefix });
  }
  return out;
}

/**
 * Gives the first-start token of each of `usernames` its stored value from before a reset;
 * returns the usernames whose token was restored (their new random token was never shown).
 */
export async function restoreBootstrapTokens(
  db: Database,
  kept: ReadonlyMap<string, StoredToken>,
  usernames: readonly string[],
): Promise<Set<string>> {
  const restored = new Set<string>();
  for (const name of usernames) {
    const stored = kept.get(name.toLowerCase());
    if (!stored) continue;
    const user = await db.db
      .selectFrom('users')
      .select('id')
      .where(sql<boolean>`lower(username) = ${name.toLowerCase()}`)
      .executeTakeFirst();
    if (!user) continue;
    const res = await db.db
      .updateTable('tokens')
      .set({ token_hash: stored.hash, token_prefix: stored.prefix })
      .where('user_id', '=', user.id)
      .where('label', '=', 'bootstrap')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) restored.add(name.toLowerCase());
  }
  return restored;
}
