import { sql } from 'kysely';
import { bigint, type MigrationContext, withId } from './helpers.js';

/**
 * The compute driver's rows (src/machines): what a real machine's NoCloud seed carries
 * (`instance_seeds`: the root password's crypt(3) hash, never the password, the public keys and
 * the user data of the last deployment) and the counters the host agent samples from running
 * machines (`machine_samples`), which the statistics read. Both stay empty with the simulated
 * driver.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('instance_seeds')
    .addColumn('instance_id', 'integer', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('root_pass_hash', 'text')
    .addColumn('authorized_keys', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('user_data', 'text')
    .addColumn('updated', 'text', (c) => c.notNull())
    .execute();
  await withId(db.schema.createTable('machine_samples'), dialect)
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('t_ms', bigint(dialect), (c) => c.notNull())
    .addColumn('cpu_ms', bigint(dialect), (c) => c.notNull())
    .addColumn('disk_read_ops', bigint(dialect), (c) => c.notNull())
    .addColumn('disk_write_ops', bigint(dialect), (c) => c.notNull())
    .addColumn('disk_read_bytes', bigint(dialect), (c) => c.notNull())
    .addColumn('disk_write_bytes', bigint(dialect), (c) => c.notNull())
    .addColumn('net_rx_bytes', bigint(dialect))
    .addColumn('net_tx_bytes', bigint(dialect))
    .execute();
  await sql`create index machine_samples_instance_t on machine_samples (instance_id, t_ms)`.execute(
    db,
  );
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('machine_samples').execute();
  await db.schema.dropTable('instance_seeds').execute();
}
