import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Database } from './database.js';
import { sqliteFileOf } from './dialect.js';
import { migrateToLatest, migrationNames } from './migrator.js';

/**
 * A new SQLite database starts as a copy of an image: the bytes of a database on which every
 * migration has run, instead of running the migrations again (about 60 of them: a sixth of a
 * server's start, and most of each test's set-up). The image is made once per process by running
 * the migrations on an in-memory database, or read from the build (`npm run build` writes it
 * beside this module) when the migrations it holds are exactly the code's. Migrations still run
 * after the copy, as on any database, and find nothing to do.
 */

/** Where the build writes the image (dist/db/, beside the compiled module). */
const IMAGE_FILE = fileURLToPath(new URL('./sqlite-image.db', import.meta.url));

/** The migrations an image holds, written beside it by the build (`<image>.json`). */
const manifestOf = (imageFile: string) => imageFile.replace(/\.db$/, '.json');

let image: Promise<Buffer> | undefined;

/** The names of the migrations applied to an image (its `stratus_migrations` table). */
function appliedIn(bytes: Buffer): string[] | undefined {
  try {
    const db = new SQLite(bytes);
    try {
      return (
        db.prepare('select name from stratus_migrations order by name').pluck().all() as string[]
      ).sort();
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/** Whether sorted migration names are exactly the code's (a build older or newer than the code's are not). */
const areCodeMigrations = (names: unknown[]) =>
  names.join('\n') === [...migrationNames()].sort().join('\n');

/** Whether an image holds exactly the code's migrations. */
export function isCurrentImage(bytes: Buffer): boolean {
  const applied = appliedIn(bytes);
  return applied !== undefined && areCodeMigrations(applied);
}

/**
 * The build's image when it is current; undefined otherwise. Whether it is, its manifest says
 * (the names of the migrations it holds, which the build writes with it): opening the image in
 * SQLite to read them was about 6 ms of each start. A manifest that names the code's migrations
 * beside an image that lacks one would only leave that migration to run after the copy.
 */
export function imageOfBuild(imageFile = IMAGE_FILE): Buffer | undefined {
  try {
    const manifest = JSON.parse(fs.readFileSync(manifestOf(imageFile), 'utf8')) as {
      migrations?: unknown;
    };
    const names = manifest.migrations;
    if (!Array.isArray(names) || !areCodeMigrations(names)) return undefined;
    return fs.readFileSync(imageFile);
  } catch {
    return undefined;
  }
}

/** Runs every migration on a new in-memory database and returns its bytes. */
export async function makeSqliteImage(): Promise<Buffer> {
  const raw = new SQLite(':memory:');
  raw.pragma('foreign_keys = ON');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    await migrateToLatest(db, 'sqlite');
    // The pages the migrations freed (tables rebuilt, columns dropped) are not copied each time.
    raw.exec('vacuum');
    return raw.serialize();
  } finally {
    await db.destroy();
  }
}

/** The image of a migrated database (made or read once per process). */
export function sqliteImage(): Promise<Buffer> {
  image ??= Promise.resolve(imageOfBuild() ?? makeSqliteImage()).catch((err: unknown) => {
    image = undefined;
    throw err;
  });
  return image;
}

/** Whether a database URL names a SQLite database that does not exist yet. */
export function isNewSqlite(url: string): boolean {
  if (!url.startsWith('sqlite:')) return false;
  const file = sqliteFileOf(url);
  return file === ':memory:' || !fs.existsSync(path.resolve(file));
}

/**
 * Connects and migrates: a new SQLite database starts from the image (see above); any other
 * database is migrated as it is.
 */
export async function connectMigrated(
  url: string,
  opts: { poolSize?: number; statements?: number } = {},
) {
  const db = Database.connect(url, {
    ...opts,
    ...(isNewSqlite(url) ? { image: await sqliteImage() } : {}),
  });
  try {
    await migrateToLatest(db.db, db.dialect);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** `npm run build`: writes the image beside the compiled module, and its manifest. */
export async function writeSqliteImage(imageFile = IMAGE_FILE): Promise<string> {
  const bytes = await makeSqliteImage();
  const migrations = appliedIn(bytes);
  fs.writeFileSync(imageFile, bytes);
  fs.writeFileSync(manifestOf(imageFile), `${JSON.stringify({ migrations }, null, 2)}\n`);
  return imageFile;
}
