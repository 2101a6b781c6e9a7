import { bigint, type MigrationContext, notNull, withId } from './helpers.js';

/** VPCs and their subnets (config interfaces reference subnets by `subnet_id`). */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('vpcs'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  // Labels are unique per account; the service checks first and names the field.
  await db.schema
    .createIndex('vpcs_account_label_idx')
    .on('vpcs')
    .columns(['account_id', 'label'])
    .unique()
    .execute();

  await withId(db.schema.createTable('vpc_subnets'), dialect)
    .addColumn('vpc_id', 'integer', (c) => c.notNull().references('vpcs.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('ipv4', 'text', notNull)
    .addColumn('ipv4_start', bigint(dialect), notNull)
    .addColumn('ipv4_end', bigint(dialect), notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('vpc_subnets_vpc_label_idx')
    .on('vpc_subnets')
    .columns(['vpc_id', 'label'])
    .unique()
    .execute();
  await db.schema
    .createIndex('config_interfaces_subnet_idx')
    .on('config_interfaces')
    .columns(['subnet_id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('config_interfaces_subnet_idx').ifExists().execute();
  await db.schema.dropTable('vpc_subnets').ifExists().execute();
  await db.schema.dropTable('vpcs').ifExists().execute();
}
