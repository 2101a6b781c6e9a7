import type { MigrationContext } from './helpers.js';

/**
 * The regions an object storage key works in: a JSON array of region ids, or null for every
 * region (keys made before this migration, and keys created without `regions`).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('obj_keys').addColumn('regions', 'text').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('obj_keys').dropColumn('regions').execute();
}
