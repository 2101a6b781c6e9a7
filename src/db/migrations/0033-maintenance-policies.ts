import type { MigrationContext } from './helpers.js';

/**
 * The account's default maintenance policy (`maintenance_policy` in `/account/settings`): the
 * policy a new instance follows when its create names none. Existing accounts keep the real
 * service's default, `compute/migrate`.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('maintenance_policy', 'text', (c) => c.notNull().defaultTo('compute/migrate'))
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('maintenance_policy').execute();
}
