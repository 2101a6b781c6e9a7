import type { MigrationContext } from './helpers.js';

/**
 * Storage: uploaded images' bytes live in the blob store under a fresh key (`blob_key`), and a
 * NodeBalancer config's TLS private key is kept sealed (`ssl_key_sealed`, beside its hash).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('private_images').addColumn('blob_key', 'text').execute();
  await db.schema.alterTable('nodebalancer_configs').addColumn('ssl_key_sealed', 'text').execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('nodebalancer_configs').dropColumn('ssl_key_sealed').execute();
  await db.schema.alterTable('private_images').dropColumn('blob_key').execute();
}
