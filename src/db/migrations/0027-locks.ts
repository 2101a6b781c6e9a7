import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Resource locks: at most one delete-protection lock per entity (`cannot_delete` or
 * `cannot_delete_with_subresources`), so (entity_type, entity_id) is unique.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('resource_locks'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('lock_type', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('resource_locks_entity_idx')
    .on('resource_locks')
    .columns(['entity_type', 'entity_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('resource_locks_account_idx')
    .on('resource_locks')
    .column('account_id')
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('resource_locks').ifExists().execute();
}
