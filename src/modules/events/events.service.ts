import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import type { Page, PageParams } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import {
  type ApiEvent,
  baseEventQuery,
  EVENT_FILTERS,
  listEvents,
  toApiEvent,
} from './events.repository.js';

/** Events are listed for the last 90 days only. */
export const EVENT_RETENTION_DAYS = 90;

export class EventsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  private since(): string {
    return isoSeconds(this.clock.nowMs() - EVENT_RETENTION_DAYS * 86_400_000);
  }

  /** The feed: newest first unless the filter orders it. */
  async list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<ApiEvent>> {
    const filter = compileFilter(xFilter, EVENT_FILTERS, this.db.dialect);
    return listEvents(this.db, p, this.since(), filter, params);
  }

  async get(p: Principal, id: number): Promise<ApiEvent> {
    const row = await baseEventQuery(this.db, p, this.since())
      .selectAll('events')
      .where('events.id', '=', id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApiEvent(row);
  }

  /** Marks one event read. */
  async markRead(p: Principal, id: number): Promise<void> {
    await this.get(p, id);
    await this.db.db.updateTable('events').set({ read: 1 }).where('id', '=', id).execute();
  }

  /** Marks every event up to and including this one seen. */
  async markSeen(p: Principal, id: number): Promise<void> {
    await this.get(p, id);
    await this.db.transaction(async (tx: Database) => {
      const visible = baseEventQuery(tx, p, this.since())
        .select('events.id')
        .where('events.id', '<=', id);
      await tx.db.updateTable('events').set({ seen: 1 }).where('id', 'in', visible).execute();
    });
  }
}
