import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { namedStatements } from '../../src/db/dialect.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { sharedDatabase } from '../helpers/shared-database.js';

/** A stand-in for a pg client: records what it was asked to run. */
function fakeClient() {
  const calls: unknown[] = [];
  const client = {
    connection: { parsedStatements: {} as Record<string, string> },
    query: async (config: unknown, values?: unknown) => {
      calls.push(values === undefined ? config : [config, values]);
      if (typeof config === 'object' && config !== null && 'name' in config) {
        const c = config as { name: string; text: string };
        client.connection.parsedStatements[c.name] = c.text;
      }
      return { rows: [] };
    },
    release: () => {},
  };
  return { client, calls };
}

describe('named statements (PostgreSQL connections)', () => {
  it('namedStatements: one name per SQL text, reused; scripts and transaction control go unnamed', async () => {
    const { client, calls } = fakeClient();
    const c = namedStatements(client as never) as unknown as typeof client;
    await c.query('select * from volumes where id = $1', [1]);
    await c.query('select * from volumes where id = $1', [2]);
    await c.query('insert into tags (label) values ($1)', ['a']);
    await c.query('begin', []);
    await c.query('delete from a; delete from b', []);
    expect(calls).toEqual([
      { name: 's1', text: 'select * from volumes where id = $1', values: [1] },
      { name: 's1', text: 'select * from volumes where id = $1', values: [2] },
      { name: 's2', text: 'insert into tags (label) values ($1)', values: ['a'] },
      ['begin', []],
      ['delete from a; delete from b', []],
    ]);
    // Wrapping again changes nothing.
    expect(namedStatements(c as never)).toBe(c);
  });

  it('namedStatements: beyond its bound a connection deallocates the least recently used', async () => {
    const { client, calls } = fakeClient();
    const c = namedStatements(client as never, 2) as unknown as typeof client;
    await c.query('select 1 as a', []);
    await c.query('select 2 as b', []);
    await c.query('select 1 as a', []); // now the most recent
    await c.query('select 3 as c', []); // evicts `select 2 as b` (s2)
    await c.query('select 2 as b', []); // parsed again, under a new name
    expect(calls.slice(3)).toEqual([
      'deallocate s2',
      { name: 's3', text: 'select 3 as c', values: [] },
      'deallocate s1',
      { name: 's4', text: 'select 2 as b', values: [] },
    ]);
    expect(Object.keys(client.connection.parsedStatements).sort()).toEqual(['s3', 's4']);
  });

  describe.runIf(DIALECT === 'postgres')('on a server', () => {
    let db: Database;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const shared = await sharedDatabase('named');
      drop = shared.drop;
      db = Database.connect(shared.url, { poolSize: 1 });
    });
    afterAll(async () => {
      await db.close();
      await drop();
    });

    it('connect: a connection keeps its statements by name; STRATUS_PG_STATEMENTS=0 keeps none', async () => {
      const kept = async (d: Database) => {
        await sql`select ${1}::int as one`.execute(d.db);
        const { rows } = await sql<{ statement: string }>`
          select statement from pg_prepared_statements`.execute(d.db);
        return rows.map((r) => r.statement);
      };
      expect(await kept(db)).toContain('select $1::int as one');
      const none = Database.connect(db.url, { poolSize: 1, statements: 0 });
      try {
        expect(await kept(none)).toEqual([]);
      } finally {
        await none.close();
      }
    });

    it('namedStatements: a statement whose columns changed under it is planned again, alone or in a transaction', async () => {
      await sql`create table named_probe (id integer primary key)`.execute(db.db);
      await sql`insert into named_probe values (1)`.execute(db.db);
      const read = (d: Database) => d.db.executeQuery(sql`select * from named_probe`.compile(d.db));
      expect((await read(db)).rows).toEqual([{ id: 1 }]);
      // PostgreSQL refuses a kept plan whose result changed (0A000): run alone, the statement is
      // parsed again at once.
      await sql`alter table named_probe add column label text default 'x'`.execute(db.db);
      expect((await read(db)).rows).toEqual([{ id: 1, label: 'x' }]);
      // In a transaction the refusal aborts it; the transaction runs again and answers.
      await sql`alter table named_probe add column n integer default 7`.execute(db.db);
      let attempts = 0;
      const rows = await db.transaction(async (tx) => {
        attempts++;
        return (await read(tx)).rows;
      });
      expect(rows).toEqual([{ id: 1, label: 'x', n: 7 }]);
      expect(attempts).toBe(2);
      await sql`drop table named_probe`.execute(db.db);
    });

    it('namedStatements: the same statement answers with its parameters each time, inside and outside transactions', async () => {
      const get = (d: Database, n: number) =>
        sql<{ v: number }>`select ${n}::int * 2 as v`.execute(d.db).then((r) => r.rows[0]?.v);
      for (let i = 0; i < 8; i++) expect(await get(db, i)).toBe(i * 2);
      await db
        .transaction(async (tx) => {
          expect(await get(tx, 21)).toBe(42);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      // A rollback leaves the connection's statements usable.
      expect(await get(db, 5)).toBe(10);
    });
  });
});
