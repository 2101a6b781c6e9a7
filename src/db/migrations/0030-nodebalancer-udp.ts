import type { MigrationContext } from './helpers.js';

/**
 * UDP NodeBalancers: a NodeBalancer's UDP session throttle and a config's UDP health-check port
 * (src/modules/nodebalancers/nodebalancers.rules.ts holds which fields go with the udp protocol).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('nodebalancers')
    .addColumn('client_udp_sess_throttle', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('nodebalancer_configs')
    .addColumn('udp_check_port', 'integer', (c) => c.notNull().defaultTo(80))
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('nodebalancer_configs').dropColumn('udp_check_port').execute();
  await db.schema.alterTable('nodebalancers').dropColumn('client_udp_sess_throttle').execute();
}
