import { type MigrationContext, notNull, withId } from './helpers.js';

/** Firewalls and their devices, IP sharing and IPv6 ranges. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('firewalls'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('inbound_policy', 'text', notNull)
    .addColumn('outbound_policy', 'text', notNull)
    .addColumn('rules', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addUniqueConstraint('firewalls_account_label_uq', ['account_id', 'label'])
    .execute();

  await withId(db.schema.createTable('firewall_devices'), dialect)
    .addColumn('firewall_id', 'integer', (c) =>
      c.notNull().references('firewalls.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', notNull)
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addUniqueConstraint('firewall_devices_uq', ['firewall_id', 'entity_type', 'entity_id'])
    .execute();
  await db.schema
    .createIndex('firewall_devices_entity_idx')
    .on('firewall_devices')
    .columns(['entity_type', 'entity_id'])
    .execute();

  await withId(db.schema.createTable('ipv6_ranges'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('region', 'text', notNull)
    .addColumn('range', 'text', notNull)
    .addColumn('prefix', 'integer', notNull)
    .addColumn('instance_id', 'integer', (c) => c.references('instances.id').onDelete('set null'))
    .addColumn('route_target', 'text')
    .addColumn('created', 'text', notNull)
    .addUniqueConstraint('ipv6_ranges_range_uq', ['range'])
    .execute();
  await db.schema
    .createIndex('ipv6_ranges_account_idx')
    .on('ipv6_ranges')
    .columns(['account_id', 'region'])
    .execute();

  // An IPv4 address (ip_id) or an IPv6 range (range_id) shared with an instance.
  await withId(db.schema.createTable('ip_shares'), dialect)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('instance_id', 'integer', (c) =>
      c.notNull().references('instances.id').onDelete('cascade'),
    )
    .addColumn('ip_id', 'integer', (c) => c.references('ip_addresses.id').onDelete('cascade'))
    .addColumn('range_id', 'integer', (c) => c.references('ipv6_ranges.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('ip_shares_instance_idx')
    .on('ip_shares')
    .columns(['instance_id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of ['ip_shares', 'ipv6_ranges', 'firewall_devices', 'firewalls']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
