import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Compute, advanced: backups, clones under way, and what a long operation needs on the instance
 * (a pending migration, the status a cloned source returns to).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema.alterTable('instances').addColumn('pending_migration', 'text').execute();
  await db.schema.alterTable('instances').addColumn('resume_status', 'text').execute();

  await withId(db.schema.createTable('instance_clones'), dialect)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('source_id', 'integer', notNull)
    .addColumn('target_id', 'integer', notNull)
    .addColumn('created_ms', bigint(dialect), notNull)
    .execute();
  await db.schema
    .createIndex('instance_clones_source_idx')
    .on('instance_clones')
    .columns(['source_id'])
    .execute();

  await withId(db.schema.createTable('backups'), dialect)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('instance_id', 'integer', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('slot', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('available', 'integer', defaultZero)
    .addColumn('label', 'text')
    .addColumn('contents', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addColumn('finished', 'text')
    .execute();
  await db.schema
    .createIndex('backups_instance_idx')
    .on('backups')
    .columns(['instance_id', 'id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('backups').ifExists().execute();
  await db.schema.dropTable('instance_clones').ifExists().execute();
  await db.schema.alterTable('instances').dropColumn('resume_status').execute();
  await db.schema.alterTable('instances').dropColumn('pending_migration').execute();
}
