import { sql } from 'kysely';
import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Object storage: buckets, objects (metadata; bytes live in a BlobStore), access keys and their
 * bucket permissions, multipart uploads, per-month transfer, and the keyring that encrypts key
 * secrets and TLS private keys. Object names sort in byte order on both engines (S3 order).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  const big = bigint(dialect);
  const bytesText = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;

  await db.schema
    .createTable('obj_keyring')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('obj_buckets'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('cluster', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('acl', 'text', notNull)
    .addColumn('cors_enabled', 'integer', defaultZero)
    .addColumn('size', big, defaultZero)
    .addColumn('objects', 'integer', defaultZero)
    .addColumn('bytes_in', big, defaultZero)
    .addColumn('bytes_out', big, defaultZero)
    .addColumn('ssl_cert', 'text')
    .addColumn('ssl_key_sealed', 'text')
    .addColumn('created', 'text', notNull)
    .addUniqueConstraint('obj_buckets_label_uq', ['cluster', 'label'])
    .execute();
  await db.schema
    .createIndex('obj_buckets_account_idx')
    .on('obj_buckets')
    .columns(['account_id', 'cluster', 'label'])
    .execute();

  await withId(db.schema.createTable('obj_objects'), dialect)
    .addColumn('bucket_id', 'integer', (c) =>
      c.notNull().references('obj_buckets.id').onDelete('cascade'),
    )
    .addColumn('name', bytesText, notNull)
    .addColumn('size', big, notNull)
    .addColumn('etag', 'text', notNull)
    .addColumn('content_type', 'text', notNull)
    .addColumn('acl', 'text', notNull)
    .addColumn('metadata', 'text', notNull)
    .addColumn('blobs', 'text', notNull)
    .addColumn('last_modified', 'text', notNull)
    .addUniqueConstraint('obj_objects_name_uq', ['bucket_id', 'name'])
    .execute();

  await withId(db.schema.createTable('obj_keys'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('access_key', 'text', (c) => c.notNull().unique())
    .addColumn('secret_sealed', 'text', notNull)
    .addColumn('limited', 'integer', defaultZero)
    .addColumn('system', 'integer', defaultZero)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('obj_keys_account_idx')
    .on('obj_keys')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('obj_key_buckets')
    .addColumn('key_id', 'integer', (c) =>
      c.notNull().references('obj_keys.id').onDelete('cascade'),
    )
    .addColumn('cluster', 'text', notNull)
    .addColumn('bucket_name', 'text', notNull)
    .addColumn('permissions', 'text', notNull)
    .addPrimaryKeyConstraint('obj_key_buckets_pk', ['key_id', 'cluster', 'bucket_name'])
    .execute();

  await withId(db.schema.createTable('obj_uploads'), dialect)
    .addColumn('upload_id', 'text', (c) => c.notNull().unique())
    .addColumn('bucket_id', 'integer', (c) =>
      c.notNull().references('obj_buckets.id').onDelete('cascade'),
    )
    .addColumn('name', bytesText, notNull)
    .addColumn('content_type', 'text', notNull)
    .addColumn('acl', 'text', notNull)
    .addColumn('metadata', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();

  await db.schema
    .createTable('obj_parts')
    .addColumn('upload_id', 'integer', (c) =>
      c.notNull().references('obj_uploads.id').onDelete('cascade'),
    )
    .addColumn('part_number', 'integer', notNull)
    .addColumn('size', big, notNull)
    .addColumn('etag', 'text', notNull)
    .addColumn('blob', 'text', notNull)
    .addColumn('last_modified', 'text', notNull)
    .addPrimaryKeyConstraint('obj_parts_pk', ['upload_id', 'part_number'])
    .execute();

  await db.schema
    .createTable('obj_transfer')
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('month', 'text', notNull)
    .addColumn('bytes_out', big, defaultZero)
    .addColumn('bytes_in', big, defaultZero)
    .addPrimaryKeyConstraint('obj_transfer_pk', ['account_id', 'month'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of [
    'obj_transfer',
    'obj_parts',
    'obj_uploads',
    'obj_key_buckets',
    'obj_keys',
    'obj_objects',
    'obj_buckets',
    'obj_keyring',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
