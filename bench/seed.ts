import { sql } from 'kysely';
import { Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { systemClock } from '../src/lib/clock.js';
import { isoSeconds } from '../src/lib/time.js';
import { ensureDefaultAccount } from '../src/modules/identity/bootstrap.js';

export interface SeedOptions {
  databaseUrl: string;
  adminToken: string;
  events: number;
  /** Events are spread round-robin over this many entity ids, starting at FIRST_ENTITY_ID. */
  entities: number;
  /** ANALYZE afterwards (always done on PostgreSQL, whose autovacuum would do it soon anyway). */
  analyze?: boolean;
}

export const FIRST_ENTITY_ID = 1000;
const ROWS_PER_INSERT = 500;
const SPAN_MS = 89 * 86_400_000;
const ACTIONS = [
  'compute_boot',
  'compute_reboot',
  'compute_shutdown',
  'compute_create',
  'disk_create',
];

/**
 * Prepares a database before the server starts: migrations, the default account (user `admin`
 * with the given token) and `events` rows of that account, created within the last 89 days in
 * id order, inserted with multi-row INSERTs in one transaction. PostgreSQL is vacuumed, analyzed
 * and checkpointed after; SQLite is analyzed only when asked.
 */
export async function seedDatabase(o: SeedOptions): Promise<void> {
  const db = Database.connect(o.databaseUrl);
  try {
    await migrateToLatest(db.db, db.dialect);
    await ensureDefaultAccount(db, systemClock, o.adminToken);
    const account = await db.db
      .selectFrom('accounts')
      .select('id')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const now = systemClock.nowMs();
    const start = now - SPAN_MS;
    await db.transaction(async (tx) => {
      for (let from = 0; from < o.events; from += ROWS_PER_INSERT) {
        const rows = [];
        for (let i = from; i < Math.min(o.events, from + ROWS_PER_INSERT); i++) {
          const createdMs = start + Math.floor((i * SPAN_MS) / o.events);
          const entityId = FIRST_ENTITY_ID + (i % o.entities);
          rows.push({
            account_id: account.id,
            action: ACTIONS[i % ACTIONS.length] as string,
            created: isoSeconds(createdMs),
            duration: 12.5,
            entity_type: 'compute',
            entity_id: entityId,
            entity_label: `compute-${entityId}`,
            entity_url: `/v4/compute/instances/${entityId}`,
            secondary_entity_type: null,
            secondary_entity_id: null,
            secondary_entity_label: null,
            secondary_entity_url: null,
            message: null,
            percent_complete: 100,
            rate: null,
            read: 0,
            seen: 0,
            status: 'finished',
            time_remaining: null,
            username: 'admin',
            started_ms: createdMs,
          });
        }
        await tx.db.insertInto('events').values(rows).execute();
      }
    });
    if (db.dialect === 'postgres') {
      // Do now the maintenance a bulk load triggers (autovacuum, the checkpoint), so that it does
      // not compete with the server for the cores while the scenarios are measured.
      await sql`vacuum analyze`.execute(db.db);
      await sql`checkpoint`.execute(db.db);
    } else if (o.analyze) {
      await sql`analyze`.execute(db.db);
    }
  } finally {
    await db.close();
  }
}
