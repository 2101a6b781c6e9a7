import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Placement groups and their members. An instance is in at most one group (`instance_id` is the
 * key of its membership); a member row goes with its instance and with its group.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('placement_groups'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('placement_group_type', 'text', notNull)
    .addColumn('placement_group_policy', 'text', notNull)
    .addColumn('is_compliant', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('placement_groups_account_label_idx')
    .on('placement_groups')
    .columns(['account_id', 'label'])
    .unique()
    .execute();

  await db.schema
    .createTable('placement_group_members')
    .addColumn('instance_id', 'integer', (c) =>
      c.primaryKey().references('instances.id').onDelete('cascade'),
    )
    .addColumn('placement_group_id', 'integer', (c) =>
      c.notNull().references('placement_groups.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('placement_group_members_group_idx')
    .on('placement_group_members')
    .column('placement_group_id')
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('placement_group_members').ifExists().execute();
  await db.schema.dropTable('placement_groups').ifExists().execute();
}
