import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';

/**
 * Deletes every access token issued through the given authorized apps (and their refresh
 * tokens and pending codes), invalidating the principal cache for each at commit. Runs inside
 * the caller's transaction.
 */
export async function revokeAppTokens(db: Database, appIds: number[]): Promise<void> {
  if (appIds.length === 0) return;
  const rows = await db.db
    .selectFrom('oauth_refresh_tokens')
    .select('access_token_id')
    .where('app_id', 'in', appIds)
    .where('access_token_id', 'is not', null)
    .execute();
  await revokeAccessTokens(
    db,
    rows.map((r) => r.access_token_id as number),
  );
  await db.db.deleteFrom('oauth_refresh_tokens').where('app_id', 'in', appIds).execute();
  await db.db.deleteFrom('oauth_codes').where('app_id', 'in', appIds).execute();
}

/** Deletes access tokens (kind `oauth`) and tells the principal cache. */
export async function revokeAccessTokens(db: Database, tokenIds: number[]): Promise<void> {
  if (tokenIds.length === 0) return;
  await db.db
    .deleteFrom('tokens')
    .where('id', 'in', tokenIds)
    .where('kind', '=', 'oauth')
    .execute();
  for (const id of tokenIds) await principalChanged(db, { kind: 'token', id });
}

/** The authorized apps of a client. */
export async function appIdsOfClient(db: Database, clientPk: number): Promise<number[]> {
  const rows = await db.db
    .selectFrom('oauth_apps')
    .select('id')
    .where('client_pk', '=', clientPk)
    .execute();
  return rows.map((r) => r.id);
}
