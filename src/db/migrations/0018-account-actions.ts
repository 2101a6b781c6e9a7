import { bigint, type MigrationContext, notNull, withId } from './helpers.js';

/** Service (entity) transfers between accounts, and the operator's scheduled maintenance. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('service_transfers'), dialect)
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('receiver_account_id', 'integer')
    .addColumn('status', 'text', notNull)
    .addColumn('entities', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addColumn('expiry', 'text', notNull)
    .addColumn('expiry_ms', bigint(dialect), notNull)
    .execute();
  await db.schema
    .createIndex('service_transfers_account_idx')
    .on('service_transfers')
    .columns(['account_id', 'status'])
    .execute();
  await db.schema
    .createIndex('service_transfers_receiver_idx')
    .on('service_transfers')
    .columns(['receiver_account_id'])
    .execute();

  await withId(db.schema.createTable('maintenances'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('reason', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('when', 'text', notNull)
    .addColumn('when_ms', bigint(dialect), notNull)
    .addColumn('until', 'text', notNull)
    .addColumn('until_ms', bigint(dialect), notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('maintenances_entity_idx')
    .on('maintenances')
    .columns(['entity_type', 'entity_id', 'status'])
    .execute();
  await db.schema
    .createIndex('maintenances_account_idx')
    .on('maintenances')
    .columns(['account_id', 'status'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('maintenances').ifExists().execute();
  await db.schema.dropTable('service_transfers').ifExists().execute();
}
