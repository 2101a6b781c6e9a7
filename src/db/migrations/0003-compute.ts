import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/** Compute instances, disks, configs, interfaces, run periods, IPv4 addresses and tags. */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('instances'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('image', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('group_label', 'text', notNull)
    .addColumn('host_uuid', 'text', notNull)
    .addColumn('watchdog_enabled', 'integer', defaultZero)
    .addColumn('alerts', 'text', notNull)
    .addColumn('backups_enabled', 'integer', defaultZero)
    .addColumn('backups_day', 'text')
    .addColumn('backups_window', 'text')
    .addColumn('backups_last_successful', 'text')
    .addColumn('has_user_data', 'integer', defaultZero)
    .addColumn('ipv6', 'text')
    .addColumn('last_booted_config_id', 'integer')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('instances_account_idx')
    .on('instances')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('instances_label_idx')
    .on('instances')
    .columns(['account_id', 'label'])
    .execute();

  await withId(db.schema.createTable('disks'), dialect)
    .addColumn('instance_id', 'integer', (c) =>
      c.notNull().references('instances.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('filesystem', 'text', notNull)
    .addColumn('image', 'text')
    .addColumn('used_mb', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('disks_instance_idx')
    .on('disks')
    .columns(['instance_id', 'id'])
    .execute();

  await withId(db.schema.createTable('configs'), dialect)
    .addColumn('instance_id', 'integer', (c) =>
      c.notNull().references('instances.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('kernel', 'text', notNull)
    .addColumn('comments', 'text')
    .addColumn('memory_limit', 'integer', notNull)
    .addColumn('run_level', 'text', notNull)
    .addColumn('virt_mode', 'text', notNull)
    .addColumn('root_device', 'text', notNull)
    .addColumn('helpers', 'text', notNull)
    .addColumn('devices', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('configs_instance_idx')
    .on('configs')
    .columns(['instance_id', 'id'])
    .execute();

  await withId(db.schema.createTable('config_interfaces'), dialect)
    .addColumn('config_id', 'integer', (c) =>
      c.notNull().references('configs.id').onDelete('cascade'),
    )
    .addColumn('instance_id', 'integer', notNull)
    .addColumn('position', 'integer', notNull)
    .addColumn('purpose', 'text', notNull)
    .addColumn('label', 'text')
    .addColumn('ipam_address', 'text')
    .addColumn('is_primary', 'integer', defaultZero)
    .addColumn('vpc_id', 'integer')
    .addColumn('subnet_id', 'integer')
    .addColumn('ipv4_vpc', 'text')
    .addColumn('ipv4_nat_1_1', 'text')
    .addColumn('ip_ranges', 'text')
    .execute();
  await db.schema
    .createIndex('config_interfaces_config_idx')
    .on('config_interfaces')
    .columns(['config_id', 'position'])
    .execute();
  await db.schema
    .createIndex('config_interfaces_instance_idx')
    .on('config_interfaces')
    .columns(['instance_id', 'purpose'])
    .execute();

  await withId(db.schema.createTable('instance_runs'), dialect)
    .addColumn('instance_id', 'integer', notNull)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('started_ms', bigint(dialect), notNull)
    .addColumn('stopped_ms', bigint(dialect))
    .execute();
  await db.schema
    .createIndex('instance_runs_instance_idx')
    .on('instance_runs')
    .columns(['instance_id', 'started_ms'])
    .execute();

  await withId(db.schema.createTable('ip_addresses'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('instance_id', 'integer', (c) => c.references('instances.id').onDelete('set null'))
    .addColumn('region', 'text', notNull)
    .addColumn('address', 'text', notNull)
    .addColumn('address_num', bigint(dialect), notNull)
    .addColumn('kind', 'text', notNull)
    .addColumn('prefix', 'integer', notNull)
    .addColumn('gateway', 'text')
    .addColumn('subnet_mask', 'text', notNull)
    .addColumn('rdns', 'text')
    .addColumn('created', 'text', notNull)
    .addUniqueConstraint('ip_addresses_region_address_uq', ['region', 'address'])
    .execute();
  await db.schema
    .createIndex('ip_addresses_alloc_idx')
    .on('ip_addresses')
    .columns(['region', 'kind', 'address_num'])
    .execute();
  await db.schema
    .createIndex('ip_addresses_instance_idx')
    .on('ip_addresses')
    .columns(['instance_id', 'kind'])
    .execute();
  await db.schema
    .createIndex('ip_addresses_account_idx')
    .on('ip_addresses')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('ip_allocation_locks')
    .addColumn('region', 'text', notNull)
    .addColumn('kind', 'text', notNull)
    .addPrimaryKeyConstraint('ip_allocation_locks_pk', ['region', 'kind'])
    .execute();

  await db.schema
    .createTable('entity_tags')
    .addColumn('account_id', 'integer', notNull)
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('tag', 'text', notNull)
    .addPrimaryKeyConstraint('entity_tags_pk', ['entity_type', 'entity_id', 'tag'])
    .execute();
  await db.schema
    .createIndex('entity_tags_tag_idx')
    .on('entity_tags')
    .columns(['account_id', 'tag'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of [
    'entity_tags',
    'ip_allocation_locks',
    'ip_addresses',
    'instance_runs',
    'config_interfaces',
    'configs',
    'disks',
    'instances',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
