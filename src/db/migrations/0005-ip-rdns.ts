import type { MigrationContext } from './helpers.js';

/** Custom reverse DNS of instances' SLAAC addresses (IPv4 keeps it on ip_addresses.rdns). */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('ipv6_rdns')
    .addColumn('instance_id', 'integer', (c) =>
      c.primaryKey().references('instances.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('rdns', 'text', (c) => c.notNull())
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('ipv6_rdns').ifExists().execute();
}
