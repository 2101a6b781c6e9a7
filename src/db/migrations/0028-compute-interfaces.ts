import { defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Interfaces of the new generation (`interface_generation: compute`): an instance's own network
 * interfaces (public, VPC, VLAN), not a configuration profile's. An instance of that generation
 * has no profile interfaces, and one of the legacy generation has none of these.
 *
 * A public interface stores which of the instance's public IPv4 addresses is primary; the
 * addresses themselves stay in `ip_addresses`. A VPC interface stores its subnet, its primary
 * VPC address, its 1:1 NAT and its routed ranges, as profile interfaces do. Its firewall is a
 * firewall device of type `compute_interface`.
 *
 * `instances.interface_generation` and `interfaces_network_helper`; the account's
 * `interfaces_for_new_computes` (what new instances get, and may ask for).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('compute_interfaces'), dialect)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('instance_id', 'integer', (c) =>
      c.notNull().references('instances.id').onDelete('cascade'),
    )
    .addColumn('purpose', 'text', notNull)
    .addColumn('mac_address', 'text', notNull)
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('default_ipv4', 'integer', defaultZero)
    .addColumn('default_ipv6', 'integer', defaultZero)
    .addColumn('primary_ipv4', 'text')
    .addColumn('vpc_id', 'integer')
    .addColumn('subnet_id', 'integer')
    .addColumn('ipv4_vpc', 'text')
    .addColumn('ipv4_nat_1_1', 'text')
    .addColumn('ip_ranges', 'text')
    .addColumn('vlan_label', 'text')
    .addColumn('ipam_address', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('compute_interfaces_instance_idx')
    .on('compute_interfaces')
    .columns(['instance_id', 'id'])
    .execute();
  await db.schema
    .createIndex('compute_interfaces_subnet_idx')
    .on('compute_interfaces')
    .columns(['subnet_id'])
    .execute();
  await db.schema
    .alterTable('instances')
    .addColumn('interface_generation', 'text', (c) => c.notNull().defaultTo('legacy_config'))
    .execute();
  await db.schema
    .alterTable('instances')
    .addColumn('interfaces_network_helper', 'integer', defaultZero)
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('interfaces_for_new_computes', 'text', (c) =>
      c.notNull().defaultTo('legacy_config_default_but_compute_allowed'),
    )
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('compute_interfaces').ifExists().execute();
  await db.schema.alterTable('instances').dropColumn('interfaces_network_helper').execute();
  await db.schema.alterTable('instances').dropColumn('interface_generation').execute();
  await db.schema.alterTable('accounts').dropColumn('interfaces_for_new_computes').execute();
}
