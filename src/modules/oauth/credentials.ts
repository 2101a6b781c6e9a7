import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import type { UserCredentialsTable } from './oauth.table.js';
import { hashPassword } from './passwords.js';

export type Credentials = UserCredentialsTable;

export async function credentialsOf(
  db: Database,
  userId: number,
): Promise<Credentials | undefined> {
  return db.db
    .selectFrom('user_credentials')
    .selectAll()
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Writes some credential columns of a user, creating the row when it does not exist. */
export async function saveCredentials(
  db: Database,
  userId: number,
  values: Partial<Omit<Credentials, 'user_id'>>,
): Promise<void> {
  const updated = await db.db
    .updateTable('user_credentials')
    .set(values)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return;
  await db.db
    .insertInto('user_credentials')
    .values({
      user_id: userId,
      password_hash: null,
      tfa_secret: null,
      tfa_pending_secret: null,
      tfa_pending_expiry: null,
      tfa_scratch_hash: null,
      tfa_last_step: null,
      ...values,
    })
    .execute();
}

/**
 * Sets a user's password (stored as a memory-hard hash) and `password_created`, inside the
 * caller's transaction. The user's row changes: the principal cache is told.
 */
export async function setPassword(
  db: Database,
  userId: number,
  password: string,
  nowIso: string,
): Promise<void> {
  const hash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await saveCredentials(tx, userId, { password_hash: hash });
    await tx.db
      .updateTable('users')
      .set({ password_created: nowIso })
      .where('id', '=', userId)
      .execute();
    await principalChanged(tx, { kind: 'user', id: userId });
  });
}
