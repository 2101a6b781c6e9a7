import type { Database } from '../../db/database.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';
import { type AuthRequest, redirectWith } from './oauth.request.js';

/** Authorization codes live 5 minutes. */
export const CODE_TTL_MS = 5 * 60 * 1000;

/**
 * The consent form's answer, in one transaction: the ticket is consumed; on approval the grant
 * (authorized app) is recorded and a one-time code goes back to the redirect URI; on refusal,
 * `access_denied`. Undefined when the ticket is unknown, old, or its client is gone.
 */
export function grantConsent(
  db: Database,
  nowMs: number,
  ticket: string,
  approve: boolean,
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const s = await tx.db
      .deleteFrom('oauth_sessions')
      .where('ticket_hash', '=', hashSecret(ticket))
      .returningAll()
      .executeTakeFirst();
    if (!s || s.expires_ms <= nowMs) return undefined;
    const req = JSON.parse(s.request) as AuthRequest;
    const client = await tx.db
      .selectFrom('oauth_clients')
      .select(['id', 'status'])
      .where('id', '=', s.client_pk)
      .executeTakeFirst();
    if (client?.status !== 'active') return undefined;
    if (!approve)
      return redirectWith(req.redirectUri, {
        error: 'access_denied',
        error_description: 'The user refused access',
        state: req.state,
      });
    const user = await tx.db
      .selectFrom('users')
      .select(['id', 'account_id'])
      .where('id', '=', s.user_id)
      .executeTakeFirstOrThrow();
    const appId = await upsertApp(tx, user, client.id, req.scopes, nowMs);
    const code = newSecret();
    // Codes past their lifetime are of no use, not even to recognise a reuse.
    await tx.db.deleteFrom('oauth_codes').where('expires_ms', '<=', nowMs).execute();
    await tx.db
      .insertInto('oauth_codes')
      .values({
        code_hash: hashSecret(code),
        app_id: appId,
        scopes: req.scopes,
        redirect_uri: req.explicitRedirect ? req.redirectUri : '',
        code_challenge: req.codeChallenge,
        expires_ms: nowMs + CODE_TTL_MS,
        used: 0,
      })
      .execute();
    return redirectWith(req.redirectUri, { code, state: req.state });
  });
}

/** The user's authorized app for the client (one per user and client), with the new scopes. */
async function upsertApp(
  tx: Database,
  user: { id: number; account_id: number },
  clientPk: number,
  scopes: string,
  nowMs: number,
): Promise<number> {
  // One app per user and client (a unique constraint): consents approved at once meet here
  // instead of failing on it.
  const row = await tx.db
    .insertInto('oauth_apps')
    .values({
      account_id: user.account_id,
      user_id: user.id,
      client_pk: clientPk,
      scopes,
      created: isoSeconds(nowMs),
      expiry: null,
    })
    .onConflict((oc) => oc.columns(['user_id', 'client_pk']).doUpdateSet({ scopes }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
