import { CompiledQuery } from 'kysely';
import type { Database } from '../db/database.js';
import { parseJson, toBool } from '../db/database.js';
import { hashesEqual, hashSecret } from '../lib/secrets.js';
import { EMPTY_GLOBAL_GRANTS, type GlobalGrants, type Principal } from './principal.js';
import { parseScopes } from './scopes.js';

function lookupQuery(db: Database, hash: string) {
  return db.db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .innerJoin('accounts', 'accounts.id', 'tokens.account_id')
    .select([
      'tokens.id as token_id',
      'tokens.kind',
      'tokens.scopes',
      'tokens.token_hash',
      'tokens.expiry',
      'users.id as user_id',
      'users.username',
      'users.restricted',
      'users.global_grants',
      'accounts.id as account_id',
      'accounts.euuid',
    ])
    .where('tokens.token_hash', '=', hash);
}
type TokenRow = Awaited<ReturnType<ReturnType<typeof lookupQuery>['executeTakeFirstOrThrow']>>;

/** The lookup runs on every request: its SQL is built once per dialect, not per request. */
const lookupSqlByDialect = new Map<string, string>();
function lookupSql(db: Database): string {
  let text = lookupSqlByDialect.get(db.dialect);
  if (text === undefined) {
    text = lookupQuery(db, '').compile().sql;
    lookupSqlByDialect.set(db.dialect, text);
  }
  return text;
}

/**
 * Resolves a bearer token to its principal in one indexed query. Tokens are stored only as
 * SHA-256 hashes; expired tokens and tokens of deleted users resolve to nothing.
 */
export async function principalFromToken(
  db: Database,
  token: string,
  nowIso: string,
): Promise<Principal | undefined> {
  if (token.length < 16 || token.length > 256) return undefined;
  const hash = hashSecret(token);
  const row = (await db.db.executeQuery<TokenRow>(CompiledQuery.raw(lookupSql(db), [hash]))).rows[0];
  if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
  if (row.expiry !== null && row.expiry <= nowIso) return undefined;
  const scopes = parseScopes(row.scopes);
  if (!scopes) return undefined;
  const restricted = toBool(row.restricted);
  return {
    tokenId: row.token_id,
    tokenKind: row.kind,
    scopes,
    scopesText: row.scopes,
    userId: row.user_id,
    username: row.username,
    accountId: row.account_id,
    accountEuuid: row.euuid,
    restricted,
    globalGrants: restricted
      ? { ...EMPTY_GLOBAL_GRANTS, ...parseJson<Partial<GlobalGrants>>(row.global_grants, {}) }
      : EMPTY_GLOBAL_GRANTS,
  };
}
