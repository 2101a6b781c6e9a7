import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/** Accounts, users, grants, tokens, SSH keys, events, jobs and the catalogue. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('accounts'), dialect)
    .addColumn('euuid', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', notNull)
    .addColumn('company', 'text', notNull)
    .addColumn('first_name', 'text', notNull)
    .addColumn('last_name', 'text', notNull)
    .addColumn('address_1', 'text', notNull)
    .addColumn('address_2', 'text', notNull)
    .addColumn('city', 'text', notNull)
    .addColumn('state', 'text', notNull)
    .addColumn('zip', 'text', notNull)
    .addColumn('country', 'text', notNull)
    .addColumn('phone', 'text', notNull)
    .addColumn('tax_id', 'text', notNull)
    .addColumn('balance_cents', 'integer', defaultZero)
    .addColumn('balance_uninvoiced_cents', 'integer', defaultZero)
    .addColumn('billing_source', 'text', notNull)
    .addColumn('capabilities', 'text', notNull)
    .addColumn('active_since', 'text', notNull)
    .addColumn('backups_enabled', 'integer', defaultZero)
    .addColumn('network_helper', 'integer', defaultZero)
    .addColumn('managed', 'integer', defaultZero)
    .addColumn('longview_subscription', 'text')
    .addColumn('object_storage', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('users'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', notNull)
    .addColumn('restricted', 'integer', defaultZero)
    .addColumn('global_grants', 'text', notNull)
    .addColumn('timezone', 'text', notNull)
    .addColumn('email_notifications', 'integer', defaultZero)
    .addColumn('lish_auth_method', 'text', notNull)
    .addColumn('authorized_keys', 'text')
    .addColumn('two_factor_auth', 'integer', defaultZero)
    .addColumn('verified_phone_number', 'text')
    .addColumn('password_created', 'text')
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('users_account_idx')
    .on('users')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('entity_grants')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('permissions', 'text', notNull)
    .addPrimaryKeyConstraint('entity_grants_pk', ['user_id', 'entity_type', 'entity_id'])
    .execute();
  await db.schema
    .createIndex('entity_grants_entity_idx')
    .on('entity_grants')
    .columns(['entity_type', 'entity_id'])
    .execute();

  await withId(db.schema.createTable('tokens'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_prefix', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('expiry', 'text')
    .execute();
  await db.schema.createIndex('tokens_user_idx').on('tokens').columns(['user_id', 'id']).execute();

  await withId(db.schema.createTable('ssh_keys'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('label', 'text', notNull)
    .addColumn('ssh_key', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('ssh_keys_user_idx')
    .on('ssh_keys')
    .columns(['user_id', 'id'])
    .execute();

  await withId(db.schema.createTable('events'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('action', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('duration', 'real')
    .addColumn('entity_type', 'text')
    .addColumn('entity_id', 'integer')
    .addColumn('entity_label', 'text')
    .addColumn('entity_url', 'text')
    .addColumn('secondary_entity_type', 'text')
    .addColumn('secondary_entity_id', 'integer')
    .addColumn('secondary_entity_label', 'text')
    .addColumn('secondary_entity_url', 'text')
    .addColumn('message', 'text')
    .addColumn('percent_complete', 'integer')
    .addColumn('rate', 'text')
    .addColumn('read', 'integer', defaultZero)
    .addColumn('seen', 'integer', defaultZero)
    .addColumn('status', 'text', notNull)
    .addColumn('time_remaining', 'text')
    .addColumn('username', 'text')
    .addColumn('started_ms', bigint(dialect))
    .execute();
  await db.schema
    .createIndex('events_account_idx')
    .on('events')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('events_entity_idx')
    .on('events')
    .columns(['account_id', 'entity_id', 'id'])
    .execute();
  await db.schema
    .createIndex('events_action_idx')
    .on('events')
    .columns(['account_id', 'action', 'id'])
    .execute();
  await db.schema
    .createIndex('events_created_idx')
    .on('events')
    .columns(['account_id', 'created'])
    .execute();

  await withId(db.schema.createTable('jobs'), dialect)
    .addColumn('name', 'text', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('run_at', bigint(dialect), notNull)
    .addColumn('attempts', 'integer', defaultZero)
    .addColumn('max_attempts', 'integer', notNull)
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', bigint(dialect))
    .addColumn('last_error', 'text')
    .addColumn('account_id', 'integer')
    .addColumn('entity_type', 'text')
    .addColumn('entity_id', 'integer')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema
    .createIndex('jobs_entity_idx')
    .on('jobs')
    .columns(['entity_type', 'entity_id', 'status'])
    .execute();

  await db.schema
    .createTable('regions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('data', 'text', notNull)
    .execute();
  await db.schema
    .createTable('types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', notNull)
    .addColumn('class', 'text', notNull)
    .addColumn('disk', 'integer', notNull)
    .addColumn('memory', 'integer', notNull)
    .addColumn('vcpus', 'integer', notNull)
    .addColumn('gpus', 'integer', notNull)
    .addColumn('transfer', 'integer', notNull)
    .addColumn('network_out', 'integer', notNull)
    .addColumn('data', 'text', notNull)
    .execute();
  await db.schema
    .createTable('kernels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', notNull)
    .addColumn('version', 'text', notNull)
    .addColumn('kvm', 'integer', notNull)
    .addColumn('architecture', 'text', notNull)
    .addColumn('pvops', 'integer', notNull)
    .addColumn('deprecated', 'integer', notNull)
    .addColumn('built', 'text', notNull)
    .addColumn('data', 'text', notNull)
    .execute();
  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer')
    .addColumn('label', 'text', notNull)
    .addColumn('deprecated', 'integer', notNull)
    .addColumn('is_public', 'integer', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('vendor', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('data', 'text', notNull)
    .execute();
  await db.schema
    .createTable('region_availability')
    .addColumn('region', 'text', notNull)
    .addColumn('plan', 'text', notNull)
    .addColumn('available', 'integer', notNull)
    .addPrimaryKeyConstraint('region_availability_pk', ['region', 'plan'])
    .execute();
  await db.schema
    .createIndex('images_account_idx')
    .on('images')
    .columns(['account_id', 'id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of [
    'region_availability',
    'images',
    'kernels',
    'types',
    'regions',
    'jobs',
    'events',
    'ssh_keys',
    'tokens',
    'entity_grants',
    'users',
    'accounts',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
