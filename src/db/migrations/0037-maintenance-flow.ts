import { bigint, type MigrationContext } from './helpers.js';

/**
 * Scheduled maintenance that follows the instance's maintenance policy: what the newer wire's
 * `/account/maintenance` shows (`description`, `source`, `not_before`, `start_time`,
 * `complete_time`, `maintenance_policy_set` frozen once it starts), whether the type follows the
 * policy, the maintenance's event, and the status the instance comes back to.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  const t = () => db.schema.alterTable('maintenances');
  await t()
    .addColumn('description', 'text', (c) => c.notNull().defaultTo('scheduled'))
    .execute();
  await t()
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('platform'))
    .execute();
  await t()
    .addColumn('by_policy', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await t().addColumn('not_before', 'text').execute();
  await t().addColumn('not_before_ms', bigint(dialect)).execute();
  await t().addColumn('start_time', 'text').execute();
  await t().addColumn('complete_time', 'text').execute();
  await t().addColumn('policy', 'text').execute();
  await t().addColumn('event_id', 'integer').execute();
  await t().addColumn('prior_status', 'text').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const c of [
    'prior_status',
    'event_id',
    'policy',
    'complete_time',
    'start_time',
    'not_before_ms',
    'not_before',
    'by_policy',
    'source',
    'description',
  ]) {
    await db.schema.alterTable('maintenances').dropColumn(c).execute();
  }
}
