import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import type { Hit, Limit, RateLimitStore } from '../../http/rate-limit.js';

const SWEEP_EVERY_MS = 60_000;

/**
 * Rate-limit counters in the database, shared by every API process (PostgreSQL): one statement
 * per request counts it against all its windows (an upsert that returns the new counts). Windows
 * that ended are deleted now and then.
 */
export class DbRateLimitStore implements RateLimitStore {
  private lastSweep = 0;

  constructor(private readonly db: Database) {}

  async hitMany(hits: { key: string; limit: Limit }[], nowMs: number): Promise<Hit[]> {
    if (nowMs - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = nowMs;
      void this.db.db
        .deleteFrom('rate_limit_counters')
        .where('reset_ms', '<=', nowMs)
        .execute()
        .catch(() => {});
    }
    const values = hits.map((h) => {
      const start = Math.floor(nowMs / h.limit.windowMs) * h.limit.windowMs;
      return { key: h.key, window_start: start, count: 1, reset_ms: start + h.limit.windowMs };
    });
    const rows = await this.db.db
      .insertInto('rate_limit_counters')
      .values(values)
      .onConflict((oc) =>
        oc
          .columns(['key', 'window_start'])
          .doUpdateSet({ count: sql`rate_limit_counters.count + 1` }),
      )
      .returning(['key', 'count', 'reset_ms'])
      .execute();
    const byKey = new Map(rows.map((r) => [r.key, r]));
    return values.map((v) => {
      const r = byKey.get(v.key);
      return { count: Number(r?.count ?? 1), resetMs: Number(r?.reset_ms ?? v.reset_ms) };
    });
  }

  async reset(): Promise<void> {
    await this.db.db.deleteFrom('rate_limit_counters').execute();
  }
}
