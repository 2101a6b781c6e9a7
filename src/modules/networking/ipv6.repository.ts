import type { Database } from '../../db/database.js';
import type { Ipv6RangesTable } from './networking.table.js';

export type RangeRow = Omit<Ipv6RangesTable, 'id'> & { id: number };

/** The account's range whose network address is `range` (canonical text). */
export async function findRange(
  db: Database,
  accountId: number,
  range: string,
): Promise<RangeRow | undefined> {
  return db.db
    .selectFrom('ipv6_ranges')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('range', '=', range)
    .executeTakeFirst();
}

export async function rangesInRegion(db: Database, region: string): Promise<RangeRow[]> {
  return db.db.selectFrom('ipv6_ranges').selectAll().where('region', '=', region).execute();
}

/** Ranges routed to these instances. */
export async function rangesOf(db: Database, instanceIds: readonly number[]): Promise<RangeRow[]> {
  if (instanceIds.length === 0) return [];
  return db.db
    .selectFrom('ipv6_ranges')
    .selectAll()
    .where('instance_id', 'in', instanceIds)
    .orderBy('id')
    .execute();
}

/** Instances a range or an address is shared with. */
export async function sharesOf(
  db: Database,
  what: { ipId?: number; rangeId?: number },
): Promise<number[]> {
  let q = db.db.selectFrom('ip_shares').select('instance_id');
  if (what.ipId !== undefined) q = q.where('ip_id', '=', what.ipId);
  if (what.rangeId !== undefined) q = q.where('range_id', '=', what.rangeId);
  return (await q.orderBy('instance_id').execute()).map((r) => r.instance_id);
}
