import { defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/** Block storage volumes. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('volumes'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('hardware_type', 'text', notNull)
    .addColumn('compute_id', 'integer', (c) => c.references('instances.id').onDelete('set null'))
    .addColumn('persist_across_boots', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('volumes_account_idx')
    .on('volumes')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('volumes_compute_idx')
    .on('volumes')
    .columns(['compute_id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('volumes').ifExists().execute();
}
