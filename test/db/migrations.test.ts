import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { migrateDownAll, migrateToLatest } from '../../src/db/migrator.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';

async function tableNames(db: Database): Promise<string[]> {
  const q =
    db.dialect === 'postgres'
      ? sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = 'public'`
      : sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
  return (await q.execute(db.db)).rows.map((r) => r.name).sort();
}

describe('migrations', () => {
  it('migrate: every migration goes up, down and up again on an empty database', async () => {
    let url = 'sqlite::memory:';
    let drop = async () => {};
    if (DIALECT === 'postgres') {
      const admin = inject('pgAdminUrl');
      const name = `m_${randomBytes(4).toString('hex')}`;
      url = await createDatabase(admin, name);
      drop = () => dropDatabase(admin, name);
    }
    const db = Database.connect(url, { poolSize: 1 });
    try {
      const applied = await migrateToLatest(db.db, db.dialect);
      expect(applied.length).toBeGreaterThan(0);
      const full = await tableNames(db);
      expect(full).toEqual(
        expect.arrayContaining(['accounts', 'events', 'jobs', 'instances', 'volumes']),
      );
      await migrateDownAll(db.db, db.dialect);
      expect((await tableNames(db)).filter((t) => !t.startsWith('stratus_migrations'))).toEqual([]);
      expect(await migrateToLatest(db.db, db.dialect)).toEqual(applied);
      expect(await tableNames(db)).toEqual(full);
      expect(await migrateToLatest(db.db, db.dialect)).toEqual([]);
    } finally {
      await db.close();
      await drop();
    }
  });
});
