/** Calendar months (UTC), the billing period. */

/** Start (inclusive) and end (exclusive) of the UTC month holding `ms`. */
export function monthBounds(ms: number): { start: number; end: number } {
  const d = new Date(ms);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start, end };
}

/** `YYYY-MM` of a month start. */
export const periodOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
