import { sql } from 'kysely';
import { bigint, defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * The S3 data plane's bucket configurations and object versions.
 *
 * Buckets keep their S3 configurations as JSON documents: versioning, object lock, access
 * control grants, policy, CORS rules, lifecycle rules, website and tags.
 *
 * `obj_objects` holds every version of every object: `version_id` ('null' for the null version),
 * `is_latest` (exactly one latest row per name, a partial unique index) and delete markers; with
 * the grants, the writer (`owner_id`), tags, object lock state and customer encryption of each
 * version. SQLite cannot drop the old (bucket, name) unique constraint, so it rebuilds the table.
 * Uploads carry what their object will carry, and once completed the version they made (a
 * repeated CompleteMultipartUpload is answered with it, as S3 answers it).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  for (const col of ['versioning', 'lock_config', 'grants', 'policy', 'cors', 'lifecycle']) {
    await db.schema.alterTable('obj_buckets').addColumn(col, 'text').execute();
  }
  for (const col of ['website', 'tags']) {
    await db.schema.alterTable('obj_buckets').addColumn(col, 'text').execute();
  }
  await db.schema
    .alterTable('obj_buckets')
    .addColumn('object_lock', 'integer', defaultZero)
    .execute();

  const versionColumns = ['grants', 'tags', 'lock_mode', 'lock_until', 'sse'] as const;
  if (dialect === 'postgres') {
    await db.schema
      .alterTable('obj_objects')
      .addColumn('version_id', 'text', (c) => c.notNull().defaultTo('null'))
      .execute();
    await db.schema
      .alterTable('obj_objects')
      .addColumn('is_latest', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .alterTable('obj_objects')
      .addColumn('delete_marker', 'integer', defaultZero)
      .execute();
    await db.schema.alterTable('obj_objects').addColumn('owner_id', 'integer').execute();
    await db.schema
      .alterTable('obj_objects')
      .addColumn('legal_hold', 'integer', defaultZero)
      .execute();
    for (const col of versionColumns) {
      await db.schema.alterTable('obj_objects').addColumn(col, 'text').execute();
    }
    await db.schema.alterTable('obj_objects').dropConstraint('obj_objects_name_uq').execute();
    await db.schema
      .alterTable('obj_objects')
      .addUniqueConstraint('obj_objects_version_uq', ['bucket_id', 'name', 'version_id'])
      .execute();
  } else {
    const bytesText = sql`text`;
    await withId(db.schema.createTable('obj_objects_v'), dialect)
      .addColumn('bucket_id', 'integer', (c) =>
        c.notNull().references('obj_buckets.id').onDelete('cascade'),
      )
      .addColumn('name', bytesText, notNull)
      .addColumn('version_id', 'text', (c) => c.notNull().defaultTo('null'))
      .addColumn('is_latest', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('delete_marker', 'integer', defaultZero)
      .addColumn('size', bigint(dialect), notNull)
      .addColumn('etag', 'text', notNull)
      .addColumn('content_type', 'text', notNull)
      .addColumn('acl', 'text', notNull)
      .addColumn('grants', 'text')
      .addColumn('owner_id', 'integer')
      .addColumn('metadata', 'text', notNull)
      .addColumn('blobs', 'text', notNull)
      .addColumn('last_modified', 'text', notNull)
      .addColumn('tags', 'text')
      .addColumn('lock_mode', 'text')
      .addColumn('lock_until', 'text')
      .addColumn('legal_hold', 'integer', defaultZero)
      .addColumn('sse', 'text')
      .addUniqueConstraint('obj_objects_version_uq', ['bucket_id', 'name', 'version_id'])
      .execute();
    await sql`insert into obj_objects_v (id, bucket_id, name, size, etag, content_type, acl,
      metadata, blobs, last_modified)
      select id, bucket_id, name, size, etag, content_type, acl, metadata, blobs, last_modified
      from obj_objects`.execute(db);
    await db.schema.dropTable('obj_objects').execute();
    await db.schema.alterTable('obj_objects_v').renameTo('obj_objects').execute();
  }
  // One latest row per name; listings walk (bucket, is_latest, name).
  await db.schema
    .createIndex('obj_objects_latest_uq')
    .on('obj_objects')
    .columns(['bucket_id', 'name'])
    .unique()
    .where(sql.ref('is_latest'), '=', 1)
    .execute();
  await db.schema
    .createIndex('obj_objects_list_idx')
    .on('obj_objects')
    .columns(['bucket_id', 'is_latest', 'name'])
    .execute();

  for (const col of ['grants', 'tags', 'lock_mode', 'lock_until', 'sse', 'completed']) {
    await db.schema.alterTable('obj_uploads').addColumn(col, 'text').execute();
  }
  await db.schema.alterTable('obj_uploads').addColumn('owner_id', 'integer').execute();
  await db.schema
    .alterTable('obj_uploads')
    .addColumn('legal_hold', 'integer', defaultZero)
    .execute();
  // UploadPartCopy's parts and those of customer-encrypted uploads record how they were written.
  await db.schema.alterTable('obj_parts').addColumn('sse', 'text').execute();
}

export async function down({ db, dialect }: MigrationContext): Promise<void> {
  await db.schema.alterTable('obj_parts').dropColumn('sse').execute();
  for (const col of [
    'grants',
    'tags',
    'lock_mode',
    'lock_until',
    'sse',
    'completed',
    'owner_id',
    'legal_hold',
  ]) {
    await db.schema.alterTable('obj_uploads').dropColumn(col).execute();
  }
  await db.schema.dropIndex('obj_objects_list_idx').execute();
  await db.schema.dropIndex('obj_objects_latest_uq').execute();
  // Only the latest version of each name survives; delete markers go.
  await db
    .deleteFrom('obj_objects' as never)
    .where(sql.ref('is_latest'), '=', 0)
    .execute();
  await db
    .deleteFrom('obj_objects' as never)
    .where(sql.ref('delete_marker'), '=', 1)
    .execute();
  if (dialect === 'postgres') {
    await db.schema.alterTable('obj_objects').dropConstraint('obj_objects_version_uq').execute();
    for (const col of [
      'version_id',
      'is_latest',
      'delete_marker',
      'grants',
      'owner_id',
      'tags',
      'lock_mode',
      'lock_until',
      'legal_hold',
      'sse',
    ]) {
      await db.schema.alterTable('obj_objects').dropColumn(col).execute();
    }
    await db.schema
      .alterTable('obj_objects')
      .addUniqueConstraint('obj_objects_name_uq', ['bucket_id', 'name'])
      .execute();
  } else {
    await withId(db.schema.createTable('obj_objects_old'), dialect)
      .addColumn('bucket_id', 'integer', (c) =>
        c.notNull().references('obj_buckets.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', notNull)
      .addColumn('size', bigint(dialect), notNull)
      .addColumn('etag', 'text', notNull)
      .addColumn('content_type', 'text', notNull)
      .addColumn('acl', 'text', notNull)
      .addColumn('metadata', 'text', notNull)
      .addColumn('blobs', 'text', notNull)
      .addColumn('last_modified', 'text', notNull)
      .addUniqueConstraint('obj_objects_name_uq', ['bucket_id', 'name'])
      .execute();
    await sql`insert into obj_objects_old (id, bucket_id, name, size, etag, content_type, acl,
      metadata, blobs, last_modified)
      select id, bucket_id, name, size, etag, content_type, acl, metadata, blobs, last_modified
      from obj_objects`.execute(db);
    await db.schema.dropTable('obj_objects').execute();
    await db.schema.alterTable('obj_objects_old').renameTo('obj_objects').execute();
  }
  for (const col of [
    'versioning',
    'lock_config',
    'grants',
    'policy',
    'cors',
    'lifecycle',
    'website',
    'tags',
    'object_lock',
  ]) {
    await db.schema.alterTable('obj_buckets').dropColumn(col).execute();
  }
}
