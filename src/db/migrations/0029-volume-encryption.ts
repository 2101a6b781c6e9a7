import type { MigrationContext } from './helpers.js';

/**
 * Block storage encryption (`encryption` of a volume): chosen at create in a region with the
 * `Block Storage Encryption` capability, fixed for the volume's life. Existing volumes are
 * unencrypted, as they were shown.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('volumes')
    .addColumn('encryption', 'text', (c) => c.notNull().defaultTo('disabled'))
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('volumes').dropColumn('encryption').execute();
}
