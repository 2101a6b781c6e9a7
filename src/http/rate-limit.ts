import type { RateLimitClass } from './route-config.js';

export interface Limit {
  limit: number;
  windowMs: number;
}

/** The documented limits (reference §5). */
export const LIMITS = {
  general: { limit: 800, windowMs: 120_000 },
  operation: { limit: 400, windowMs: 60_000 },
  paged: { limit: 200, windowMs: 60_000 },
  compute_create: { limit: 10, windowMs: 30_000 },
  volume_create: { limit: 25, windowMs: 60_000 },
  images_list: { limit: 20, windowMs: 60_000 },
  stats: { limit: 50, windowMs: 60_000 },
  object_storage: { limit: 750, windowMs: 1_000 },
  ticket_create: { limit: 2, windowMs: 60_000 },
  transfer_accept: { limit: 2, windowMs: 60_000 },
} satisfies Record<'general' | 'operation' | 'paged' | RateLimitClass, Limit>;

export interface Hit {
  count: number;
  resetMs: number;
}

/**
 * Fixed-window counters: in process memory (one API process), or in the database when several
 * API processes serve one account (PostgreSQL: src/modules/controls/rate-limit-store.ts).
 */
export interface RateLimitStore {
  /** Counts one request against each key; answers each key's window. */
  hitMany(hits: { key: string; limit: Limit }[], nowMs: number): Hit[] | Promise<Hit[]>;
  reset(): void | Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  hitMany(hits: { key: string; limit: Limit }[], nowMs: number): Hit[] {
    return hits.map((h) => ({ ...this.hit(h.key, h.limit, nowMs) }));
  }

  private readonly windows = new Map<string, Hit>();
  private lastSweep = 0;

  hit(key: string, limit: Limit, nowMs: number): Hit {
    if (nowMs - this.lastSweep > 60_000) this.sweep(nowMs);
    const start = Math.floor(nowMs / limit.windowMs) * limit.windowMs;
    const k = `${key}@${start}`;
    const cur = this.windows.get(k);
    if (cur) {
      cur.count++;
      return cur;
    }
    const fresh = { count: 1, resetMs: start + limit.windowMs };
    this.windows.set(k, fresh);
    return fresh;
  }

  reset(): void {
    this.windows.clear();
  }

  private sweep(nowMs: number): void {
    this.lastSweep = nowMs;
    for (const [k, v] of this.windows) if (v.resetMs <= nowMs) this.windows.delete(k);
  }
}

export interface RateDecision {
  /** The limit reported in headers: the operation's own. */
  limit: number;
  remaining: number;
  resetMs: number;
  /** Set when a limit is exceeded. */
  retryAfterSeconds?: number;
}

/**
 * Counts one request against the general and the operation limits: synchronously with the
 * in-process store, a promise with the database's.
 */
export function checkRateLimit(
  store: RateLimitStore,
  who: string,
  operationId: string,
  opClass: RateLimitClass | 'paged' | 'operation',
  nowMs: number,
): RateDecision | Promise<RateDecision> {
  const opLimit = LIMITS[opClass];
  const res = store.hitMany(
    [
      { key: `${who}|*`, limit: LIMITS.general },
      { key: `${who}|${operationId}`, limit: opLimit },
    ],
    nowMs,
  );
  return res instanceof Promise
    ? res.then((hits) => decide(hits as [Hit, Hit], opLimit, nowMs))
    : decide(res as [Hit, Hit], opLimit, nowMs);
}

function decide([general, op]: [Hit, Hit], opLimit: Limit, nowMs: number): RateDecision {
  const decision: RateDecision = {
    limit: opLimit.limit,
    remaining: Math.max(0, opLimit.limit - op.count),
    resetMs: op.resetMs,
  };
  if (op.count > opLimit.limit)
    decision.retryAfterSeconds = Math.max(1, Math.ceil((op.resetMs - nowMs) / 1000));
  else if (general.count > LIMITS.general.limit) {
    decision.retryAfterSeconds = Math.max(1, Math.ceil((general.resetMs - nowMs) / 1000));
    decision.remaining = 0;
    decision.resetMs = general.resetMs;
  }
  return decision;
}
