import { bigint, type MigrationContext, notNull } from './helpers.js';

/**
 * The heartbeats of the processes that run jobs (`stratus serve` with its in-process worker,
 * `stratus worker`): health lists them, and readiness fails while jobs wait and none was seen
 * lately. Not state: reset and snapshots leave the table alone.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('job_workers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', notNull)
    .addColumn('host', 'text', notNull)
    .addColumn('pid', 'integer', notNull)
    .addColumn('version', 'text', notNull)
    .addColumn('started', 'text', notNull)
    .addColumn('last_seen_ms', bigint(dialect), notNull)
    .addColumn('steps', bigint(dialect), (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('job_workers').ifExists().execute();
}
