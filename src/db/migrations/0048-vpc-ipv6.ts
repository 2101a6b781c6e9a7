import type { MigrationContext } from './helpers.js';

/**
 * VPC IPv6 (dual-stack VPCs): a VPC's IPv6 range, taken from its region's VPC IPv6 pool at
 * create, and each subnet's range, carved from its VPC's. Null: an IPv4-only VPC or subnet, as
 * every existing one is.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('vpcs').addColumn('ipv6', 'text').execute();
  await db.schema.alterTable('vpc_subnets').addColumn('ipv6', 'text').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('vpc_subnets').dropColumn('ipv6').execute();
  await db.schema.alterTable('vpcs').dropColumn('ipv6').execute();
}
