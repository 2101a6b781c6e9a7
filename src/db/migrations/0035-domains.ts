import { bigint, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Domains (DNS zones) and their records, and the copy of each slave zone transferred from its
 * masters. `domain_key` is the zone's name lowercased without a trailing dot: unique across every
 * account, as the reference says ("there cannot be two Domains representing the same domain").
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('domains'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('domain', 'text', notNull)
    .addColumn('domain_key', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('display_group', 'text', notNull)
    .addColumn('soa_email', 'text', notNull)
    .addColumn('refresh_sec', 'integer', notNull)
    .addColumn('retry_sec', 'integer', notNull)
    .addColumn('expire_sec', 'integer', notNull)
    .addColumn('ttl_sec', 'integer', notNull)
    .addColumn('master_ips', 'text', notNull)
    .addColumn('axfr_ips', 'text', notNull)
    .addColumn('serial', bigint(dialect), notNull)
    .addColumn('version', bigint(dialect), notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('domains_domain_key_idx')
    .on('domains')
    .column('domain_key')
    .unique()
    .execute();
  await db.schema.createIndex('domains_account_idx').on('domains').column('account_id').execute();

  await withId(db.schema.createTable('domain_records'), dialect)
    .addColumn('domain_id', 'integer', (c) =>
      c.notNull().references('domains.id').onDelete('cascade'),
    )
    .addColumn('type', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('target', 'text', notNull)
    .addColumn('priority', 'integer', notNull)
    .addColumn('weight', 'integer', notNull)
    .addColumn('port', 'integer', notNull)
    .addColumn('service', 'text')
    .addColumn('protocol', 'text')
    .addColumn('tag', 'text')
    .addColumn('ttl_sec', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('domain_records_domain_idx')
    .on('domain_records')
    .columns(['domain_id', 'name'])
    .execute();

  await db.schema
    .createTable('domain_slave_zones')
    .addColumn('domain_id', 'integer', (c) =>
      c.primaryKey().references('domains.id').onDelete('cascade'),
    )
    .addColumn('serial', bigint(dialect))
    .addColumn('records', 'text')
    .addColumn('transferred', 'text')
    .addColumn('checked_ms', bigint(dialect))
    .addColumn('error', 'text', notNull)
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('domain_slave_zones').ifExists().execute();
  await db.schema.dropTable('domain_records').ifExists().execute();
  await db.schema.dropTable('domains').ifExists().execute();
}
