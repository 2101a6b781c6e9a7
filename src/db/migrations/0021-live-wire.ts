import type { MigrationContext } from './helpers.js';

/**
 * What the real wire needs stored: the instance status a client last read (transitional statuses
 * hold until read, up to a limit), an instance's maintenance policy (null: the account's) and the
 * version of a firewall's rules (`rules.version`).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('instances').addColumn('seen_status', 'text').execute();
  await db.schema.alterTable('instances').addColumn('maintenance_policy', 'text').execute();
  await db.schema
    .alterTable('firewalls')
    .addColumn('rules_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('firewalls').dropColumn('rules_version').execute();
  await db.schema.alterTable('instances').dropColumn('maintenance_policy').execute();
  await db.schema.alterTable('instances').dropColumn('seen_status').execute();
}
