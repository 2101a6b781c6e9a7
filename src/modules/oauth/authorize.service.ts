import type { Sealer } from '../../platform/sealer.js';
import { formatScopes, parseScopes } from '../../auth/scopes.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import { grantConsent } from './consent.js';
import { type AuthRequest, redirectWith } from './oauth.request.js';
import { credentialsOf } from './credentials.js';
import { deviceTrusted, trustDevice } from './devices.js';
import { markLoginSuccessful, recordLogin, signInWait } from './logins.js';
import type { OAuthClientsTable } from './oauth.table.js';
import { dummyHash, verifyPassword } from './passwords.js';
import { checkSecondFactor } from './second-factor.js';
import { resolveRedirectUri } from './console-client.js';

type ClientRow = Omit<OAuthClientsTable, 'id' | 'thumbnail'> & { id: number };

export type { AuthRequest };
export type Params = Record<string, string | undefined>;

/** The request cannot be sent back to the client: an error page, no redirect (§4.1.2.1). */
export type AuthorizeResult =
  | { ok: true; req: AuthRequest; client: ClientRow }
  | { ok: false; page: string }
  | { ok: false; redirect: string };

export type SignInResult =
  | {
      ok: true;
      ticket: string;
      username: string;
      req: AuthRequest;
      client: ClientRow;
      /** A new trusted device's cookie value, when the user asked to trust this browser. */
      deviceToken?: string;
    }
  | { ok: false; status: number; message: string; retryAfter?: number; req?: AuthRequest };

/** A consent ticket lives 10 minutes. */
const TICKET_TTL_MS = 10 * 60 * 1000;

