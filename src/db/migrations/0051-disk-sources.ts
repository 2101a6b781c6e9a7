import type { MigrationContext } from './helpers.js';

/**
 * Where a disk that is not ready yet gets its bytes, when that is not its image or nothing: a
 * backup's disk (create from a backup, restore) or another disk (clone). Written beside the disk
 * row and removed once the compute driver made the bytes (src/modules/compute/machines.seam.ts).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('disk_sources')
    .addColumn('disk_id', 'integer', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('disk_sources').execute();
}
