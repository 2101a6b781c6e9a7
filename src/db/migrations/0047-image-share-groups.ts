import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Image share groups (`/images/sharegroups`): a producer account's groups, the private images
 * they share (`shared/<id>` entries), the tokens consumer accounts draw to join one, and the
 * members a producer adds with such a token.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('image_share_groups'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('is_suspended', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text')
    .addColumn('expiry', 'text')
    .execute();
  await db.schema
    .createIndex('image_share_groups_account_idx')
    .on('image_share_groups')
    .column('account_id')
    .execute();
  await withId(db.schema.createTable('image_shares'), dialect)
    .addColumn('group_id', 'integer', (c) =>
      c.notNull().references('image_share_groups.id').onDelete('cascade'),
    )
    .addColumn('image_id', 'integer', (c) =>
      c.notNull().references('private_images.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text')
    .execute();
  await db.schema
    .createIndex('image_shares_group_image_idx')
    .on('image_shares')
    .columns(['group_id', 'image_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('image_shares_image_idx')
    .on('image_shares')
    .column('image_id')
    .execute();
  await withId(db.schema.createTable('image_share_tokens'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('token_uuid', 'text', (c) => c.notNull().unique())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', notNull)
    .addColumn('group_id', 'integer', (c) =>
      c.notNull().references('image_share_groups.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text')
    .addColumn('expiry', 'text')
    .execute();
  await db.schema
    .createIndex('image_share_tokens_account_idx')
    .on('image_share_tokens')
    .column('account_id')
    .execute();
  await withId(db.schema.createTable('image_share_members'), dialect)
    .addColumn('group_id', 'integer', (c) =>
      c.notNull().references('image_share_groups.id').onDelete('cascade'),
    )
    .addColumn('token_id', 'integer', (c) =>
      c.notNull().unique().references('image_share_tokens.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text')
    .addColumn('expiry', 'text')
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  for (const t of [
    'image_share_members',
    'image_share_tokens',
    'image_shares',
    'image_share_groups',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
