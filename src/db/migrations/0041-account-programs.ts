import { type MigrationContext, notNull } from './helpers.js';

/**
 * What an account signs up to beside its entities: beta program enrollments, the agreements it
 * acknowledged, and the parent/child link (a child account's proxy user acts for the parent).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('beta_enrollments')
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('beta_id', 'text', notNull)
    .addColumn('enrolled', 'text', notNull)
    .addPrimaryKeyConstraint('beta_enrollments_pk', ['account_id', 'beta_id'])
    .execute();

  await db.schema
    .createTable('account_agreements')
    .addColumn('account_id', 'integer', (c) =>
      c.primaryKey().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('eu_model', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('master_service_agreement', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('privacy_policy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'text', notNull)
    .execute();

  // No account_id column: a reset of one account keeps the link (as it keeps users), a full
  // reset removes it with the accounts.
  await db.schema
    .createTable('child_accounts')
    .addColumn('child_id', 'integer', (c) =>
      c.primaryKey().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('parent_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    // Not a foreign key (a reset of the child, which goes through users' rows, keeps the link);
    // a proxy user that no longer exists is made again when a token is asked for.
    .addColumn('proxy_user_id', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('child_accounts_parent_idx')
    .on('child_accounts')
    .columns(['parent_id', 'child_id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('child_accounts').ifExists().execute();
  await db.schema.dropTable('account_agreements').ifExists().execute();
  await db.schema.dropTable('beta_enrollments').ifExists().execute();
}
