/**
 * The child of wal-checkpointer.test.ts's crash test (`node --import tsx wal-checkpointer-child.ts
 * <file>`): writes until the checkpointer runs, then one more write; prints `answered` when its
 * promise resolves, and waits to be killed.
 */
import { type Kysely, sql } from 'kysely';
import { Database } from '../../src/db/database.js';

const file = process.argv[2] as string;
const db = Database.connect(`sqlite:${file}`);
const k = (d: Database) => d.db as unknown as Kysely<any>;
await sql`create table t (id integer primary key, body text)`.execute(k(db));
let rows = 0;
for (let i = 0; i < 1_000 && !db.checkpointer?.running; i++) {
  await db.transaction(async (tx) => {
    for (let j = 0; j < 20; j++) {
      await sql`insert into t (body) values (${'x'.repeat(4_000)})`.execute(k(tx));
      rows++;
    }
  });
}
if (db.checkpointer?.running) process.stdout.write(`checkpointer running after ${rows} rows\n`);
// Let the thread copy the log at least once before the last write.
await new Promise((r) => setTimeout(r, 300));
await db.transaction(async (tx) => {
  await sql`insert into t (body) values ('answered')`.execute(k(tx));
});
process.stdout.write('answered\n');
setTimeout(() => {}, 60_000);
