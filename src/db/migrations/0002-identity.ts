import { sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

/**
 * Usernames are unique regardless of case ("Alice" and "alice" are one name), on both engines.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .createIndex('users_username_lower_uq')
    .on('users')
    .unique()
    .expression(sql`lower(username)`)
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('users_username_lower_uq').ifExists().execute();
}
