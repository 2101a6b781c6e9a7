import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { statement } from '../../db/statement.js';

/**
 * The feed's version and the cache of rendered pages it makes exact.
 *
 * Clients poll `GET /account/events` with the same filter again and again (SDKs and
 * infrastructure tools wait for an entity's event that way), and a page is the costliest read of
 * the API. Each account has one `event_feeds.version`, bumped as the last statement of every
 * transaction that writes or changes one of its events, whatever the process. A page is a pure
 * function of the account's events, the 90-day window, the filter and the page parameters, so a
 * rendered page stays right for as long as the version and the window's start (whole seconds) are
 * the ones it was rendered at. Serving one costs reading the version row.
 *
 * Order matters: the version is read before the page's query, so an entry is never labelled with
 * a newer version than its content (a commit between the two reads makes the content newer, which
 * later readers of the old version may see: they were concurrent with that commit).
 *
 * A bump draws a new random version rather than adding one: a version names one state of the
 * feed, so a reset or restore that deletes or rewrites `event_feeds` cannot bring a cached page
 * back to life. Whatever writes events around the writer (a seeded import) must give the account
 * a new version the same way (`touchFeed`).
 */

/** A new version: random, 1 to 2^53 - 1 (exact in a double, fits PostgreSQL's bigint). */
const newVersion = () => 1 + Math.floor(Math.random() * (Number.MAX_SAFE_INTEGER - 1));

/** The bump: last statement of every transaction that writes events (built once per dialect). */
const bumpFeed = statement('events.bumpFeed', ({ db }, accountId: number, version: number) =>
  db
    .insertInto('event_feeds')
    .values({ account_id: accountId, version })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ version })),
);

/** Registers the bump of the account's feed version in the current transaction (once per account). */
export function touchFeed(db: Database, accountId: number): void {
  db.beforeCommit(`event_feed:${String(accountId).padStart(12, '0')}`, async (tx) => {
    await bumpFeed.run(tx, accountId, newVersion());
  });
}

/** The account's feed version: 0 until its first event. */
export async function feedVersion(db: Database, accountId: number): Promise<number> {
  const { rows } = await sql<{
    version: number | string;
  }>`select version from event_feeds where account_id = ${accountId}`.execute(db.db);
  return Number(rows[0]?.version ?? 0);
}

interface Waiter {
  resolve: (version: number) => void;
  reject: (err: unknown) => void;
}

/**
 * Reads feed versions, one query at a time per account, each answering every request that asked
 * before it was sent. That keeps the cache exact (a request's answer comes from a read that began
 * after the request did, so it sees every commit that came before the request) while a burst of
 * polls of one account costs one round trip instead of one each (PostgreSQL).
 */
export class FeedVersions {
  private readonly accounts = new Map<number, { waiting: Waiter[] }>();

  constructor(private readonly query: (accountId: number) => Promise<number>) {}

  read(accountId: number): Promise<number> {
    let slot = this.accounts.get(accountId);
    const running = slot !== undefined;
    if (slot === undefined) {
      slot = { waiting: [] };
      this.accounts.set(accountId, slot);
    }
    const s = slot;
    const answer = new Promise<number>((resolve, reject) => s.waiting.push({ resolve, reject }));
    if (!running) this.next(accountId, s);
    return answer;
  }

  /** Sends one read for everyone waiting now; whoever asks meanwhile waits for the next. */
  private next(accountId: number, slot: { waiting: Waiter[] }): void {
    const batch = slot.waiting;
    slot.waiting = [];
    this.query(accountId).then(
      (v) => {
        for (const w of batch) w.resolve(v);
        this.after(accountId, slot);
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
        this.after(accountId, slot);
      },
    );
  }

  private after(accountId: number, slot: { waiting: Waiter[] }): void {
    if (slot.waiting.length > 0) this.next(accountId, slot);
    else this.accounts.delete(accountId);
  }
}

interface Entry {
  version: number;
  /** The start of the 90-day window the page was rendered for. */
  since: string;
  body: Buffer;
  size: number;
}

/**
 * Rendered pages (encoded, ready to send) by key, least recently used evicted first, bounded in
 * bytes (the pages' and the keys' lengths). A maximum of 0 turns the cache off.
 */
export class FeedCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly counts = { hits: 0, misses: 0, bypassed: 0 };

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get stats(): FeedCacheGauges {
    return { ...this.counts, entries: this.entries.size, bytes: this.bytes };
  }

  bypass(): void {
    this.counts.bypassed++;
  }

  /** The page for key if it was rendered at this version and window; counts a hit or a miss. */
  get(key: string, version: number, since: string): Buffer | undefined {
    const e = this.entries.get(key);
    if (e === undefined || e.version !== version || e.since !== since) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.body;
  }

  set(key: string, version: number, since: string, body: Buffer): void {
    const size = key.length + body.length;
    // One page never takes more than a quarter of the cache.
    if (size * 4 > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) this.remove(key, old);
    while (this.bytes + size > this.maxBytes) {
      const oldest = this.entries.entries().next().value as [string, Entry] | undefined;
      if (oldest === undefined) break;
      this.remove(oldest[0], oldest[1]);
    }
    this.entries.set(key, { version, since, body, size });
    this.bytes += size;
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.size;
  }
}

/** What the page cache has counted and holds (`/_stratus/metrics`). */
export interface FeedCacheGauges {
  hits: number;
  misses: number;
  /** Pages not cached: restricted users (their grants decide), or the cache is off. */
  bypassed: number;
  entries: number;
  bytes: number;
}

/** The feed cache's lines of `/_stratus/metrics`. */
export function feedCacheMetrics(g: FeedCacheGauges): string[] {
  return [
    '# HELP stratus_event_feed_pages_total Events feed pages by how they were answered.',
    '# TYPE stratus_event_feed_pages_total counter',
    `stratus_event_feed_pages_total{cache="hit"} ${g.hits}`,
    `stratus_event_feed_pages_total{cache="miss"} ${g.misses}`,
    `stratus_event_feed_pages_total{cache="bypass"} ${g.bypassed}`,
    '# HELP stratus_event_feed_cache_bytes Rendered feed pages held in memory.',
    '# TYPE stratus_event_feed_cache_bytes gauge',
    `stratus_event_feed_cache_bytes ${g.bytes}`,
    '# TYPE stratus_event_feed_cache_entries gauge',
    `stratus_event_feed_cache_entries ${g.entries}`,
  ];
}
