/**
 * The child of group-commit.test.ts's crash test (`node --import tsx group-commit-child.ts
 * <file>`): two transactions asked for at once on a SQLite file, the first quick, the second
 * slow; prints `answered` when the quick one's promise resolves, and waits to be killed.
 */
import { type Kysely, sql } from 'kysely';
import { Database } from '../../src/db/database.js';

const file = process.argv[2] as string;
// No limit of time: on a loaded machine the quick one alone may take the default few ms.
const db = Database.connect(`sqlite:${file}`, { group: { members: 64, ms: 60_000 } });
const k = (d: Database) => d.db as unknown as Kysely<any>;

const quick = db.transaction(async (tx) => {
  await sql`insert into gc (who) values ('quick')`.execute(k(tx));
});
const slow = db.transaction(async (tx) => {
  await sql`insert into gc (who) values ('slow')`.execute(k(tx));
  await new Promise((r) => setTimeout(r, 300));
});
await quick;
process.stdout.write('answered\n');
await slow;
setTimeout(() => {}, 60_000);
