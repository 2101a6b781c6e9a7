import type { Generated } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  euuid: string;
  email: string;
  company: string;
  first_name: string;
  last_name: string;
  address_1: string;
  address_2: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  phone: string;
  tax_id: string;
  /** Integer cents. */
  balance_cents: number;
  balance_uninvoiced_cents: number;
  billing_source: string;
  /** JSON array of strings. */
  capabilities: string;
  active_since: string;
  backups_enabled: number;
  network_helper: number;
  /** What new instances get and may ask for (0028): `legacy_config_only` … `compute_only`. */
  interfaces_for_new_computes?: string;
  managed: number;
  longview_subscription: string | null;
  object_storage: string;
  /** The default maintenance policy of new instances (a slug of `/maintenance/policies`). */
  maintenance_policy: Generated<string>;
  created: string;
}

export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  username: string;
  email: string;
  restricted: number;
  /** JSON object of the global grants (restricted users only). */
  global_grants: string;
  timezone: string;
  email_notifications: number;
  lish_auth_method: string;
  /** JSON array of public keys, or null. */
  authorized_keys: string | null;
  two_factor_auth: number;
  verified_phone_number: string | null;
  password_created: string | null;
  created: string;
}

export interface EntityGrantsTable {
  user_id: number;
  entity_type: string;
  entity_id: number;
  permissions: 'read_only' | 'read_write';
}

export interface TokensTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  /** 'pat' (personal access token) or 'oauth' (issued by the login service). */
  kind: string;
  label: string;
  scopes: string;
  token_hash: string;
  /** The first 16 characters, shown after creation. */
  token_prefix: string;
  created: string;
  /** ISO time, or null for never. */
  expiry: string | null;
}

export interface SshKeysTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}

export interface IdentityTables {
  accounts: AccountsTable;
  users: UsersTable;
  entity_grants: EntityGrantsTable;
  tokens: TokensTable;
  ssh_keys: SshKeysTable;
}
