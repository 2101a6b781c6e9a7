import { sql } from 'kysely';
import type pgTypes from 'pg';
import type { Dialect } from '../config/config.js';
import { type Database, DatabaseSlot } from '../db/database.js';
import { pg } from '../db/dialect.js';
import { isoSeconds } from '../lib/time.js';
import type { Principal } from './principal.js';

/**
 * The principal cache: bearer token (by its SHA-256 hash) → the resolved Principal, which also
 * carries the user's row (GET /profile answers from it). Without it every authenticated request
 * costs a three-table join, the largest part of a small request.
 *
 * It must stay exact for the rules, so:
 * - Expiry is checked against the clock on every hit (a token 401s the second it expires).
 * - Misses are never cached: a token created by anyone (the admin CLI included) works at once.
 * - Every mutation of what a Principal holds calls `principalChanged(tx, change)` inside its
 *   transaction: token delete (`token`), user update, delete, restriction change, rename, global
 *   grant change and profile update (`user`). The change is applied in-process when the
 *   transaction commits (before the mutation's response is sent), so the next request reads the
 *   database again. Account changes need nothing: a Principal holds only the account's id and
 *   euuid, which never change. Token label changes need nothing either (not held).
 * - A lookup that raced an invalidation (it started before the invalidation and finished after)
 *   is not stored: every invalidation bumps a generation number that the lookup compares.
 * - Other processes:
 *   - PostgreSQL (several API processes on one database): the mutation also runs
 *     `pg_notify('stratus_principals', '<kind>:<id>')` inside its transaction, so PostgreSQL
 *     delivers it at commit, to every process LISTENing (one dedicated connection per API
 *     process, opened on the first authenticated request). Another process therefore sees a
 *     change within the notification's latency (milliseconds), not strictly before the
 *     mutation's response. Until the listener is connected, and whenever it drops, the cache is
 *     cleared and bypassed (every request reads the database); it reconnects with back-off and
 *     clears again once LISTENing, since notifications sent meanwhile are lost.
 *   - SQLite: the only other writers are the admin CLI (it creates tokens and accounts, which a
 *     cache without negative entries cannot contradict) and, when run separately, job workers.
 *     As a safety net the cache is cleared when `PRAGMA data_version` shows a commit by another
 *     connection; the pragma takes a read lock, so it is checked at most every 20 ms (a change
 *     by another process is seen within 20 ms, like a notification on PostgreSQL).
 * - Bounded: at most `maxEntries` (LRU), and an entry older than `ttlMs` is read again (a net
 *   under anything missed, e.g. a listener connection that died without an error).
 * Writes made directly in the database by hand, bypassing the services, are only seen after the
 * TTL (within 20 ms on SQLite when made from another connection).
 */

export const PRINCIPALS_CHANNEL = 'stratus_principals';

export type PrincipalChange =
  | { kind: 'token'; id: number }
  | { kind: 'user'; id: number }
  | { kind: 'all' };

export interface PrincipalCacheOptions {
  dialect: Dialect;
  /** PostgreSQL: the URL the listener connects to. */
  url?: string;
  /** SQLite: `PRAGMA data_version` of the connection (changes on other connections' commits). */
  dataVersion?: () => number;
  maxEntries?: number;
  ttlMs?: number;
}

interface Entry {
  principal: Principal;
  expiry: string | null;
  cachedAtMs: number;
}

export interface PrincipalCacheStats {
  size: number;
  hits: number;
  misses: number;
  /** Whether lookups may use the cache now (PostgreSQL: the listener is connected). */
  active: boolean;
}

