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
