import type { Generated } from 'kysely';

export type OAuthClientStatus = 'active' | 'disabled' | 'suspended';

export interface OAuthClientsTable {
  /** Internal key; the API's `id` is `client_id`. */
  id: Generated<number>;
  /** The public client id (20 hex characters, as the reference's example). */
  client_id: string;
  /** Null for a system client of Stratus itself (the web console): no account owns it. */
  account_id: number | null;
  label: string;
  /** Absolute, or path-absolute for a system client (resolved against the server's address). */
  redirect_uri: string;
  public: number;
  status: OAuthClientStatus;
  /** SHA-256 of the client secret (a 256-bit random value). */
  secret_hash: string;
  thumbnail: Buffer | null;
  thumbnail_type: string | null;
  created: string;
}

/** What a user granted a client (`/profile/apps`): one row per user and client. */
export interface OAuthAppsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  client_pk: number;
  scopes: string;
  created: string;
  expiry: string | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  app_id: number;
  scopes: string;
  redirect_uri: string;
  /** PKCE S256 challenge, or null. */
  code_challenge: string | null;
  expires_ms: number;
  used: number;
}

/**
 * Refresh tokens. A refresh rotates: the used row stays (used = 1) so that its reuse is
 * recognised, and the whole family (every token descended from one code) is then revoked.
 */
export interface OAuthRefreshTokensTable {
  id: Generated<number>;
  token_hash: string;
  app_id: number;
  family: string;
  /** The access token (tokens.id) issued with this refresh token. */
  access_token_id: number | null;
  scopes: string;
  used: number;
  created: string;
}

export interface LoginsTable {
  id: Generated<number>;
  /** Null for a sign-in attempt with an unknown username (kept for rate limiting only). */
  account_id: number | null;
  user_id: number | null;
  username: string;
  ip: string;
  restricted: number;
  status: 'successful' | 'failed';
  datetime: string;
  at_ms: number;
}

export interface UserCredentialsTable {
  user_id: number;
  /** `scrypt$N$r$p$salt$hash` (base64), or null: the user cannot sign in. */
  password_hash: string | null;
  /** Base32 TOTP secret once two-factor authentication is on. */
  tfa_secret: string | null;
  tfa_pending_secret: string | null;
  tfa_pending_expiry: string | null;
  tfa_scratch_hash: string | null;
  /** The last TOTP time step accepted (a code is good once). */
  tfa_last_step: number | null;
}

/** A signed-in user awaiting consent (the consent form carries the ticket). */
export interface OAuthSessionsTable {
  ticket_hash: string;
  user_id: number;
  client_pk: number;
  /** JSON of the validated authorization request. */
  request: string;
  expires_ms: number;
}

/** A browser the user chose to trust at sign-in: it skips the two-factor code until expiry. */
export interface TrustedDevicesTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the device cookie's value. */
  token_hash: string;
  user_agent: string;
  created: string;
  expiry: string;
  last_authenticated: string;
  last_remote_addr: string;
}

export interface UserPreferencesTable {
  user_id: number;
  /** JSON object. */
  preferences: string;
}

/** A phone number awaiting its SMS code (one per user). */
export interface PhoneVerificationsTable {
  user_id: number;
  /** E.164. */
  phone_number: string;
  code_hash: string;
  expires_ms: number;
  attempts: number;
}

/** Simulated SMS: what would have been sent (the operator CLI reads it). */
export interface SmsOutboxTable {
  id: Generated<number>;
  user_id: number;
  phone_number: string;
  body: string;
  created: string;
}

/** One answered security question; the answer is a scrypt hash of its normalized text. */
export interface SecurityAnswersTable {
  user_id: number;
  question_id: number;
  response_hash: string;
  updated: string;
}

export interface OAuthTables {
  security_answers: SecurityAnswersTable;
  phone_verifications: PhoneVerificationsTable;
  sms_outbox: SmsOutboxTable;
  trusted_devices: TrustedDevicesTable;
  user_preferences: UserPreferencesTable;
  oauth_clients: OAuthClientsTable;
  oauth_apps: OAuthAppsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  logins: LoginsTable;
  user_credentials: UserCredentialsTable;
  oauth_sessions: OAuthSessionsTable;
}
