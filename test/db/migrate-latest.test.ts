import { randomBytes } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createDialect } from '../../src/db/dialect.js';
import { migrateTo, migrateToLatest, migrationNames } from '../../src/db/migrator.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';

/**
 * migrateToLatest on a database that has every migration: one look at the migrations table
 * answers, without Kysely's migrator (which first introspects every column of every table);
 * anything else still goes to the migrator.
 */
describe('migrateToLatest', () => {
  let db: Kysely<unknown>;
  let queries: string[];
  let drop: () => Promise<void>;

  beforeEach(async () => {
    let url = 'sqlite::memory:';
    drop = async () => {};
    if (DIALECT === 'postgres') {
      const admin = inject('pgAdminUrl');
      const name = `ml_${randomBytes(4).toString('hex')}`;
      url = await createDatabase(admin, name);
      drop = () => dropDatabase(admin, name);
    }
    queries = [];
    db = new Kysely<unknown>({
      dialect: createDialect(url, { poolSize: 1 }).kysely,
      log: (event) => {
        queries.push(event.query.sql);
      },
    });
    await migrateToLatest(db, DIALECT);
    queries.length = 0;
  });

  afterEach(async () => {
    await db.destroy();
    await drop();
  });

  it('migrateToLatest: a database with every migration is answered by two queries, none introspecting', async () => {
    expect(await migrateToLatest(db, DIALECT)).toEqual([]);
    expect(queries).toHaveLength(2);
    expect(queries.join('\n')).not.toMatch(/pg_attribute|pragma_table_info|sqlite_master.*type/i);
  });

  it('migrateToLatest: a pending migration is still applied', async () => {
    const names = [...migrationNames()].sort();
    const last = names[names.length - 1] as string;
    await migrateTo(db, DIALECT, names[names.length - 2] as string);
    expect(await migrateToLatest(db, DIALECT)).toEqual([last]);
    expect(await migrateToLatest(db, DIALECT)).toEqual([]);
  });

  it('migrateToLatest: a database holding a migration this code lacks is still refused', async () => {
    await sql`insert into stratus_migrations (name, timestamp) values ('9999-from-a-newer-build', '2026-01-01T00:00:00.000Z')`.execute(
      db,
    );
    await expect(migrateToLatest(db, DIALECT)).rejects.toThrow(/9999-from-a-newer-build/);
  });
});
