import { bigint, type MigrationContext, notNull } from './helpers.js';

/**
 * The emulator controls' settings (clock, timing, faults, the operator token's hash), shared by
 * every process on the database, the remaining counts of counted fault rules, and the shared
 * rate-limit counters (PostgreSQL, several API processes).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('emulator_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .addColumn('version', bigint(dialect), notNull)
    .execute();
  await db.schema
    .createTable('emulator_fault_counters')
    .addColumn('rule_id', 'text', (c) => c.primaryKey())
    .addColumn('remaining', 'integer', notNull)
    .execute();
  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('key', 'text', notNull)
    .addColumn('window_start', bigint(dialect), notNull)
    .addColumn('count', 'integer', notNull)
    .addColumn('reset_ms', bigint(dialect), notNull)
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['key', 'window_start'])
    .execute();
  await db.schema
    .createIndex('rate_limit_counters_reset_idx')
    .on('rate_limit_counters')
    .column('reset_ms')
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of ['rate_limit_counters', 'emulator_fault_counters', 'emulator_settings']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
