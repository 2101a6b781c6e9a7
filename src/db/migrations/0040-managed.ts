import { bigint, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Managed: contacts, credentials (username and password sealed), monitored services and the
 * issues their checks open (each with a support ticket), per-instance SSH settings, and the
 * account's Managed SSH public key. Whether Managed is on is the existing `accounts.managed`.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('managed_contacts'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', notNull)
    .addColumn('email', 'text', notNull)
    .addColumn('phone_primary', 'text')
    .addColumn('phone_secondary', 'text')
    .addColumn('group_name', 'text')
    .addColumn('updated', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('managed_credentials'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('username_sealed', 'text')
    .addColumn('password_sealed', 'text', notNull)
    .addColumn('last_decrypted', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('managed_services'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('service_type', 'text', notNull)
    .addColumn('address', 'text', notNull)
    .addColumn('timeout', 'integer', notNull)
    .addColumn('body', 'text')
    .addColumn('consultation_group', 'text', notNull)
    .addColumn('notes', 'text')
    .addColumn('region', 'text')
    /** JSON array of credential ids. */
    .addColumn('credentials', 'text', notNull)
    .addColumn('status', 'text', notNull)
    /** The last check's outcome, why it failed, and when it ran (epoch ms). */
    .addColumn('last_error', 'text')
    .addColumn('checked_ms', bigint(dialect))
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('managed_issues'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('service_id', 'integer', notNull)
    /** JSON array of the affected service ids. */
    .addColumn('services', 'text', notNull)
    .addColumn('ticket_id', 'integer', (c) =>
      c.references('support_tickets.id').onDelete('set null'),
    )
    .addColumn('ticket_summary', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('resolved', 'text')
    .execute();

  await db.schema
    .createTable('managed_compute_settings')
    .addColumn('instance_id', 'integer', (c) =>
      c.primaryKey().references('instances.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('ssh_access', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('ssh_user', 'text')
    .addColumn('ssh_ip', 'text', (c) => c.notNull().defaultTo('any'))
    .addColumn('ssh_port', 'integer')
    .execute();

  await db.schema
    .createTable('managed_keys')
    .addColumn('account_id', 'integer', (c) =>
      c.primaryKey().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('ssh_key', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of [
    'managed_keys',
    'managed_compute_settings',
    'managed_issues',
    'managed_services',
    'managed_credentials',
    'managed_contacts',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
