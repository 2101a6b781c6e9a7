import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { hashesEqual, hashSecret, newSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';
import { insertToken } from '../identity/identity.repository.js';
import type { Params } from './authorize.service.js';
import { revokeAccessTokens } from './oauth.repository.js';
import { resolveRedirectUri } from './console-client.js';

/** Access tokens of the login service live 2 hours (reference: `expires_in` 7200). */
export const ACCESS_TOKEN_TTL_S = 7200;

/** An answer of the token or revocation endpoint: RFC 6749 §5 bodies. */
export interface OAuthReply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const oauthError = (status: number, error: string, description: string): OAuthReply => ({
  status,
  body: { error, error_description: description },
  ...(status === 401 ? { headers: { 'WWW-Authenticate': 'Basic realm="oauth"' } } : {}),
});

interface Client {
  id: number;
  client_id: string;
  label: string;
  public: number;
  status: string;
  secret_hash: string;
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)). */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** `POST /oauth/token` and `/oauth/revoke`. */
export class TokenService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Client authentication (RFC 6749 §2.3): HTTP Basic or `client_id`/`client_secret` in the
   * body. Confidential clients need their current secret; public clients only their id.
   */
  private async authenticate(
    params: Params,
    basic: string | undefined,
  ): Promise<Client | OAuthReply> {
    let id = params.client_id;
    let secret = params.client_secret;
    if (basic) {
      const raw = Buffer.from(basic, 'base64').toString('utf8');
      const i = raw.indexOf(':');
      if (i < 0) return oauthError(401, 'invalid_client', 'Malformed Basic credentials');
      try {
        // RFC 6749 §2.3.1: both parts are form-urlencoded before encoding.
        id = decodeURIComponent(raw.slice(0, i).replace(/\+/g, ' '));
        secret = decodeURIComponent(raw.slice(i + 1).replace(/\+/g, ' '));
      } catch {
        return oauthError(401, 'invalid_client', 'Malformed Basic credentials');
      }
    }
    if (!id) return oauthError(401, 'invalid_client', 'client_id is required');
    const client = await this.db.db
      .selectFrom('oauth_clients')
      .select(['id', 'client_id', 'label', 'public', 'status', 'secret_hash'])
      .where('client_id', '=', id)
      .executeTakeFirst();
    if (client?.status !== 'active')
      return oauthError(401, 'invalid_client', 'Unknown or inactive client');
    if (!client.public || secret !== undefined) {
      if (!secret || !hashesEqual(hashSecret(secret), client.secret_hash))
        return oauthError(401, 'invalid_client', 'Client authentication failed');
    }
    return client;
  }

  /** `origin`: the address the request reached the server at (a system client's URI follows it). */
  async token(params: Params, basic: string | undefined, origin: string): Promise<OAuthReply> {
    const client = await this.authenticate(params, basic);
    if ('status' in client && 'body' in client) return client;
    const c = client as Client;
    if (params.grant_type === 'authorization_code') return this.exchangeCode(c, params, origin);
    if (params.grant_type === 'refresh_token') return this.refresh(c, params);
    return oauthError(
      400,
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    );
  }

  private async exchangeCode(c: Client, params: Params, origin: string): Promise<OAuthReply> {
    if (!params.code) return oauthError(400, 'invalid_request', 'code is required');
    const nowMs = this.clock.nowMs();
    const codeHash = hashSecret(params.code);
    const result = await this.db.transaction(async (tx): Promise<OAuthReply | 'reused'> => {
      const code = await tx.db
        .selectFrom('oauth_codes')
        .innerJoin('oauth_apps', 'oauth_apps.id', 'oauth_codes.app_id')
        .select([
          'oauth_codes.app_id',
          'oauth_codes.scopes',
          'oauth_codes.redirect_uri',
          'oauth_codes.code_challenge',
          'oauth_codes.expires_ms',
          'oauth_codes.used',
          'oauth_apps.client_pk',
          'oauth_apps.user_id',
          'oauth_apps.account_id',
        ])
        .where('oauth_codes.code_hash', '=', codeHash)
        .executeTakeFirst();
      const invalid = (why: string) => oauthError(400, 'invalid_grant', why);
      if (!code || code.client_pk !== c.id) return invalid('Unknown authorization code');
      if (code.used) return 'reused';
      if (code.expires_ms <= nowMs) return invalid('The authorization code has expired');
      if (code.redirect_uri !== '' && params.redirect_uri !== code.redirect_uri)
        return invalid('redirect_uri does not match the authorization request');
      if (code.redirect_uri === '' && params.redirect_uri !== undefined) {
        const reg = await tx.db
          .selectFrom('oauth_clients')
          .select('redirect_uri')
          .where('id', '=', c.id)
          .executeTakeFirst();
        if (!reg || params.redirect_uri !== resolveRedirectUri(reg.redirect_uri, origin))
          return invalid('redirect_uri does not match the registered redirect URI');
      }
      if (code.code_challenge !== null) {
        if (!params.code_verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(params.code_verifier))
          return invalid('code_verifier is required (43 to 128 characters)');
        if (s256(params.code_verifier) !== code.code_challenge)
          return invalid('code_verifier does not match the code_challenge');
      }
      // Two exchanges of one code at once (several processes): one marks it, the other is a reuse.
      const marked = await tx.db
        .updateTable('oauth_codes')
        .set({ used: 1 })
        .where('code_hash', '=', codeHash)
        .where('used', '=', 0)
        .executeTakeFirst();
      if (Number(marked.numUpdatedRows) !== 1) return 'reused';
      return this.issue(tx, c, code, codeHash, nowMs);
    });
    if (result !== 'reused') return result;
    // RFC 6749 §4.1.2: a code used twice revokes every token issued from it.
    await this.db.transaction((tx) => this.revokeFamily(tx, codeHash));
    return oauthError(400, 'invalid_grant', 'The authorization code was already used');
  }

  private async refresh(c: Client, params: Params): Promise<OAuthReply> {
    if (!params.refresh_token)
      return oauthError(400, 'invalid_request', 'refresh_token is required');
    const nowMs = this.clock.nowMs();
    const hash = hashSecret(params.refresh_token);
    const result = await this.db.transaction(
      async (tx): Promise<OAuthReply | { reused: string }> => {
        const row = await tx.db
          .selectFrom('oauth_refresh_tokens')
          .innerJoin('oauth_apps', 'oauth_apps.id', 'oauth_refresh_tokens.app_id')
          .select([
            'oauth_refresh_tokens.id',
            'oauth_refresh_tokens.family',
            'oauth_refresh_tokens.scopes',
            'oauth_refresh_tokens.used',
            'oauth_refresh_tokens.app_id',
            'oauth_apps.client_pk',
            'oauth_apps.user_id',
            'oauth_apps.account_id',
          ])
          .where('oauth_refresh_tokens.token_hash', '=', hash)
          .executeTakeFirst();
        if (!row || row.client_pk !== c.id)
          return oauthError(400, 'invalid_grant', 'Unknown refresh token');
        if (row.used) return { reused: row.family };
        const marked = await tx.db
          .updateTable('oauth_refresh_tokens')
          .set({ used: 1 })
          .where('id', '=', row.id)
          .where('used', '=', 0)
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) return { reused: row.family };
        return this.issue(tx, c, row, row.family, nowMs);
      },
    );
    if (!('reused' in result)) return result;
    // A rotated refresh token presented again: the family may be stolen; revoke all of it.
    await this.db.transaction((tx) => this.revokeFamily(tx, result.reused));
    return oauthError(400, 'invalid_grant', 'The refresh token was already used');
  }

  /** A new access token (2 hours) and a new refresh token of the same family. */
  private async issue(
    tx: Database,
    c: Client,
    grant: { app_id: number; user_id: number; account_id: number; scopes: string },
    family: string,
    nowMs: number,
  ): Promise<OAuthReply> {
    const access = await insertToken(
      tx,
      {
        accountId: grant.account_id,
        userId: grant.user_id,
        kind: 'oauth',
        label: c.label.slice(0, 100),
        scopes: grant.scopes,
        expiry: isoSeconds(nowMs + ACCESS_TOKEN_TTL_S * 1000),
      },
      isoSeconds(nowMs),
    );
    const refresh = newSecret();
    await tx.db
      .insertInto('oauth_refresh_tokens')
      .values({
        token_hash: hashSecret(refresh),
        app_id: grant.app_id,
        family,
        access_token_id: access.id,
        scopes: grant.scopes,
        used: 0,
        created: isoSeconds(nowMs),
      })
      .execute();
    return {
      status: 200,
      body: {
        access_token: access.token,
        token_type: 'bearer',
        expires_in: ACCESS_TOKEN_TTL_S,
        refresh_token: refresh,
        scopes: grant.scopes,
        scope: grant.scopes,
      },
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    };
  }

  /** Every access and refresh token descended from one authorization code. */
  private async revokeFamily(tx: Database, family: string): Promise<void> {
    const rows = await tx.db
      .selectFrom('oauth_refresh_tokens')
      .select('access_token_id')
      .where('family', '=', family)
      .execute();
    await revokeAccessTokens(
      tx,
      rows.flatMap((r) => (r.access_token_id === null ? [] : [r.access_token_id])),
    );
    await tx.db.deleteFrom('oauth_refresh_tokens').where('family', '=', family).execute();
  }

  /**
   * RFC 7009: revokes an access token (that one) or a refresh token (its whole family) of the
   * authenticated client. Unknown tokens are answered 200 too.
   */
  async revoke(params: Params, basic: string | undefined): Promise<OAuthReply> {
    const client = await this.authenticate(params, basic);
    if ('status' in client && 'body' in client) return client;
    const c = client as Client;
    if (!params.token) return oauthError(400, 'invalid_request', 'token is required');
    const hash = hashSecret(params.token);
    await this.db.transaction(async (tx) => {
      const refresh = await tx.db
        .selectFrom('oauth_refresh_tokens')
        .innerJoin('oauth_apps', 'oauth_apps.id', 'oauth_refresh_tokens.app_id')
        .select(['oauth_refresh_tokens.family', 'oauth_apps.client_pk'])
        .where('oauth_refresh_tokens.token_hash', '=', hash)
        .executeTakeFirst();
      if (refresh) {
        if (refresh.client_pk === c.id) await this.revokeFamily(tx, refresh.family);
        return;
      }
      const access = await tx.db
        .selectFrom('tokens')
        .innerJoin('oauth_refresh_tokens', 'oauth_refresh_tokens.access_token_id', 'tokens.id')
        .innerJoin('oauth_apps', 'oauth_apps.id', 'oauth_refresh_tokens.app_id')
        .select(['tokens.id', 'oauth_apps.client_pk'])
        .where('tokens.token_hash', '=', hash)
        .where('tokens.kind', '=', 'oauth')
        .executeTakeFirst();
      if (access && access.client_pk === c.id) await revokeAccessTokens(tx, [access.id]);
    });
    return { status: 200, body: {} };
  }
}
