import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import {
  connectMigrated,
  imageOfBuild,
  isCurrentImage,
  isNewSqlite,
  makeSqliteImage,
  writeSqliteImage,
} from '../../src/db/fresh-image.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { DIALECT } from '../helpers/build-test-app.js';

/** Every schema object's SQL and every table's rows (the migrations table without its times). */
async function contents(db: Database) {
  const schema = (
    await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`.execute(
      db.db,
    )
  ).rows;
  const rows: Record<string, unknown[]> = {};
  for (const t of schema.filter((o) => o.type === 'table')) {
    const cols = t.name === 'stratus_migrations' ? 'name' : '*';
    rows[t.name] = (
      await sql.raw(`select ${cols} from "${t.name}" order by 1`).execute(db.db)
    ).rows;
  }
  const sequences = (await sql`select name, seq from sqlite_sequence order by name`.execute(db.db))
    .rows;
  return { schema, rows, sequences };
}

describe.skipIf(DIALECT !== 'sqlite')('SQLite image of a migrated database', () => {
  it('connectMigrated: a new database from the image holds what the migrations make, object for object and row for row', async () => {
    const stepwise = Database.connect('sqlite::memory:');
    const fromImage = await connectMigrated('sqlite::memory:');
    try {
      await migrateToLatest(stepwise.db, stepwise.dialect);
      const a = await contents(stepwise);
      const b = await contents(fromImage);
      expect(b.schema.length).toBeGreaterThan(100);
      expect(b).toEqual(a);
      // The copy is a database of its own: a write to one is not in the next.
      await sql`create table only_here (x integer)`.execute(fromImage.db);
      await sql`insert into only_here values (1)`.execute(fromImage.db);
      const again = await connectMigrated('sqlite::memory:');
      try {
        expect(await contents(again)).toEqual(a);
      } finally {
        await again.close();
      }
    } finally {
      await stepwise.close();
      await fromImage.close();
    }
  });

  it('isCurrentImage: an image that lacks a migration of the code, or has one it lacks, is not used', async () => {
    const bytes = await makeSqliteImage();
    expect(isCurrentImage(bytes)).toBe(true);
    const older = new SQLite(bytes);
    older.prepare("delete from stratus_migrations where name = '0054-console-client'").run();
    expect(isCurrentImage(older.serialize())).toBe(false);
    const newer = new SQLite(bytes);
    newer
      .prepare("insert into stratus_migrations (name, timestamp) values ('9999-later', 'x')")
      .run();
    expect(isCurrentImage(newer.serialize())).toBe(false);
    expect(isCurrentImage(Buffer.from('not a database'))).toBe(false);
    older.close();
    newer.close();
  });

  it("imageOfBuild: the build's image is used when its manifest names exactly the code's migrations, and not otherwise", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-manifest-'));
    try {
      const file = await writeSqliteImage(path.join(dir, 'sqlite-image.db'));
      const manifest = path.join(dir, 'sqlite-image.json');
      const written = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { migrations: string[] };
      const image = imageOfBuild(file);
      expect(image?.equals(fs.readFileSync(file))).toBe(true);
      expect(image && isCurrentImage(image)).toBe(true);
      const names = written.migrations;
      for (const migrations of [names.slice(1), [...names, '9999-later'], 'all']) {
        fs.writeFileSync(manifest, JSON.stringify({ migrations }));
        expect(imageOfBuild(file)).toBeUndefined();
      }
      fs.writeFileSync(manifest, '{ not json');
      expect(imageOfBuild(file)).toBeUndefined();
      fs.rmSync(manifest);
      expect(imageOfBuild(file)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('connectMigrated: a new file starts from the image in WAL mode; an existing file is kept as it is', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-image-'));
    try {
      const url = `sqlite:${path.join(dir, 'sub', 'stratus.db')}`;
      expect(isNewSqlite(url)).toBe(true);
      const db = await connectMigrated(url);
      await sql`create table kept (x integer)`.execute(db.db);
      await sql`insert into kept values (42)`.execute(db.db);
      const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db.db);
      expect(mode.rows[0]?.journal_mode).toBe('wal');
      const before = await contents(db);
      await db.close();
      expect(isNewSqlite(url)).toBe(false);
      // Nothing is left beside it but SQLite's own files.
      expect(fs.readdirSync(path.join(dir, 'sub')).filter((f) => f.endsWith('.new'))).toEqual([]);
      const reopened = await connectMigrated(url);
      try {
        expect(await contents(reopened)).toEqual(before);
        expect(before.rows.kept).toEqual([{ x: 42 }]);
      } finally {
        await reopened.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('connectMigrated: a database made from the image is not analysed at open (its tables are empty); an existing one is', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-optimize-'));
    const file = path.join(dir, 'stratus.db');
    const stats = () => {
      const raw = new SQLite(file, { readonly: true });
      try {
        return raw
          .prepare(`select count(*) from sqlite_master where name = 'sqlite_stat1'`)
          .pluck()
          .get();
      } finally {
        raw.close();
      }
    };
    try {
      const made = await connectMigrated(`sqlite:${file}`);
      expect(stats()).toBe(0);
      // Rows enough for SQLite to keep statistics of the table's index, written without closing
      // the connection (a close runs `pragma optimize` of its own).
      for (let i = 0; i < 200; i++) {
        await sql`insert into stratus_migrations (name, timestamp) values (${`zz-${i}`}, ${'2026-01-01'})`.execute(
          made.db,
        );
      }
      const raw = new SQLite(file);
      raw.pragma('wal_checkpoint(TRUNCATE)');
      raw.close();
      expect(stats()).toBe(0);
      const reopened = Database.connect(`sqlite:${file}`);
      try {
        expect(stats()).toBe(1);
      } finally {
        await reopened.close();
        await made.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
