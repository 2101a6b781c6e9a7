import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { touchFeed } from './events.feed.js';
import type { EventChange, NewEvent } from './events.types.js';

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
    const row = await db.db
      .insertInto('events')
      .values({
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
        read: 0,
        seen: 0,
        status: e.status,
        time_remaining: e.timeRemaining == null ? null : String(e.timeRemaining),
        username: e.username,
        started_ms: nowMs,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    touchFeed(db, e.accountId);
    return row.id;
  }

  /**
   * Moves an event along (`scheduled` → `started` → `finished`|`failed`). At the end `duration`
   * is the seconds since the event started (since it was recorded if it never did).
   */
  update(db: Database, id: number, change: EventChange): Promise<void> {
    return db.transaction((tx) => this.change(tx, id, change));
  }

  private async change(db: Database, id: number, change: EventChange): Promise<void> {
    // A change that keeps the status (progress, a message, a label) needs nothing of the row but
    // its account, which the update returns: one statement, as a job's progress steps are many.
    if (change.status === undefined) {
      const fields = changedFields(change);
      if (Object.keys(fields).length === 0) return;
      const row = await db.db
        .updateTable('events')
        .set(fields)
        .where('id', '=', id)
        .returning('account_id')
        .executeTakeFirst();
      if (row) touchFeed(db, row.account_id);
      return;
    }
    const current = await db.db
      .selectFrom('events')
      .select(['account_id', 'started_ms', 'created', 'status'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!current) return;
    const nowMs = this.clock.nowMs();
    const done = change.status === 'finished' || change.status === 'failed';
    // Progress updates repeat `started`: only the move into `started` sets the start time.
    const starting = change.status === 'started' && current.status !== 'started';
    const startMs = current.started_ms ?? Date.parse(`${current.created}Z`);
    await db.db
      .updateTable('events')
      .set({
        status: change.status,
        ...changedFields(change),
        ...(starting ? { started_ms: nowMs } : {}),
        ...(done
          ? {
              duration: Math.max(0, Math.round((nowMs - startMs) / 100) / 10),
              time_remaining: null,
              ...(change.status === 'finished' ? { percent_complete: 100 } : {}),
            }
          : {}),
      })
      .where('id', '=', id)
      .execute();
    touchFeed(db, current.account_id);
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
