import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Firewall rule sets (`/networking/firewalls/rulesets`): an account's named, ordered list of rules
 * of one direction, versioned. A deleted rule set keeps its row with `deleted` set (the real
 * service still lists it).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('firewall_rulesets'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text', notNull)
    // inbound | outbound
    .addColumn('type', 'text', notNull)
    // JSON array of rules, as the rules of `firewalls.rules`.
    .addColumn('rules', 'text', notNull)
    .addColumn('version', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addColumn('deleted', 'text')
    .execute();
  await db.schema
    .createIndex('firewall_rulesets_account_idx')
    .on('firewall_rulesets')
    .columns(['account_id', 'id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('firewall_rulesets').ifExists().execute();
}
