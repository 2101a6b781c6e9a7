import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { UsersTable } from '../identity/identity.table.js';
import type { User } from './users.schemas.js';

export type UserRow = Omit<UsersTable, 'id'> & { id: number };

/** Filterable fields of User (reference: x-compute-filterable). */
export const USER_FILTERS: FilterSpec = {
  username: { kind: 'string', column: 'users.username' },
};

export function toUser(u: UserRow, sshKeyLabels: string[]): User {
  return {
    username: u.username,
    email: u.email,
    restricted: toBool(u.restricted),
    ssh_keys: sshKeyLabels,
    tfa_enabled: toBool(u.two_factor_auth),
    verified_phone_number: u.verified_phone_number,
    password_created: u.password_created,
    // Parent, child and proxy users belong to parent/child accounts, which Stratus does not model.
    user_type: 'default' as const,
    last_login: null,
  };
}

/** A user of the account by username, or undefined (users of other accounts are not found). */
export function findUser(
  db: Database,
  accountId: number,
  username: string,
): Promise<UserRow | undefined> {
  return db.db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('username', '=', username)
    .executeTakeFirst();
}

/** The labels of each user's SSH keys, in the order they were added. */
export async function sshKeyLabels(
  db: Database,
  userIds: number[],
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await db.db
    .selectFrom('ssh_keys')
    .select(['user_id', 'label'])
    .where('user_id', 'in', userIds)
    .orderBy('id')
    .execute();
  for (const r of rows) out.get(r.user_id)?.push(r.label);
  return out;
}

/** Whether a username is in use anywhere in Stratus (case-insensitively), other than by `exceptId`. */
export async function usernameTaken(
  db: Database,
  username: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db.db
    .selectFrom('users')
    .select('id')
    .where(sql<string>`lower(username)`, '=', username.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Serialises user management within one account until the transaction ends (PostgreSQL row
 * lock; SQLite writers are already serialised), so "the last unrestricted user" holds.
 */
export async function lockAccount(db: Database, accountId: number): Promise<void> {
  await db
    .forUpdate(db.db.selectFrom('accounts').select('id').where('id', '=', accountId))
    .executeTakeFirst();
}

export async function unrestrictedCount(db: Database, accountId: number): Promise<number> {
  const row = await db.db
    .selectFrom('users')
    .select(sql<number | string>`count(*)`.as('n'))
    .where('account_id', '=', accountId)
    .where('restricted', '=', 0)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
