import type { MigrationContext } from './helpers.js';

/**
 * Local disk encryption (`disk_encryption` of an instance and of its disks): chosen at create
 * and at rebuild in a region with the `Disk Encryption` capability. Existing instances are
 * unencrypted, as they were shown.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('instances')
    .addColumn('disk_encryption', 'text', (c) => c.notNull().defaultTo('disabled'))
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('instances').dropColumn('disk_encryption').execute();
}
