import { CompiledQuery } from 'kysely';
import type { Database } from '../db/database.js';
import { parseJson, toBool } from '../db/database.js';
import { hashesEqual, hashSecret } from '../lib/secrets.js';
import { isoSeconds } from '../lib/time.js';
import { principalCache } from './principal-cache.js';
import { EMPTY_GLOBAL_GRANTS, type GlobalGrants, type Principal } from './principal.js';
import { formatScopes, parseScopes } from './scopes.js';

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
      'users.account_id as user_account_id',
      'users.username',
      'users.email',
      'users.restricted',
      'users.global_grants',
      'users.timezone',
      'users.email_notifications',
      'users.lish_auth_method',
      'users.authorized_keys',
      'users.two_factor_auth',
      'users.verified_phone_number',
      'users.password_created',
      'users.created as user_created',
      'accounts.id as account_id',
      'accounts.euuid',
    ])
    .where('tokens.token_hash', '=', hash);
}
type TokenRow = Awaited<ReturnType<ReturnType<typeof lookupQuery>['executeTakeFirstOrThrow']>>;

/** The lookup runs on every cache miss: its SQL is built once per dialect, not per request. */
const lookupSqlByDialect = new Map<string, string>();
function lookupSql(db: Database): string {
  let text = lookupSqlByDialect.get(db.dialect);
  if (text === undefined) {
    text = lookupQuery(db, '').compile().sql;
    lookupSqlByDialect.set(db.dialect, text);
  }
  return text;
}

const isTokenLength = (token: string) => token.length >= 16 && token.length <= 256;

/** The token's row, joined with its user and account, when the hash matches and it is live. */
async function lookup(db: Database, hash: string, nowIso: string): Promise<TokenRow | undefined> {
  const row = (await db.db.executeQuery<TokenRow>(CompiledQuery.raw(lookupSql(db), [hash])))
    .rows[0];
  if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
  if (row.expiry !== null && row.expiry <= nowIso) return undefined;
  return row;
}

function toPrincipal(row: TokenRow): Principal | undefined {
  const scopes = parseScopes(row.scopes);
  if (!scopes) return undefined;
  const restricted = toBool(row.restricted);
  return {
    tokenId: row.token_id,
    tokenKind: row.kind,
    tokenExpiry: row.expiry,
    scopes,
    scopesText: row.scopes,
    scopesHeader: formatScopes(scopes),
    userId: row.user_id,
    username: row.username,
    accountId: row.account_id,
    accountEuuid: row.euuid,
    restricted,
    globalGrants: restricted
      ? { ...EMPTY_GLOBAL_GRANTS, ...parseJson<Partial<GlobalGrants>>(row.global_grants, {}) }
      : EMPTY_GLOBAL_GRANTS,
    user: Object.freeze({
      id: row.user_id,
      account_id: row.user_account_id,
      username: row.username,
      email: row.email,
      restricted: row.restricted,
      global_grants: row.global_grants,
      timezone: row.timezone,
      email_notifications: row.email_notifications,
      lish_auth_method: row.lish_auth_method,
      authorized_keys: row.authorized_keys,
      two_factor_auth: row.two_factor_auth,
      verified_phone_number: row.verified_phone_number,
      password_created: row.password_created,
      created: row.user_created,
    }),
  };
}

/**
 * Resolves a bearer token to its principal in one indexed query, without the cache. Tokens are
 * stored only as SHA-256 hashes; expired tokens and tokens of deleted users resolve to nothing.
 */
export async function principalFromToken(
  db: Database,
  token: string,
  nowIso: string,
): Promise<Principal | undefined> {
  if (!isTokenLength(token)) return undefined;
  const row = await lookup(db, hashSecret(token), nowIso);
  return row ? toPrincipal(row) : undefined;
}

/**
 * What the auth hook calls: the principal of a bearer token through the principal cache
 * (src/auth/principal-cache.ts), with the token's expiry checked against `nowMs` on every hit.
 * Unknown tokens are never cached. A hit (and a token of an impossible length) is answered
 * synchronously, without a promise: most authenticated requests then pay no asynchronous hop;
 * a miss answers a promise of the database's answer.
 */
export function authenticate(
  db: Database,
  token: string,
  nowMs: number,
): Principal | undefined | Promise<Principal | undefined> {
  if (!isTokenLength(token)) return undefined;
  const hash = hashSecret(token);
  const cache = principalCache(db);
  const hit = cache.get(hash, nowMs);
  if (hit) return 'principal' in hit ? hit.principal : undefined;
  return lookupAndCache(db, cache, hash, nowMs);
}

async function lookupAndCache(
  db: Database,
  cache: ReturnType<typeof principalCache>,
  hash: string,
  nowMs: number,
): Promise<Principal | undefined> {
  const generation = cache.generation;
  const row = await lookup(db, hash, isoSeconds(nowMs));
  const principal = row ? toPrincipal(row) : undefined;
  if (row && principal) cache.set(hash, principal, row.expiry, nowMs, generation);
  return principal;
}
