import type { MigrationContext } from './helpers.js';

/**
 * IPv6 of VPC interfaces on dual-stack subnets: JSON `{"slaac": [range], "ranges": [range],
 * "is_public": bool}`, each range a /64 of the subnet's IPv6 range (the SLAAC address is derived
 * from its range and the instance). Null: no IPv6 (other purposes, IPv4-only subnets).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('config_interfaces').addColumn('ipv6', 'text').execute();
  await db.schema.alterTable('compute_interfaces').addColumn('ipv6', 'text').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('compute_interfaces').dropColumn('ipv6').execute();
  await db.schema.alterTable('config_interfaces').dropColumn('ipv6').execute();
}
