import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * OAuth clients, what users granted them (authorized apps), authorization codes, refresh tokens,
 * the sign-in record (logins), users' credentials (password hash, TOTP) and the login service's
 * short-lived sign-in sessions.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  await withId(db.schema.createTable('oauth_clients'), dialect)
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('public', 'integer', defaultZero)
    .addColumn('status', 'text', notNull)
    .addColumn('secret_hash', 'text', notNull)
    .addColumn('thumbnail', blob)
    .addColumn('thumbnail_type', 'text')
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('oauth_clients_account_idx')
    .on('oauth_clients')
    .columns(['account_id', 'id'])
    .execute();

  await withId(db.schema.createTable('oauth_apps'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('client_pk', 'integer', (c) =>
      c.notNull().references('oauth_clients.id').onDelete('cascade'),
    )
    .addColumn('scopes', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('expiry', 'text')
    .addUniqueConstraint('oauth_apps_user_client_uq', ['user_id', 'client_pk'])
    .execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'integer', (c) =>
      c.notNull().references('oauth_apps.id').onDelete('cascade'),
    )
    .addColumn('scopes', 'text', notNull)
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('code_challenge', 'text')
    .addColumn('expires_ms', bigint(dialect), notNull)
    .addColumn('used', 'integer', defaultZero)
    .execute();

  await withId(db.schema.createTable('oauth_refresh_tokens'), dialect)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('app_id', 'integer', (c) =>
      c.notNull().references('oauth_apps.id').onDelete('cascade'),
    )
    .addColumn('family', 'text', notNull)
    .addColumn('access_token_id', 'integer')
    .addColumn('scopes', 'text', notNull)
    .addColumn('used', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('oauth_refresh_family_idx')
    .on('oauth_refresh_tokens')
    .columns(['family'])
    .execute();
  await db.schema
    .createIndex('oauth_refresh_app_idx')
    .on('oauth_refresh_tokens')
    .columns(['app_id'])
    .execute();

  await withId(db.schema.createTable('logins'), dialect)
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('username', 'text', notNull)
    .addColumn('ip', 'text', notNull)
    .addColumn('restricted', 'integer', defaultZero)
    .addColumn('status', 'text', notNull)
    .addColumn('datetime', 'text', notNull)
    .addColumn('at_ms', bigint(dialect), notNull)
    .execute();
  await db.schema
    .createIndex('logins_account_idx')
    .on('logins')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('logins_user_idx')
    .on('logins')
    .columns(['user_id', 'at_ms'])
    .execute();
  await db.schema.createIndex('logins_ip_idx').on('logins').columns(['ip', 'at_ms']).execute();

  await db.schema
    .createTable('user_credentials')
    .addColumn('user_id', 'integer', (c) =>
      c.primaryKey().references('users.id').onDelete('cascade'),
    )
    .addColumn('password_hash', 'text')
    .addColumn('tfa_secret', 'text')
    .addColumn('tfa_pending_secret', 'text')
    .addColumn('tfa_pending_expiry', 'text')
    .addColumn('tfa_scratch_hash', 'text')
    .addColumn('tfa_last_step', bigint(dialect))
    .execute();

  await db.schema
    .createTable('oauth_sessions')
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('client_pk', 'integer', (c) =>
      c.notNull().references('oauth_clients.id').onDelete('cascade'),
    )
    .addColumn('request', 'text', notNull)
    .addColumn('expires_ms', bigint(dialect), notNull)
    .execute();

  await withId(db.schema.createTable('trusted_devices'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_agent', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('expiry', 'text', notNull)
    .addColumn('last_authenticated', 'text', notNull)
    .addColumn('last_remote_addr', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('trusted_devices_user_idx')
    .on('trusted_devices')
    .columns(['user_id', 'id'])
    .execute();

  await db.schema
    .createTable('user_preferences')
    .addColumn('user_id', 'integer', (c) =>
      c.primaryKey().references('users.id').onDelete('cascade'),
    )
    .addColumn('preferences', 'text', notNull)
    .execute();

  await db.schema
    .createTable('phone_verifications')
    .addColumn('user_id', 'integer', (c) =>
      c.primaryKey().references('users.id').onDelete('cascade'),
    )
    .addColumn('phone_number', 'text', notNull)
    .addColumn('code_hash', 'text', notNull)
    .addColumn('expires_ms', bigint(dialect), notNull)
    .addColumn('attempts', 'integer', defaultZero)
    .execute();

  await withId(db.schema.createTable('sms_outbox'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('phone_number', 'text', notNull)
    .addColumn('body', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of [
    'sms_outbox',
    'phone_verifications',
    'user_preferences',
    'trusted_devices',
    'oauth_sessions',
    'user_credentials',
    'logins',
    'oauth_refresh_tokens',
    'oauth_codes',
    'oauth_apps',
    'oauth_clients',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
