import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Firewalls as the live service has them: every version of a firewall's rules (`/history`), kept
 * until the firewall is deleted, and the account's default firewalls (`/networking/firewalls/settings`).
 * Existing firewalls get their current rules as their one known version.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('firewall_rule_versions'), dialect)
    .addColumn('firewall_id', 'integer', (c) =>
      c.notNull().references('firewalls.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('version', 'integer', notNull)
    // The firewall's status when the version was made.
    .addColumn('status', 'text', notNull)
    .addColumn('inbound_policy', 'text', notNull)
    .addColumn('outbound_policy', 'text', notNull)
    // JSON {inbound, outbound}, as `firewalls.rules`.
    .addColumn('rules', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addUniqueConstraint('firewall_rule_versions_uq', ['firewall_id', 'version'])
    .execute();
  await db
    .insertInto('firewall_rule_versions' as never)
    .columns([
      'firewall_id',
      'account_id',
      'version',
      'status',
      'inbound_policy',
      'outbound_policy',
      'rules',
      'created',
    ] as never)
    .expression(
      (db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>)
        .selectFrom('firewalls')
        .select([
          'id',
          'account_id',
          'rules_version',
          'status',
          'inbound_policy',
          'outbound_policy',
          'rules',
          'updated',
        ]) as never,
    )
    .execute();

  // One row per account that set a default; a null column: no default of that kind.
  await db.schema
    .createTable('firewall_settings')
    .addColumn('account_id', 'integer', (c) =>
      c.primaryKey().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('compute', 'integer', (c) => c.references('firewalls.id').onDelete('set null'))
    .addColumn('nodebalancer', 'integer', (c) => c.references('firewalls.id').onDelete('set null'))
    .addColumn('public_interface', 'integer', (c) =>
      c.references('firewalls.id').onDelete('set null'),
    )
    .addColumn('vpc_interface', 'integer', (c) => c.references('firewalls.id').onDelete('set null'))
    .addColumn('updated', 'text', notNull)
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('firewall_settings').ifExists().execute();
  await db.schema.dropTable('firewall_rule_versions').ifExists().execute();
}
