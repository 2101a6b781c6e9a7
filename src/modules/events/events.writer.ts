import { type RawBuilder, type SqlBool, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/database.js';
import { type Builder, type RowStatement, rowStatement, statement } from '../../db/statement.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { touchFeed } from './events.feed.js';
import type { EventsTable } from './events.table.js';
import type { EventChange, NewEvent } from './events.types.js';

/** A new event's row, every column but the id and the read/seen flags (built once per dialect). */
type NewEventRow = Omit<EventsTable, 'id' | 'read' | 'seen'>;
const insertEvent = rowStatement(
  'events.insert',
  [
    'account_id',
    'action',
    'created',
    'duration',
    'entity_type',
    'entity_id',
    'entity_label',
    'entity_url',
    'secondary_entity_type',
    'secondary_entity_id',
    'secondary_entity_label',
    'secondary_entity_url',
    'message',
    'percent_complete',
    'rate',
    'status',
    'time_remaining',
    'username',
    'started_ms',
  ],
  ({ db }, row: NewEventRow) =>
    db
      .insertInto('events')
      .values({ ...row, read: 0, seen: 0 })
      .returning('id'),
);

/**
 * A row that must still exist for a change to be written (a volume's job moves the volume's
 * event only while the volume is there): checked in the change's own statement, not in one of
 * its own.
 */
export interface EventGuard {
  table: 'volumes';
  id: number;
}

/** The guard's condition: its row is there. */
const guardExists = (table: EventGuard['table'], id: unknown) =>
  sql<SqlBool>`exists (select 1 from ${sql.table(table)} where id = ${id})`;

/** What a change of status reads of the event first (`alive`: the guard's row exists). */
const readForChange = (db: Builder['db'], id: number, alive: RawBuilder<number | boolean>) =>
  db
    .selectFrom('events')
    .select(['account_id', 'started_ms', 'created', 'status', alive.as('alive')])
    .where('id', '=', id);
const eventForChange = statement('events.forChange', ({ db }, id: number) =>
  readForChange(db, id, sql<number>`1`),
);
const guardedForChange = new Map(
  (['volumes'] as const).map((table) => [
    table,
    statement(`events.forChange(${table})`, ({ db }, id: number, guardId: number) =>
      readForChange(db, id, guardExists(table, guardId)),
    ),
  ]),
);

/** An update's arguments: the columns set, the event's id, the guard's id, and `start_ms`. */
type EventSet = Updateable<EventsTable> & { id: number; guard_id?: number; start_ms?: number };
/**
 * The updates of an event, one statement per set of columns changed (a handful: a progress report
 * sets `percent_complete`, a finish `status`, `duration`, `time_remaining`, `percent_complete`)
 * and guard, each built once per dialect.
 */
const eventUpdates = new Map<string, RowStatement<EventSet, { account_id: number }>>();
function updateEvent(
  db: Database,
  id: number,
  set: Updateable<EventsTable>,
  guard?: EventGuard,
  /** A move into `started` at this time: `started_ms` is set unless the event was started. */
  startMs?: number,
): Promise<{ account_id: number } | undefined> {
  const columns = Object.keys(set).sort() as (keyof EventSet & string)[];
  const starts = startMs !== undefined;
  const key = `${columns.join(',')}${guard ? `|${guard.table}` : ''}${starts ? '|start' : ''}`;
  let update = eventUpdates.get(key);
  if (!update) {
    const table = guard?.table;
    update = rowStatement(
      `events.update(${key})`,
      [
        'id',
        ...columns,
        ...(table ? (['guard_id'] as const) : []),
        ...(starts ? (['start_ms'] as const) : []),
      ],
      ({ db }, { id, guard_id, start_ms, ...changes }: EventSet) =>
        db
          .updateTable('events')
          .set(changes)
          // The value before the update: only the move into `started` sets the start time.
          .$if(starts, (qb) =>
            qb.set({
              started_ms: sql<number>`case when status = 'started' then started_ms else ${start_ms} end`,
            }),
          )
          .where('id', '=', id)
          .$if(table !== undefined, (qb) =>
            qb.where(guardExists(table as EventGuard['table'], guard_id)),
          )
          .returning('account_id'),
    );
    eventUpdates.set(key, update);
  }
  return update.first(db, {
    ...set,
    id,
    ...(guard ? { guard_id: guard.id } : {}),
    ...(starts ? { start_ms: startMs } : {}),
  });
}

/** An update's outcome: the account's feed moves when a row was changed. */
function written(db: Database, row: { account_id: number } | undefined): boolean {
  if (!row) return false;
  touchFeed(db, row.account_id);
  return true;
}

/**
 * Writes events. Every area records its events through this, inside the transaction of the
 * change, so a change and its event commit together (a call outside one gets its own), and with
 * them the bump of the account's feed version (events.feed.ts).
 */
export class EventWriter {
  constructor(private readonly clock: Clock) {}

  record(db: Database, e: NewEvent): Promise<number> {
    return db.transaction((tx) => this.insert(tx, e));
  }

  private async insert(db: Database, e: NewEvent): Promise<number> {
    const nowMs = this.clock.nowMs();
    const done = e.status === 'finished' || e.status === 'failed' || e.status === 'notification';
    const row = await insertEvent.first(db, {
      account_id: e.accountId,
      action: e.action,
      created: isoSeconds(nowMs),
      duration: done ? 0 : null,
      entity_type: e.entity?.type ?? null,
      entity_id: e.entity?.id ?? null,
      entity_label: e.entity?.label ?? null,
      entity_url: e.entity?.url ?? null,
      secondary_entity_type: e.secondaryEntity?.type ?? null,
      secondary_entity_id: e.secondaryEntity?.id ?? null,
      secondary_entity_label: e.secondaryEntity?.label ?? null,
      secondary_entity_url: e.secondaryEntity?.url ?? null,
      message: e.message ?? null,
      percent_complete: e.percentComplete ?? (done ? 100 : e.status === 'started' ? 0 : null),
      rate: e.rate ?? null,
      status: e.status,
      time_remaining: e.timeRemaining == null ? null : String(e.timeRemaining),
      username: e.username,
      started_ms: nowMs,
    });
    if (!row) throw new Error('events.insert returned no id');
    touchFeed(db, e.accountId);
    return row.id;
  }

  /**
   * Moves an event along (`scheduled` → `started` → `finished`|`failed`). At the end `duration`
   * is the seconds since the event started (since it was recorded if it never did).
   */
  update(db: Database, id: number, change: EventChange, guard?: EventGuard): Promise<boolean> {
    return db.transaction((tx) => this.change(tx, id, change, guard));
  }

  /**
   * True when the change was written; false when the event is not there, or the guard's row (then
   * nothing is written).
   */
  private async change(
    db: Database,
    id: number,
    change: EventChange,
    guard: EventGuard | undefined,
  ): Promise<boolean> {
    // A change that keeps the status (progress, a message, a label) needs nothing of the row but
    // its account, which the update returns: one statement, as a job's progress steps are many.
    if (change.status === undefined) {
      const fields = changedFields(change);
      if (Object.keys(fields).length === 0) return true;
      return written(db, await updateEvent(db, id, fields, guard));
    }
    const nowMs = this.clock.nowMs();
    const done = change.status === 'finished' || change.status === 'failed';
    if (!done) {
      // One statement: a move into `started` sets the start time from the row's own status.
      const set = { status: change.status, ...changedFields(change) };
      const startMs = change.status === 'started' ? nowMs : undefined;
      return written(db, await updateEvent(db, id, set, guard, startMs));
    }
    // The duration needs the start time: read first.
    const current = guard
      ? await guardedForChange.get(guard.table)?.first(db, id, guard.id)
      : await eventForChange.first(db, id);
    if (!current?.alive) return false;
    const startMs = current.started_ms ?? Date.parse(`${current.created}Z`);
    await updateEvent(db, id, {
      status: change.status,
      ...changedFields(change),
      duration: Math.max(0, Math.round((nowMs - startMs) / 100) / 10),
      time_remaining: null,
      ...(change.status === 'finished' ? { percent_complete: 100 } : {}),
    });
    touchFeed(db, current.account_id);
    return true;
  }
}

/** The columns a change sets whatever the status does. */
function changedFields(change: EventChange) {
  return {
    ...(change.percentComplete !== undefined ? { percent_complete: change.percentComplete } : {}),
    ...(change.message !== undefined ? { message: change.message } : {}),
    ...(change.timeRemaining !== undefined
      ? { time_remaining: change.timeRemaining === null ? null : String(change.timeRemaining) }
      : {}),
    ...(change.entityLabel !== undefined ? { entity_label: change.entityLabel } : {}),
  };
}
