import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/** Payment methods (cards): last four digits, type and expiry only. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('payment_methods'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('type', 'text', notNull)
    .addColumn('card_type', 'text', notNull)
    .addColumn('last_four', 'text', notNull)
    .addColumn('expiry_month', 'integer', notNull)
    .addColumn('expiry_year', 'integer', notNull)
    .addColumn('is_default', 'integer', defaultZero)
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created', 'text', notNull)
    .addColumn('created_ms', bigint(dialect), notNull)
    .execute();
  await db.schema
    .createIndex('payment_methods_account_idx')
    .on('payment_methods')
    .columns(['account_id', 'active', 'id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('payment_methods').ifExists().execute();
}