/** The login service's sign-in, consent and code issuance. */
export class AuthorizeService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly sealer: Sealer,
  ) {}

  /**
   * A client by its public id, its redirect URI resolved against `origin` (the address the
   * browser reached the login service at: a system client's URI follows it).
   */
  async client(clientId: string | undefined, origin: string): Promise<ClientRow | undefined> {
    if (!clientId) return undefined;
    const row = await this.db.db
      .selectFrom('oauth_clients')
      .select([
        'id',
        'client_id',
        'account_id',
        'label',
        'redirect_uri',
        'public',
        'status',
        'secret_hash',
        'thumbnail_type',
        'created',
      ])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row && { ...row, redirect_uri: resolveRedirectUri(row.redirect_uri, origin) };
  }

  /** GET /oauth/authorize's parameters, checked in the order RFC 6749 §4.1.2.1 gives. */
  async validate(q: Params, origin: string): Promise<AuthorizeResult> {
    const client = await this.client(q.client_id, origin);
    if (client?.status !== 'active') return { ok: false, page: 'Unknown or inactive client_id.' };
    if (q.redirect_uri !== undefined && q.redirect_uri !== client.redirect_uri)
      return {
        ok: false,
        page: 'redirect_uri does not match the client’s registered redirect URI.',
      };
    const state = q.state ?? null;
    const fail = (error: string, description: string) => ({
      ok: false as const,
      redirect: redirectWith(client.redirect_uri, {
        error,
        error_description: description,
        state,
      }),
    });
    if (q.response_type !== 'code')
      return fail('unsupported_response_type', 'response_type must be code');
    const rawScopes = q.scopes ?? q.scope ?? '*';
    const scopes = parseScopes(rawScopes);
    if (!scopes) return fail('invalid_scope', 'scopes must be * or a list of <area>:<level>');
    if (q.code_challenge !== undefined || q.code_challenge_method !== undefined) {
      if ((q.code_challenge_method ?? 'plain') !== 'S256')
        return fail('invalid_request', 'code_challenge_method must be S256');
      if (!/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge ?? ''))
        return fail(
          'invalid_request',
          'code_challenge must be a base64url SHA-256 (43 characters)',
        );
    } else if (client.public) {
      return fail('invalid_request', 'public clients must use PKCE (code_challenge, S256)');
    }
    return {
      ok: true,
      client,
      req: {
        clientId: client.client_id,
        redirectUri: client.redirect_uri,
        explicitRedirect: q.redirect_uri !== undefined,
        scopes: formatScopes(scopes),
        state,
        codeChallenge: q.code_challenge ?? null,
      },
    };
  }

  /**
   * Checks a sign-in (password, then the TOTP code when the user turned it on) with rate limits
   * on failures, records the attempt, and on success opens a consent ticket.
   */
  async signIn(
    q: Params,
    origin: string,
    form: { username: string; password: string; tfa_code: string },
    ip: string,
    device: { cookie?: string; userAgent: string; trust: boolean } = {
      userAgent: '',
      trust: false,
    },
  ): Promise<SignInResult | Exclude<AuthorizeResult, { ok: true }>> {
    const v = await this.validate(q, origin);
    if (!v.ok) return v;
    const nowMs = this.clock.nowMs();
    const user = await this.db.db
      .selectFrom('users')
      .select(['id', 'account_id', 'restricted', 'username'])
      .where((eb) => eb(eb.fn('lower', ['username']), '=', form.username.toLowerCase()))
      .executeTakeFirst();
    const attempt = {
      user: user
        ? { id: user.id, accountId: user.account_id, restricted: user.restricted }
        : undefined,
      username: user?.username ?? form.username.slice(0, 64),
      ip,
    };
    // Recorded as failed first (committed), then checked against the limits: concurrent attempts
    // count each other. A successful check turns the record into `successful`.
    const attemptId = await recordLogin(this.db, { ...attempt, status: 'failed' }, nowMs);
    const wait = await signInWait(this.db, user?.id, ip, nowMs, attemptId);
    if (wait !== undefined) {
      return {
        ok: false,
        status: 429,
        retryAfter: wait,
        req: v.req,
        message: 'Too many failed sign-in attempts. Try again later.',
      };
    }
    const creds = user ? await credentialsOf(this.db, user.id) : undefined;
    const passwordOk = await verifyPassword(
      form.password,
      creds?.password_hash ?? (await dummyHash()),
    );
    let ok = Boolean(user && creds?.password_hash && passwordOk);
    let tfaMessage: string | undefined;
    if (ok && user && creds?.tfa_secret) {
      ok =
        (await deviceTrusted(this.db, user.id, device.cookie, ip, nowMs)) ||
        (await checkSecondFactor(this.db, this.sealer, creds, form.tfa_code, nowMs));
      if (!ok) tfaMessage = 'Invalid two-factor code.';
    }
    return this.db.transaction(async (tx) => {
      if (!ok || !user)
        return {
          ok: false as const,
          status: 401,
          req: v.req,
          message: tfaMessage ?? 'Invalid username or password.',
        };
      await markLoginSuccessful(tx, attemptId);
      const ticket = newSecret();
      await tx.db.deleteFrom('oauth_sessions').where('expires_ms', '<=', nowMs).execute();
      await tx.db
        .insertInto('oauth_sessions')
        .values({
          ticket_hash: hashSecret(ticket),
          user_id: user.id,
          client_pk: v.client.id,
          request: JSON.stringify(v.req),
          expires_ms: nowMs + TICKET_TTL_MS,
        })
        .execute();
      const deviceToken = device.trust
        ? await trustDevice(tx, user.id, device.userAgent, ip, nowMs)
        : undefined;
      return {
        ok: true as const,
        ticket,
        username: user.username,
        req: v.req,
        client: v.client,
        ...(deviceToken ? { deviceToken } : {}),
      };
    });
  }

  /**
   * The consent form's answer: the redirect back to the client (a code, or `access_denied`);
   * undefined when the ticket is unknown or old.
   */
  consent(ticket: string, approve: boolean): Promise<string | undefined> {
    return grantConsent(this.db, this.clock.nowMs(), ticket, approve);
  }
}
