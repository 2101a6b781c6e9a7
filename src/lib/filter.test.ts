import { randomBytes } from 'node:crypto';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, dropDatabase } from '../../test/helpers/pg-server.js';
import { Database } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import { type ArrayOp, compileFilter, containsCondition, type FilterSpec } from './filter.js';
import { paginate } from './pagination.js';

const DIALECT = process.env.DB_DIALECT === 'postgres' ? 'postgres' : 'sqlite';

/** A membership test over the tiny `item_tags` table, as an area's `tags` field would do it. */
const tagMember = (op: ArrayOp, value: string, dialect: 'sqlite' | 'postgres') => {
  const tag = sql.ref('t.tag');
  const cond = op === 'contains' ? containsCondition(tag, value, dialect) : sql`${tag} = ${value}`;
  const exists = sql`exists (select 1 from item_tags t where t.item_id = items.id and ${cond})`;
  return op === 'neq' ? sql<boolean>`not ${exists}` : sql<boolean>`${exists}`;
};

const SPEC: FilterSpec = {
  id: { kind: 'int', column: 'items.id' },
  name: { kind: 'string', column: 'items.name' },
  class: { kind: 'string', column: 'items.class' },
  vcpus: { kind: 'int', column: 'items.vcpus' },
  price: { kind: 'number', column: 'items.price' },
  active: { kind: 'bool', column: 'items.active' },
  created: { kind: 'datetime', column: 'items.created' },
  'owner.id': { kind: 'int', column: 'items.owner_id' },
  note: { kind: 'string', column: 'items.note', orderable: false },
  tags: { kind: 'array', member: tagMember },
};

const ITEMS = [
  [1, 'Alpha Standard', 'standard', 4, 10.5, 1, '2026-01-01T00:00:00', 7, null],
  [2, 'beta highmem', 'highmem', 16, 20, 0, '2026-01-15T12:00:00', 7, '100%_done'],
  [3, 'Gamma', 'dedicated', 12, 30.25, 1, '2026-02-01T00:00:00', 8, 'a_b'],
  [4, 'delta', 'dedicated', 20, 40, 0, '2026-02-15T08:30:00', null, 'axb'],
  [5, 'Epsilon 50%', 'gpu', 24, 50, 1, '2026-03-01T00:00:00', 9, "x' or '1'='1"],
  [6, 'zeta', 'nanode', 1, 5, 0, '2025-12-31T23:59:59', 8, 'back\\slash'],
] as const;
const TAGS: [number, string][] = [
  [1, 'prod'],
  [1, 'web'],
  [2, 'prod'],
  [3, 'staging_1'],
  [5, 'Web-Frontend'],
];
const INJECTION = "x' or '1'='1";

let db: Database;
let k: Kysely<any>;
let dropDb: () => Promise<void> = async () => {};

beforeAll(async () => {
  let url = 'sqlite::memory:';
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `f_${randomBytes(6).toString('hex')}`;
    url = await createDatabase(admin, name);
    dropDb = () => dropDatabase(admin, name);
  }
  db = Database.connect(url, { poolSize: 2 });
  k = db.db as unknown as Kysely<any>;
  const real = DIALECT === 'postgres' ? 'double precision' : 'real';
  await sql
    .raw(
      `create table items (id integer primary key, name text not null, class text not null,
        vcpus integer not null, price ${real} not null, active integer not null,
        created text not null, owner_id integer, note text)`,
    )
    .execute(k);
  await sql.raw('create table item_tags (item_id integer not null, tag text not null)').execute(k);
  await k
    .insertInto('items')
    .values(
      ITEMS.map(([id, name, cls, vcpus, price, active, created, owner, note]) => ({
        id,
        name,
        class: cls,
        vcpus,
        price,
        active,
        created,
        owner_id: owner,
        note,
      })),
    )
    .execute();
  await k
    .insertInto('item_tags')
    .values(TAGS.map(([item_id, tag]) => ({ item_id, tag })))
    .execute();
});

afterAll(async () => {
  await db?.close();
  await dropDb();
});

const header = (f: unknown): string => (typeof f === 'string' ? f : JSON.stringify(f));

