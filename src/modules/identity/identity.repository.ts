import { randomUUID } from 'node:crypto';
import { EMPTY_GLOBAL_GRANTS } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';

/** Capabilities every new account has. */
export const DEFAULT_ACCOUNT_CAPABILITIES = [
  'Computes',
  'Block Storage',
  'Cloud Firewall',
  'NodeBalancers',
  'Object Storage',
  'Vlans',
  'VPCs',
];

export async function insertAccount(
  db: Database,
  email: string,
  nowIso: string,
): Promise<{ id: number; euuid: string }> {
  const euuid = randomUUID().toUpperCase();
  const row = await db.db
    .insertInto('accounts')
    .values({
      euuid,
      email,
      company: '',
      first_name: '',
      last_name: '',
      address_1: '',
      address_2: '',
      city: '',
      state: '',
      zip: '',
      country: '',
      phone: '',
      tax_id: '',
      balance_cents: 0,
      balance_uninvoiced_cents: 0,
      billing_source: 'compute',
      capabilities: JSON.stringify(DEFAULT_ACCOUNT_CAPABILITIES),
      active_since: nowIso,
      backups_enabled: 0,
      network_helper: 1,
      managed: 0,
      longview_subscription: null,
      object_storage: 'disabled',
      created: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, euuid };
}

export async function insertUser(
  db: Database,
  u: { accountId: number; username: string; email: string; restricted: boolean },
  nowIso: string,
): Promise<number> {
  const row = await db.db
    .insertInto('users')
    .values({
      account_id: u.accountId,
      username: u.username,
      email: u.email,
      restricted: u.restricted ? 1 : 0,
      global_grants: JSON.stringify(EMPTY_GLOBAL_GRANTS),
      timezone: 'US/Eastern',
      email_notifications: 1,
      lish_auth_method: 'password_keys',
      authorized_keys: null,
      two_factor_auth: 0,
      verified_phone_number: null,
      password_created: null,
      created: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Stores a new token (hash only) and returns its id and the plaintext, which the caller shows
 * once. `plaintext` may be supplied (the configured admin token).
 */
export async function insertToken(
  db: Database,
  t: {
    accountId: number;
    userId: number;
    kind: 'pat' | 'oauth';
    label: string;
    scopes: string;
    expiry: string | null;
    plaintext?: string;
  },
  nowIso: string,
): Promise<{ id: number; token: string }> {
  const token = t.plaintext ?? newSecret();
  const row = await db.db
    .insertInto('tokens')
    .values({
      account_id: t.accountId,
      user_id: t.userId,
      kind: t.kind,
      label: t.label,
      scopes: t.scopes,
      token_hash: hashSecret(token),
      token_prefix: token.slice(0, 16),
      created: nowIso,
      expiry: t.expiry,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, token };
}
