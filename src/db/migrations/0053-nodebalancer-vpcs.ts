import { bigint, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * NodeBalancers in VPCs and NodeBalancer types. A VPC configuration gives a NodeBalancer a /30
 * range of a subnet through which it reaches backends by their VPC addresses; a node reached
 * that way names its configuration. `type` is the NodeBalancer's plan (`common`, `premium`).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('nodebalancer_vpcs'), dialect)
    .addColumn('nodebalancer_id', 'integer', notNull)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('vpc_id', 'integer', notNull)
    .addColumn('subnet_id', 'integer', notNull)
    .addColumn('ipv4_range', 'text', notNull)
    // IPv4 addresses as numbers pass 2^31: 64 bits on PostgreSQL.
    .addColumn('ipv4_start', bigint(dialect), notNull)
    .addColumn('ipv4_end', bigint(dialect), notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('nodebalancer_vpcs_nb')
    .on('nodebalancer_vpcs')
    .columns(['nodebalancer_id', 'subnet_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('nodebalancer_vpcs_subnet')
    .on('nodebalancer_vpcs')
    .columns(['subnet_id', 'ipv4_start'])
    .unique()
    .execute();
  await db.schema
    .alterTable('nodebalancers')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('common'))
    .execute();
  await db.schema.alterTable('nodebalancer_nodes').addColumn('vpc_config_id', 'integer').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('nodebalancer_nodes').dropColumn('vpc_config_id').execute();
  await db.schema.alterTable('nodebalancers').dropColumn('type').execute();
  await db.schema.dropTable('nodebalancer_vpcs').ifExists().execute();
}