/** The ids matched by a filter, in the filter's order (then by id). */
async function ids(f: unknown): Promise<number[]> {
  const c = compileFilter(header(f), SPEC, DIALECT);
  let q = k.selectFrom('items').select('items.id');
  if (c.where) q = q.where(c.where);
  if (c.orderBy) q = q.orderBy(sql.ref(c.orderBy.column), c.orderBy.direction);
  const rows = await q.orderBy('items.id').execute();
  return rows.map((r) => Number(r.id));
}

/** The 400 a filter compiles to. */
function filterError(f: unknown): { reason: string; field?: string } {
  try {
    compileFilter(header(f), SPEC, DIALECT);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(400);
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]?.field).toBe('X-Filter');
    return e.errors[0] as { reason: string; field?: string };
  }
  throw new Error(`expected ${header(f)} to be rejected`);
}

describe('compileFilter', () => {
  it('compileFilter: no header, an empty header and {} match everything', async () => {
    expect(compileFilter(undefined, SPEC, DIALECT)).toEqual({
      where: undefined,
      orderBy: undefined,
    });
    expect(await ids('')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ids({})).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('compileFilter: a plain value is equality', async () => {
    expect(await ids({ class: 'dedicated' })).toEqual([3, 4]);
    expect(await ids({ vcpus: 12 })).toEqual([3]);
    expect(await ids({ vcpus: '12' })).toEqual([3]);
    expect(await ids({ price: 30.25 })).toEqual([3]);
    expect(await ids({ class: 'Dedicated' })).toEqual([]);
  });

  it('compileFilter: ANDs several keys', async () => {
    expect(await ids({ class: 'dedicated', vcpus: 20 })).toEqual([4]);
    expect(await ids({ class: 'dedicated', vcpus: 1 })).toEqual([]);
  });

  it('compileFilter: +and and +or, nested as in the spec example', async () => {
    expect(await ids({ '+and': [{ class: 'dedicated' }, { vcpus: { '+gt': 12 } }] })).toEqual([4]);
    expect(await ids({ '+or': [{ class: 'gpu' }, { vcpus: 1 }] })).toEqual([5, 6]);
    const spec = {
      '+or': [
        { '+or': [{ class: 'standard' }, { class: 'highmem' }] },
        { '+and': [{ vcpus: { '+gte': 12 } }, { vcpus: { '+lte': 20 } }] },
      ],
    };
    expect(await ids(spec)).toEqual([1, 2, 3, 4]);
    // Each element of +or ANDs its own keys; +or sits next to other keys (ANDed).
    expect(await ids({ '+or': [{ class: 'dedicated', vcpus: 12 }, { class: 'gpu' }] })).toEqual([
      3, 5,
    ]);
    expect(await ids({ active: true, '+or': [{ class: 'dedicated' }, { class: 'gpu' }] })).toEqual([
      3, 5,
    ]);
    // An operator object may hold +or/+and of values or operators.
    expect(await ids({ class: { '+or': ['gpu', 'nanode'] } })).toEqual([5, 6]);
    expect(await ids({ vcpus: { '+or': [{ '+lt': 4 }, { '+gt': 20 }] } })).toEqual([5, 6]);
  });

  it('compileFilter: +gt/+gte/+lt/+lte on numbers', async () => {
    expect(await ids({ vcpus: { '+gt': 12 } })).toEqual([2, 4, 5]);
    expect(await ids({ vcpus: { '+gte': 12 } })).toEqual([2, 3, 4, 5]);
    expect(await ids({ vcpus: { '+lt': 4 } })).toEqual([6]);
    expect(await ids({ vcpus: { '+lte': 4 } })).toEqual([1, 6]);
    expect(await ids({ vcpus: { '+gte': 12, '+lte': 16 } })).toEqual([2, 3]);
    expect(await ids({ price: { '+gt': 30.25 } })).toEqual([4, 5]);
    expect(await ids({ price: { '+lte': 10.5 } })).toEqual([1, 6]);
  });

  it('compileFilter: +gt/+gte/+lt/+lte and equality on ISO date-times', async () => {
    expect(await ids({ created: { '+gte': '2026-02-01T00:00:00' } })).toEqual([3, 4, 5]);
    expect(await ids({ created: { '+gt': '2026-02-15T08:30:00' } })).toEqual([5]);
    expect(await ids({ created: { '+lt': '2026-01-01' } })).toEqual([6]);
    expect(await ids({ created: { '+lte': '2026-01-01T00:00:00Z' } })).toEqual([1, 6]);
    // A zone offset is converted to UTC: 09:30+01:00 is 08:30 UTC.
    expect(await ids({ created: '2026-02-15T09:30:00+01:00' })).toEqual([4]);
    expect(
      await ids({ created: { '+gte': '2026-01-01T00:00:00', '+lt': '2026-02-01T00:00:00' } }),
    ).toEqual([1, 2]);
    expect(filterError({ created: { '+gte': 'yesterday' } }).reason).toMatch(/date-time/);
    expect(filterError({ created: { '+gte': 1767225600 } }).reason).toMatch(/date-time/);
  });

  it('compileFilter: +contains is case-insensitive and % _ \\ are literal', async () => {
    expect(await ids({ name: { '+contains': 'STANDARD' } })).toEqual([1]);
    expect(await ids({ name: { '+contains': 'ta' } })).toEqual([1, 2, 4, 6]);
    expect(await ids({ name: { '+contains': '50%' } })).toEqual([5]);
    expect(await ids({ note: { '+contains': '%' } })).toEqual([2]);
    expect(await ids({ note: { '+contains': '_' } })).toEqual([2, 3]);
    expect(await ids({ note: { '+contains': 'a_b' } })).toEqual([3]);
    expect(await ids({ note: { '+contains': '\\' } })).toEqual([6]);
    expect(await ids({ note: { '+contains': "'" } })).toEqual([5]);
    expect(filterError({ vcpus: { '+contains': '1' } }).reason).toMatch(/text field/);
    expect(filterError({ name: { '+contains': 1 } }).reason).toMatch(/needs a string/);
  });

  it('compileFilter: +neq keeps rows where the field is null', async () => {
    expect(await ids({ class: { '+neq': 'dedicated' } })).toEqual([1, 2, 5, 6]);
    expect(await ids({ note: { '+neq': 'axb' } })).toEqual([1, 2, 3, 5, 6]);
    expect(await ids({ note: { '+neq': null } })).toEqual([2, 3, 4, 5, 6]);
    expect(await ids({ active: { '+neq': true } })).toEqual([2, 4, 6]);
  });

  it('compileFilter: null is equality with null', async () => {
    expect(await ids({ note: null })).toEqual([1]);
    expect(await ids({ 'owner.id': null })).toEqual([4]);
  });

  it('compileFilter: dotted keys name nested fields', async () => {
    expect(await ids({ 'owner.id': 7 })).toEqual([1, 2]);
    expect(await ids({ 'owner.id': { '+gte': 8 } })).toEqual([3, 5, 6]);
    expect(filterError({ owner: { id: 7 } }).reason).toBe('Cannot filter on owner');
  });

  it('compileFilter: booleans take true or false', async () => {
    expect(await ids({ active: true })).toEqual([1, 3, 5]);
    expect(await ids({ active: false })).toEqual([2, 4, 6]);
    expect(filterError({ active: 'true' }).reason).toMatch(/true or false/);
    expect(filterError({ active: 1 }).reason).toMatch(/true or false/);
    expect(filterError({ active: { '+gt': false } }).reason).toMatch(/not supported/);
  });

  it('compileFilter: +order_by with +order asc/desc', async () => {
    expect(await ids({ '+order_by': 'vcpus' })).toEqual([6, 1, 3, 2, 4, 5]);
    expect(await ids({ '+order_by': 'vcpus', '+order': 'asc' })).toEqual([6, 1, 3, 2, 4, 5]);
    expect(await ids({ '+order_by': 'vcpus', '+order': 'desc' })).toEqual([5, 4, 2, 3, 1, 6]);
    expect(await ids({ '+order_by': 'created', '+order': 'desc', class: 'dedicated' })).toEqual([
      4, 3,
    ]);
    expect(compileFilter('{"+order_by":"owner.id"}', SPEC, DIALECT).orderBy).toEqual({
      column: 'items.owner_id',
      direction: 'asc',
    });
  });

  it('compileFilter: rejects a bad +order/+order_by', () => {
    expect(filterError({ '+order': 'desc' }).reason).toBe('+order requires +order_by');
    expect(filterError({ '+order_by': 'vcpus', '+order': 'DESC' }).reason).toMatch(/asc/);
    expect(filterError({ '+order_by': 'color' })).toEqual({
      reason: 'Cannot filter on color',
      field: 'X-Filter',
    });
    expect(filterError({ '+order_by': 'note' }).reason).toBe('Cannot order by note');
    expect(filterError({ '+order_by': 'tags' }).reason).toBe('Cannot order by tags');
    expect(filterError({ '+order_by': 1 }).reason).toMatch(/field name/);
    expect(filterError({ '+and': [{ '+order_by': 'vcpus' }] }).reason).toMatch(/top level/);
  });

  it('compileFilter: an unknown key is "Cannot filter on <key>"', () => {
    expect(filterError({ color: 'red' })).toEqual({
      reason: 'Cannot filter on color',
      field: 'X-Filter',
    });
    expect(filterError({ '+or': [{ class: 'gpu' }, { color: 'red' }] }).reason).toBe(
      'Cannot filter on color',
    );
    // Inherited object properties are not fields.
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(filterError(`{"${key}": 1}`).reason).toBe(`Cannot filter on ${key}`);
      expect(filterError(`{"+order_by": "${key}"}`).reason).toBe(`Cannot filter on ${key}`);
    }
    expect(filterError({ '+xor': [{ class: 'gpu' }] }).reason).toBe('Unknown filter operator +xor');
  });

  it('compileFilter: invalid JSON or a non-object is a 400 on X-Filter', () => {
    for (const bad of [
      '{',
      'class=gpu',
      '[]',
      '[{"class":"gpu"}]',
      '"gpu"',
      '12',
      'null',
      'true',
    ]) {
      expect(filterError(bad).reason).toBe('X-Filter must be a JSON object');
    }
  });

  it('compileFilter: rejects values of the wrong type', () => {
    const bad: unknown[] = [
      { vcpus: 'many' },
      { vcpus: 1.5 },
      { vcpus: true },
      { vcpus: 1e20 },
      { vcpus: [1, 2] },
      { vcpus: {} },
      { vcpus: { '+foo': 1 } },
      { vcpus: { gte: 1 } },
      { vcpus: { '=': 1 } },
      { vcpus: { '+gt': null } },
      { vcpus: { '+gt': [1] } },
      { price: 'cheap' },
      { name: { nested: 'x' } },
      { name: ['a'] },
      { '+and': {} },
      { '+and': [] },
      { '+or': [1] },
      { '+or': 'class' },
      { class: { '+or': [] } },
    ];
    for (const f of bad) filterError(f);
  });

  it('compileFilter: limits nesting depth and the number of conditions', async () => {
    const nest = (levels: number): unknown => {
      let f: unknown = { class: 'gpu' };
      for (let i = 0; i < levels; i++) f = { '+and': [f] };
      return f;
    };
    expect(await ids(nest(7))).toEqual([5]);
    expect(filterError(nest(12)).reason).toBe('Filter is nested too deeply');
    const many = (n: number) => ({ '+or': Array.from({ length: n }, (_, i) => ({ vcpus: i })) });
    expect(await ids(many(40))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(filterError(many(101)).reason).toBe('Filter has too many conditions');
    // Empty objects count too: a header cannot make arbitrarily large SQL.
    expect(filterError({ '+or': Array.from({ length: 200 }, () => ({})) }).reason).toBe(
      'Filter has too many conditions',
    );
  });

  it('compileFilter: an array field tests membership', async () => {
    expect(await ids({ tags: 'prod' })).toEqual([1, 2]);
    expect(await ids({ tags: 'Prod' })).toEqual([]);
    expect(await ids({ tags: { '+neq': 'prod' } })).toEqual([3, 4, 5, 6]);
    expect(await ids({ tags: { '+contains': 'WEB' } })).toEqual([1, 5]);
    expect(await ids({ tags: { '+contains': '_' } })).toEqual([3]);
    expect(await ids({ tags: { '+or': ['web', 'staging_1'] } })).toEqual([1, 3]);
    expect(await ids({ tags: 'prod', active: false })).toEqual([2]);
    for (const bad of [5, null, true]) {
      expect(filterError({ tags: bad }).reason).toBe('Filter on tags must be a string or dict');
    }
    expect(filterError({ tags: { '+neq': 1 } }).reason).toBe(
      'Filter on tags must be a string or dict',
    );
    expect(filterError({ tags: { '+gt': 'a' } }).reason).toMatch(/not supported/);
  });

  it('compileFilter: values are parameters, never spliced into SQL', async () => {
    expect(await ids({ name: INJECTION })).toEqual([]);
    expect(await ids({ name: { '+contains': INJECTION } })).toEqual([]);
    expect(await ids({ tags: INJECTION })).toEqual([]);
    expect(await ids({ created: { '+gte': INJECTION } }).catch(() => 'rejected')).toBe('rejected');
    // The same text stored in a row matches itself and nothing else.
    expect(await ids({ note: INJECTION })).toEqual([5]);

    const c = compileFilter(
      header({
        name: INJECTION,
        '+or': [{ tags: INJECTION }, { note: { '+contains': INJECTION } }],
      }),
      SPEC,
      DIALECT,
    );
    const compiled = k.selectFrom('items').select('id').where(c.where!).compile();
    expect(compiled.sql).not.toContain("'1'");
    expect(compiled.sql).not.toContain(INJECTION);
    expect(compiled.parameters).toContain(INJECTION);
    expect(compiled.parameters).toContain(`%${INJECTION}%`);
  });

  it('compileFilter: an integer beyond 32 bits matches nothing instead of failing', async () => {
    expect(await ids({ id: 3_000_000_000 })).toEqual([]);
    expect(await ids({ 'owner.id': { '+lt': 3_000_000_000 } })).toEqual([1, 2, 3, 5, 6]);
    expect(await ids({ id: { '+gte': -3_000_000_000 } })).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('compileFilter: +contains is ILIKE on PostgreSQL and LIKE on SQLite, with an escape', () => {
    const pg = new Kysely<any>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (d) => new PostgresIntrospector(d),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
    const onPg = compileFilter('{"name":{"+contains":"a%"},"id":5}', SPEC, 'postgres');
    const q = pg.selectFrom('items').select('id').where(onPg.where!).compile();
    expect(q.sql).toContain('"items"."name" ilike $1 escape \'\\\'');
    expect(q.sql).toContain('cast($2 as bigint)');
    expect(q.parameters).toEqual(['%a\\%%', 5]);
    const onLite = compileFilter('{"name":{"+contains":"a%"}}', SPEC, 'sqlite');
    const l = k.selectFrom('items').select('id').where(onLite.where!).compile();
    expect(l.sql).toMatch(/ like (\?|\$1) escape '\\'/);
  });
});

describe('paginate', () => {
  const page = (f: unknown, params: { page?: number; page_size?: number }, dir?: 'asc' | 'desc') =>
    paginate(
      k.selectFrom('items'),
      (qb) => qb.select(['items.id']),
      compileFilter(header(f), SPEC, DIALECT),
      params,
      { idColumn: 'items.id', ...(dir ? { defaultDirection: dir } : {}) },
      (r: { id: number }) => Number(r.id),
    );

  it('paginate: counts and pages a filtered query in SQL', async () => {
    expect(await page({}, { page_size: 4 })).toEqual({
      data: [1, 2, 3, 4],
      page: 1,
      pages: 2,
      results: 6,
    });
    expect(await page({}, { page: 2, page_size: 4 })).toEqual({
      data: [5, 6],
      page: 2,
      pages: 2,
      results: 6,
    });
    expect(await page({}, { page: 3, page_size: 4 })).toEqual({
      data: [],
      page: 3,
      pages: 2,
      results: 6,
    });
    expect(await page({ class: 'dedicated' }, {})).toEqual({
      data: [3, 4],
      page: 1,
      pages: 1,
      results: 2,
    });
    expect(await page({ class: 'none' }, {})).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  });

  it('paginate: the default direction and +order_by, ties broken by id', async () => {
    expect((await page({}, {}, 'desc')).data).toEqual([6, 5, 4, 3, 2, 1]);
    expect((await page({ '+order_by': 'active' }, {})).data).toEqual([2, 4, 6, 1, 3, 5]);
    expect((await page({ '+order_by': 'active', '+order': 'desc' }, {})).data).toEqual([
      5, 3, 1, 6, 4, 2,
    ]);
  });
});
