import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, PAGE_SIZE_DEFAULT, type PageParams } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { JobQueue } from '../../jobs/queue.js';
import { wakeFeedReaders } from '../../jobs/feed-read.js';
import {
  type ApiEvent,
  baseEventQuery,
  EVENT_FILTERS,
  listEvents,
  toApiEvent,
} from './events.repository.js';
import { FeedCache, FeedVersions, feedVersion, touchFeed } from './events.feed.js';

/** Events are listed for the last 90 days only. */
export const EVENT_RETENTION_DAYS = 90;

export class EventsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    /** Rendered pages of unrestricted users (events.feed.ts); off when its size is 0. */
    readonly cache: FeedCache = new FeedCache(0),
    /** Wakes the in-process job runner when a read made waiting jobs due. */
    private readonly queue?: JobQueue,
  ) {
    this.versions = new FeedVersions((accountId) => feedVersion(db, accountId));
  }

  private readonly versions: FeedVersions;

  private since(): string {
    return isoSeconds(this.clock.nowMs() - EVENT_RETENTION_DAYS * 86_400_000);
  }

  /** The feed, read from the database: newest first unless the filter orders it. */
  list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
    since = this.since(),
  ): Promise<Page<ApiEvent>> {
    const filter = compileFilter(xFilter, EVENT_FILTERS, this.db.dialect);
    return listEvents(this.db, p, since, filter, params);
  }

  /**
   * The feed as the encoded JSON of the response, rendered by `render` (the route's serializer):
   * from the cache when the account's feed has not changed since the same page was rendered in
   * the same 90-day window. Restricted users' pages depend on their grants: never cached. A
   * filter is compiled (and checked) on a miss only: errors are never cached, and a page in the
   * cache was rendered from that very X-Filter text.
   */
  async listJson(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
    render: (page: Page<ApiEvent>) => string,
  ): Promise<Buffer> {
    const body = await this.feedJson(p, params, xFilter, render);
    // After the page: a job waiting for the feed to be read starts after what was read.
    if (await wakeFeedReaders(this.db, p.accountId, this.clock.nowMs())) this.queue?.onEnqueue?.();
    return body;
  }

  private async feedJson(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
    render: (page: Page<ApiEvent>) => string,
  ): Promise<Buffer> {
    const since = this.since();
    const fresh = async () => Buffer.from(render(await this.list(p, params, xFilter, since)));
    if (p.restricted || !this.cache.enabled) {
      this.cache.bypass();
      return fresh();
    }
    const filterKey = Array.isArray(xFilter) ? xFilter.join('\u0000') : (xFilter ?? '');
    const key = `${p.accountId}\n${params.page ?? 1}\n${params.page_size ?? PAGE_SIZE_DEFAULT}\n${filterKey}`;
    // The version first, then the page: see events.feed.ts.
    const version = await this.versions.read(p.accountId);
    const cached = this.cache.get(key, version, since);
    if (cached !== undefined) return cached;
    const body = await fresh();
    this.cache.set(key, version, since, body);
    return body;
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
    await this.db.transaction(async (tx) => {
      await tx.db.updateTable('events').set({ read: 1 }).where('id', '=', id).execute();
      touchFeed(tx, p.accountId);
    });
  }

  /** Marks every event up to and including this one seen. */
  async markSeen(p: Principal, id: number): Promise<void> {
    await this.get(p, id);
    await this.db.transaction(async (tx: Database) => {
      const visible = baseEventQuery(tx, p, this.since())
        .select('events.id')
        .where('events.id', '<=', id);
      await tx.db.updateTable('events').set({ seen: 1 }).where('id', 'in', visible).execute();
      touchFeed(tx, p.accountId);
    });
  }
}
