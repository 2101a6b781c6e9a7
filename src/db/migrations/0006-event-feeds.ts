import { bigint, type MigrationContext } from './helpers.js';

/**
 * One version per account's events feed, bumped in every transaction that writes or changes an
 * event of the account (src/modules/events/events.feed.ts): what lets a cached page be proven
 * current by reading one row, in any process.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('event_feeds')
    .addColumn('account_id', 'integer', (c) =>
      c.primaryKey().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('version', bigint(dialect), (c) => c.notNull())
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('event_feeds').ifExists().execute();
}
