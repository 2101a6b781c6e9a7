import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Private images (their listed record stays in `images`, keyed `private/<id>`, with `private_id`
 * for grants) and StackScripts with their deployments.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('private_images'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('size', 'integer', defaultZero)
    .addColumn('cloud_init', 'integer', defaultZero)
    .addColumn('region', 'text')
    .addColumn('created_by', 'text', notNull)
    .addColumn('source_instance_id', 'integer')
    .addColumn('source_disk_id', 'integer')
    .addColumn('filesystem', 'text', notNull)
    .addColumn('upload_token_hash', 'text')
    .addColumn('upload_expires', bigint(dialect))
    .addColumn('upload_event_id', 'integer')
    .addColumn('stored_bytes', bigint(dialect), defaultZero)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('private_images_account_idx')
    .on('private_images')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('private_images_upload_idx')
    .on('private_images')
    .columns(['upload_token_hash'])
    .execute();
  await db.schema.alterTable('images').addColumn('private_id', 'integer').execute();

  await withId(db.schema.createTable('stackscripts'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('username', 'text', notNull)
    .addColumn('user_gravatar_id', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('images', 'text', notNull)
    .addColumn('script', 'text', notNull)
    .addColumn('rev_note', 'text', notNull)
    .addColumn('user_defined_fields', 'text', notNull)
    .addColumn('is_public', 'integer', defaultZero)
    .addColumn('deployments_total', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('stackscripts_account_idx')
    .on('stackscripts')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('stackscripts_public_idx')
    .on('stackscripts')
    .columns(['is_public', 'id'])
    .execute();
  await db.schema
    .createTable('stackscript_deployments')
    .addColumn('instance_id', 'integer', (c) =>
      c.primaryKey().references('instances.id').onDelete('cascade'),
    )
    .addColumn('stackscript_id', 'integer', (c) =>
      c.notNull().references('stackscripts.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', notNull)
    .addColumn('data', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('stackscript_deployments_script_idx')
    .on('stackscript_deployments')
    .columns(['stackscript_id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('stackscript_deployments').ifExists().execute();
  await db.schema.dropTable('stackscripts').ifExists().execute();
  await db.schema.dropTable('private_images').ifExists().execute();
  await db.schema.alterTable('images').dropColumn('private_id').execute();
}
