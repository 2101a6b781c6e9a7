import type { MigrationContext } from './helpers.js';

/**
 * NodeBalancer VPC configurations in dual-stack subnets: the IPv6 range of the subnet the
 * NodeBalancer reaches its backends from (null in an IPv4-only subnet).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('nodebalancer_vpcs').addColumn('ipv6_range', 'text').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('nodebalancer_vpcs').dropColumn('ipv6_range').execute();
}
