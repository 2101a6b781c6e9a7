import type { MigrationContext } from './helpers.js';

/**
 * The user who created each object storage key: a key is removed with its user, and a restricted
 * creator's key works only while the creator may still create keys. Keys made before this
 * migration (and the account's internal signing key) have no owner and stay account keys.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('obj_keys')
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('obj_keys_user_idx').on('obj_keys').column('user_id').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('obj_keys_user_idx').ifExists().execute();
  await db.schema.alterTable('obj_keys').dropColumn('user_id').execute();
}