const RECONNECT_MIN_MS = 100;
const DATA_VERSION_EVERY_MS = 20;
const RECONNECT_MAX_MS = 5_000;

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private gen = 0;
  private hits = 0;
  private misses = 0;
  private lastDataVersion: number | undefined;
  private dataVersionCheckedAt = Number.NEGATIVE_INFINITY;
  // PostgreSQL listener state.
  private listener: pgTypes.Client | undefined;
  private listening = false;
  private connecting = false;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: PrincipalCacheOptions) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.ttlMs = opts.ttlMs ?? 60_000;
  }

  get stats(): PrincipalCacheStats {
    return {
      size: this.entries.size,
      hits: this.hits,
      misses: this.misses,
      active: this.active(),
    };
  }

  /** The generation to pass to `set` after a lookup started now. */
  get generation(): number {
    return this.gen;
  }

  /**
   * Whether the cache may be used now. PostgreSQL: only while the listener is connected (the
   * first call starts it). SQLite: always, after dropping everything if another connection
   * committed since the last check.
   */
  private active(): boolean {
    if (this.closed) return false;
    if (this.opts.dialect === 'postgres') {
      if (!this.listening) this.startListener();
      return this.listening;
    }
    if (this.opts.dataVersion) {
      // The pragma takes a read lock (several µs): at most once per DATA_VERSION_EVERY_MS.
      const now = performance.now();
      if (now - this.dataVersionCheckedAt >= DATA_VERSION_EVERY_MS) {
        this.dataVersionCheckedAt = now;
        const dv = this.opts.dataVersion();
        if (dv !== this.lastDataVersion) {
          if (this.lastDataVersion !== undefined) this.clear();
          this.lastDataVersion = dv;
        }
      }
    }
    return true;
  }

  /**
   * The cached principal of a token hash, or undefined (not cached, stale, or the cache is not
   * active). `expired` is set when the cached token has expired: 401 without a query.
   */
  get(hash: string, nowMs: number): { principal: Principal } | { expired: true } | undefined {
    if (!this.active()) return undefined;
    const e = this.entries.get(hash);
    if (!e) {
      this.misses++;
      return undefined;
    }
    if (nowMs - e.cachedAtMs > this.ttlMs || nowMs < e.cachedAtMs) {
      this.entries.delete(hash);
      this.misses++;
      return undefined;
    }
    this.hits++;
    if (e.expiry !== null && e.expiry <= isoSeconds(nowMs)) {
      this.entries.delete(hash);
      return { expired: true };
    }
    // Most recently used last: re-insert unless it already is the newest.
    this.entries.delete(hash);
    this.entries.set(hash, e);
    return { principal: e.principal };
  }

  /** Stores a lookup's result unless an invalidation happened since `generation` was read. */
  set(
    hash: string,
    principal: Principal,
    expiry: string | null,
    nowMs: number,
    generation: number,
  ): void {
    if (generation !== this.gen || !this.active()) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal: Object.freeze(principal), expiry, cachedAtMs: nowMs });
  }

  /** Applies a change in this process. */
  apply(change: PrincipalChange): void {
    this.gen++;
    if (change.kind === 'all') {
      this.entries.clear();
      return;
    }
    for (const [hash, e] of this.entries) {
      const p = e.principal;
      if (change.kind === 'token' ? p.tokenId === change.id : p.userId === change.id) {
        this.entries.delete(hash);
      }
    }
  }

  clear(): void {
    this.apply({ kind: 'all' });
  }

  /**
   * Records a change inside the mutation's transaction: applied here at commit, and on
   * PostgreSQL notified to every process at commit.
   */
  async publish(db: Database, change: PrincipalChange): Promise<void> {
    if (db.dialect === 'postgres') {
      await sql`select pg_notify(${PRINCIPALS_CHANNEL}, ${encode(change)})`.execute(db.db);
    }
    db.onCommit(() => this.apply(change));
  }

  private startListener(): void {
    if (this.connecting || this.listening || this.closed || this.retryTimer || !this.opts.url)
      return;
    this.connecting = true;
    const client = new (pg().Client)({
      connectionString: this.opts.url,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    this.listener = client;
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      this.listening = false;
      this.connecting = false;
      this.clear();
      if (this.listener === client) this.listener = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (this.closed) return;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.startListener();
      }, this.retryMs);
      this.retryTimer.unref();
      this.retryMs = Math.min(RECONNECT_MAX_MS, this.retryMs * 2);
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (msg) => {
      if (msg.channel !== PRINCIPALS_CHANNEL) return;
      const change = decode(msg.payload);
      this.apply(change ?? { kind: 'all' });
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${PRINCIPALS_CHANNEL}`))
      .then(() => {
        if (lost) return;
        if (this.closed) {
          void client.end().catch(() => {});
          return;
        }
        // Whatever was notified before LISTEN took effect is unknown: start empty.
        this.clear();
        this.connecting = false;
        this.listening = true;
        this.retryMs = RECONNECT_MIN_MS;
      })
      .catch(onLost);
  }

  /** The backend pid of the listener connection (tests), or undefined. */
  get listenerPid(): number | undefined {
    return this.listening
      ? (this.listener as unknown as { processID?: number } | undefined)?.processID
      : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.entries.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    if (client) await client.end().catch(() => {});
  }
}

function encode(change: PrincipalChange): string {
  return change.kind === 'all' ? 'all' : `${change.kind}:${change.id}`;
}

function decode(payload: string | undefined): PrincipalChange | undefined {
  const m = /^(token|user):(\d+)$/.exec(payload ?? '');
  if (!m) return undefined;
  return { kind: m[1] as 'token' | 'user', id: Number(m[2]) };
}

const PRINCIPALS = new DatabaseSlot<PrincipalCache>('principals');

/**
 * The principal cache of a database connection, shared by its transactions: made on first use
 * and closed with the connection. The database layer only holds it.
 */
export function principalCache(db: Database): PrincipalCache {
  return db.slot(PRINCIPALS, () => {
    const cache = new PrincipalCache({
      dialect: db.dialect,
      ...(db.dialect === 'postgres' ? { url: db.url } : {}),
      ...(db.dataVersion ? { dataVersion: db.dataVersion } : {}),
    });
    db.onClose(() => cache.close());
    return cache;
  });
}

/** Records a change of what principals hold; call inside the mutation's transaction. */
export function principalChanged(db: Database, change: PrincipalChange): Promise<void> {
  return principalCache(db).publish(db, change);
}
