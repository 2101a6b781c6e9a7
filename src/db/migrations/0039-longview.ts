import { defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Longview clients. Their `api_key` and `install_code` are shown to those who may write the
 * client, so they are sealed (platform sealer), not hashed. The account's plan is the existing
 * `accounts.longview_subscription`.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('longview_clients'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('api_key_sealed', 'text', notNull)
    .addColumn('install_code_sealed', 'text', notNull)
    .addColumn('apache', 'integer', defaultZero)
    .addColumn('nginx', 'integer', defaultZero)
    .addColumn('mysql', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('longview_clients_account_idx')
    .on('longview_clients')
    .columns(['account_id', 'id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('longview_clients').ifExists().execute();
}
