import type { MigrationContext } from './helpers.js';

/**
 * Reserved IPv4 addresses: an address of `ip_addresses` kept by the account whether or not an
 * instance holds it (`instance_id` null while unassigned). Their tags are `entity_tags` rows of
 * type `reserved_ipv4_address`.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('ip_addresses')
    .addColumn('reserved', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('ip_addresses_reserved_idx')
    .on('ip_addresses')
    .columns(['account_id', 'reserved'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('ip_addresses_reserved_idx').ifExists().execute();
  await db.schema.alterTable('ip_addresses').dropColumn('reserved').execute();
}
