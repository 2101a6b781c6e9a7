import { sql } from 'kysely';
import { defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/** The tags of an account (`/tags`), and NodeBalancers with their configs and nodes. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('tags'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('tags_account_label_uq')
    .on('tags')
    .columns(['account_id', 'label'])
    .unique()
    .execute();
  // Tags already set on instances and volumes become tags of their account.
  await sql`insert into tags (account_id, label)
    select account_id, tag from entity_tags group by account_id, tag`.execute(db);

  await withId(db.schema.createTable('nodebalancers'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('ipv4', 'text', notNull)
    .addColumn('ipv6', 'text')
    .addColumn('client_conn_throttle', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('nodebalancers_account_label_uq')
    .on('nodebalancers')
    .columns(['account_id', 'label'])
    .unique()
    .execute();

  await withId(db.schema.createTable('nodebalancer_configs'), dialect)
    .addColumn('nodebalancer_id', 'integer', (c) =>
      c.notNull().references('nodebalancers.id').onDelete('cascade'),
    )
    .addColumn('port', 'integer', notNull)
    .addColumn('protocol', 'text', notNull)
    .addColumn('algorithm', 'text', notNull)
    .addColumn('stickiness', 'text', notNull)
    .addColumn('check_type', 'text', notNull)
    .addColumn('check_interval', 'integer', notNull)
    .addColumn('check_timeout', 'integer', notNull)
    .addColumn('check_attempts', 'integer', notNull)
    .addColumn('check_path', 'text', notNull)
    .addColumn('check_body', 'text', notNull)
    .addColumn('check_passive', 'integer', notNull)
    .addColumn('proxy_protocol', 'text', notNull)
    .addColumn('cipher_suite', 'text', notNull)
    .addColumn('ssl_cert', 'text')
    .addColumn('ssl_key_hash', 'text')
    .addColumn('ssl_commonname', 'text')
    .addColumn('ssl_fingerprint', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('nodebalancer_configs_port_uq')
    .on('nodebalancer_configs')
    .columns(['nodebalancer_id', 'port'])
    .unique()
    .execute();

  await withId(db.schema.createTable('nodebalancer_nodes'), dialect)
    .addColumn('config_id', 'integer', (c) =>
      c.notNull().references('nodebalancer_configs.id').onDelete('cascade'),
    )
    .addColumn('nodebalancer_id', 'integer', (c) =>
      c.notNull().references('nodebalancers.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('ip', 'text', notNull)
    .addColumn('port', 'integer', notNull)
    .addColumn('weight', 'integer', notNull)
    .addColumn('mode', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('nodebalancer_nodes_config_address_uq')
    .on('nodebalancer_nodes')
    .columns(['config_id', 'ip', 'port'])
    .unique()
    .execute();
  await db.schema
    .createIndex('nodebalancer_nodes_ip_idx')
    .on('nodebalancer_nodes')
    .columns(['ip'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of ['nodebalancer_nodes', 'nodebalancer_configs', 'nodebalancers', 'tags']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
