import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, dropDatabase } from '../../test/helpers/pg-server.js';
import { Database } from '../db/database.js';
import { paginate } from './pagination.js';

const DIALECT = process.env.DB_DIALECT === 'postgres' ? 'postgres' : 'sqlite';

let db: Database;
/** A second connection to the same database (another process, on SQLite). */
let other: Database;
let k: Kysely<any>;
let dir = '';
let dropDb: () => Promise<void> = async () => {};

beforeAll(async () => {
  let url: string;
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `p_${randomBytes(6).toString('hex')}`;
    url = await createDatabase(admin, name);
    dropDb = () => dropDatabase(admin, name);
  } else {
    dir = mkdtempSync(path.join(tmpdir(), 'stratus-pagination-'));
    url = `sqlite:${path.join(dir, 'p.db')}`;
  }
  db = Database.connect(url, { poolSize: 2 });
  other = Database.connect(url, { poolSize: 1 });
  k = db.db as unknown as Kysely<any>;
  await sql.raw('create table rows_ (id integer primary key, owner integer not null)').execute(k);
  for (let i = 1; i <= 30; i++) {
    await sql`insert into rows_ (id, owner) values (${i}, ${i % 2})`.execute(k);
  }
});

afterAll(async () => {
  await other?.close();
  await db?.close();
  await dropDb();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const firstPage = (owner: number, on: Database = db) =>
  paginate(
    (on.db as unknown as Kysely<any>).selectFrom('rows_').where('owner', '=', owner),
    (qb) => qb.select('id'),
    { where: undefined, orderBy: undefined },
    { page: 1, page_size: 5 },
    { idColumn: 'id', countCache: on },
    (r: { id: number }) => r.id,
  );

describe('pagination count cache', () => {
  it('list with a full first page: results stay exact after writes on this connection', async () => {
    expect((await firstPage(1)).results).toBe(15);
    expect((await firstPage(1)).results).toBe(15);
    expect((await firstPage(0)).results).toBe(15);
    await sql`insert into rows_ (id, owner) values (31, 1)`.execute(k);
    expect((await firstPage(1)).results).toBe(16);
    await sql`delete from rows_ where id = 31`.execute(k);
    expect((await firstPage(1)).results).toBe(15);
    await sql`update rows_ set owner = 0 where id = 1`.execute(k);
    expect((await firstPage(1)).results).toBe(14);
    expect((await firstPage(0)).results).toBe(16);
    await sql`update rows_ set owner = 1 where id = 1`.execute(k);
  });

  it('list with a full first page: results stay exact after another connection commits', async () => {
    expect((await firstPage(1)).results).toBe(15);
    await sql`insert into rows_ (id, owner) values (32, 1)`.execute(other.db);
    expect((await firstPage(1)).results).toBe(16);
    await sql`delete from rows_ where id = 32`.execute(other.db);
    expect((await firstPage(1)).results).toBe(15);
  });

  it('list inside a transaction: counts its own uncommitted rows, and a rollback leaves no trace', async () => {
    expect((await firstPage(1)).results).toBe(15);
    await expect(
      db.transaction(async (tx) => {
        await sql`insert into rows_ (id, owner) values (33, 1)`.execute(tx.db);
        expect((await firstPage(1, tx)).results).toBe(16);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await firstPage(1)).results).toBe(15);
  });
});
