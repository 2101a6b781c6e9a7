import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * VPC IPv4 ranges and types, and VLANs that outlive their interfaces.
 * - `vpcs.ipv4_ranges`: the VPC's own IPv4 ranges as a JSON array of canonical CIDRs, which its
 *   subnets must lie in; null: the default ranges (`GET /vpcs/default-ranges`).
 * - `vpcs.vpc_type`: `regular` or `rdma` (its subnets show the VPC's type).
 * - `vlans`: a VLAN of an account in a region, recorded when an interface first names it; it
 *   stays until `DELETE /networking/vlans/{region}/{label}`.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema.alterTable('vpcs').addColumn('ipv4_ranges', 'text').execute();
  await db.schema
    .alterTable('vpcs')
    .addColumn('vpc_type', 'text', (c) => c.notNull().defaultTo('regular'))
    .execute();
  await withId(db.schema.createTable('vlans'), dialect)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('vlans_account_region_label')
    .on('vlans')
    .columns(['account_id', 'region', 'label'])
    .unique()
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('vlans').ifExists().execute();
  await db.schema.alterTable('vpcs').dropColumn('vpc_type').execute();
  await db.schema.alterTable('vpcs').dropColumn('ipv4_ranges').execute();
}
