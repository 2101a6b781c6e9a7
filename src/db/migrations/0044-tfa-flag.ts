import { sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

/**
 * `users.two_factor_auth` reflects the TOTP state of the sign-in (a confirmed secret in
 * `user_credentials`). Earlier, `PUT /profile` could set the flag alone; rows where the two
 * disagree are brought back to what sign-in enforces.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await sql`update users set two_factor_auth = case when exists (
      select 1 from user_credentials c where c.user_id = users.id and c.tfa_secret is not null
    ) then 1 else 0 end`.execute(db);
}

/** Nothing to undo: the flags were only corrected. */
export async function down(): Promise<void> {}
