import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

/**
 * The web console is a public OAuth client of the login service, registered by Stratus itself:
 * a system client that belongs to no account (`account_id` null, so no account lists, changes or
 * deletes it) and that every account's users sign in through, as the provider's own console is
 * a client of its login service. Its redirect URI is path-absolute: the login service resolves
 * it against the address the browser reached the server at (src/modules/oauth/console-client.ts).
 * A row written here is part of the migration baseline, so a reset puts it back.
 */
export const CONSOLE_CLIENT_ROW = {
  client_id: 'stratus-console',
  label: 'Stratus console',
  redirect_uri: '/console/callback',
  public: 1,
  status: 'active',
  // Never a hash of anything: a public client has no secret, and no secret can match this.
  secret_hash: '-',
  created: '2026-01-01T00:00:00',
} as const;

/**
 * SQLite cannot drop a NOT NULL: the table is rebuilt from its own stored definition (so columns
 * other migrations added survive), with foreign keys off so that dropping the old table does not
 * cascade into the authorized apps, codes and sessions that reference it.
 */
async function rebuildSqlite(db: Kysely<unknown>, nullable: boolean): Promise<void> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = 'oauth_clients'`.execute(db);
  const table = rows.find((r) => r.type === 'table')?.sql;
  if (!table) throw new Error('oauth_clients has no stored definition');
  const from = nullable ? /"account_id" integer not null/i : /"account_id" integer(?! not null)/i;
  if (!from.test(table)) throw new Error('oauth_clients.account_id is not as expected');
  const created = table
    .replace(from, nullable ? '"account_id" integer' : '"account_id" integer not null')
    .replace(/^create table "oauth_clients"/i, 'create table "oauth_clients_rebuilt"');
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin`.execute(db);
    await sql.raw(created).execute(db);
    await sql`insert into oauth_clients_rebuilt select * from oauth_clients`.execute(db);
    await sql`drop table oauth_clients`.execute(db);
    await sql`alter table oauth_clients_rebuilt rename to oauth_clients`.execute(db);
    for (const r of rows) if (r.type === 'index' && r.sql) await sql.raw(r.sql).execute(db);
    const broken = await sql`pragma foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error('oauth_clients rebuild broke a foreign key');
    await sql`commit`.execute(db);
  } catch (err) {
    await sql`rollback`.execute(db);
    throw err;
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export async function up({ db, dialect }: MigrationContext): Promise<void> {
  if (dialect === 'postgres')
    await sql`alter table oauth_clients alter column account_id drop not null`.execute(db);
  else await rebuildSqlite(db, true);
  await db
    .insertInto('oauth_clients' as never)
    .values({ ...CONSOLE_CLIENT_ROW, account_id: null } as never)
    .execute();
}

export async function down({ db, dialect }: MigrationContext): Promise<void> {
  await sql`delete from oauth_clients where account_id is null`.execute(db);
  if (dialect === 'postgres')
    await sql`alter table oauth_clients alter column account_id set not null`.execute(db);
  else await rebuildSqlite(db, false);
}
