import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { NETWORK_TRANSFER_PRICES, OBJECT_STORAGE_PRICES } from '../billing/prices.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { transferBytes } from '../compute/stats.service.js';

/** Transfer is counted in decimal gigabytes, as the pool's quotas are. */
const GB = 1e9;

export interface PoolUse {
  quota: number;
  used: number;
  billable: number;
}
export interface AccountTransfer extends PoolUse {
  region_transfers: (PoolUse & { id: string })[];
}

/** Regions whose transfer has its own pool (and price): those priced apart in the catalogue. */
export function separatePoolRegions(): string[] {
  const nt = NETWORK_TRANSFER_PRICES.find((p) => p.id === 'network_transfer');
  return (nt?.region_prices ?? []).map((r) => r.id);
}

function monthOf(nowMs: number): { start: number; end: number } {
  const d = new Date(nowMs);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/**
 * The account's network transfer this month (`GET /account/transfer`), in GB, from what really
 * moved: each instance's public outbound traffic while it ran for this account (the same
 * samples as its statistics and `…/transfer`, so deleted and transferred instances count for the
 * time they were the account's), and object storage's outbound bytes. Quotas: each instance
 * type's monthly transfer, prorated over the part of the month the instance is billed to the
 * account (its billing periods; an open one counts to the month's end), plus object storage's
 * 1 TB while it is active. Regions priced apart have their own pool (`region_transfers`).
 */
export class NetworkUsageService {
  constructor(private readonly d: { db: Database; clock: Clock; catalogue: CatalogueService }) {}

  async transfer(p: Principal): Promise<AccountTransfer> {
    authz.requireAccountAccess(p, 'read_only');
    return this.compute(this.d.db, p.accountId);
  }

  async compute(db: Database, accountId: number): Promise<AccountTransfer> {
    const now = this.d.clock.nowMs();
    const { start, end } = monthOf(now);
    const span = end - start;
    const apart = new Set(separatePoolRegions());
    const pools = new Map<string, { quotaGb: number; bytes: number }>();
    const pool = (region: string | null) => {
      const key = region !== null && apart.has(region) ? region : '';
      let v = pools.get(key);
      if (!v) {
        v = { quotaGb: 0, bytes: 0 };
        pools.set(key, v);
      }
      return v;
    };
    pool(null);

    // Quotas, and which region each instance was billed in, from the billing periods.
    const facts = await db.db
      .selectFrom('billing_facts')
      .select(['entity_type', 'entity_id', 'kind', 'ref', 'region', 'from_ms', 'to_ms'])
      .where('account_id', '=', accountId)
      .where('kind', 'in', ['compute_type', 'object_storage'])
      .where('from_ms', '<', end)
      .where((eb) => eb.or([eb('to_ms', 'is', null), eb('to_ms', '>', start)]))
      .execute();
    const regionOf = new Map<number, string | null>();
    for (const f of facts) {
      const from = Math.max(Number(f.from_ms), start);
      const to = f.to_ms === null ? end : Math.min(Number(f.to_ms), end);
      if (to <= from) continue;
      const share = (to - from) / span;
      if (f.kind === 'object_storage') {
        pool(null).quotaGb += (OBJECT_STORAGE_PRICES[0]?.transfer ?? 0) * share;
        continue;
      }
      regionOf.set(Number(f.entity_id), f.region);
      pool(f.region).quotaGb += (this.d.catalogue.type(f.ref)?.transfer ?? 0) * share;
    }

    // Bytes the instances sent while they ran for this account.
    const runs = await db.db
      .selectFrom('instance_runs')
      .select(['instance_id', 'started_ms', 'stopped_ms'])
      .where('account_id', '=', accountId)
      .where('started_ms', '<', now)
      .where((eb) => eb.or([eb('stopped_ms', 'is', null), eb('stopped_ms', '>', start)]))
      .orderBy('instance_id')
      .orderBy('started_ms')
      .execute();
    const byInstance = new Map<number, { start: number; end: number }[]>();
    for (const r of runs) {
      const list = byInstance.get(r.instance_id) ?? [];
      list.push({
        start: Number(r.started_ms),
        end: r.stopped_ms === null ? now : Number(r.stopped_ms),
      });
      byInstance.set(r.instance_id, list);
    }
    for (const [id, list] of byInstance) {
      const out = transferBytes(
        { id, vcpus: 1, hasPrivate: false, createdMs: 0, runs: list },
        start,
        now,
      ).out;
      pool(regionOf.get(id) ?? null).bytes += out;
    }

    // Object storage's outbound bytes (the S3 data plane counts them).
    const obj = await db.db
      .selectFrom('obj_transfer')
      .select('bytes_out')
      .where('account_id', '=', accountId)
      .where('month', '=', new Date(start).toISOString().slice(0, 7))
      .executeTakeFirst();
    pool(null).bytes += Number(obj?.bytes_out ?? 0);

    const use = (v: { quotaGb: number; bytes: number }): PoolUse => {
      const quota = Math.round(v.quotaGb);
      const used = Math.ceil(v.bytes / GB);
      return { quota, used, billable: Math.max(0, used - quota) };
    };
    const global = use(pool(null));
    const regions = [...pools.entries()]
      .filter(([k]) => k !== '')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, v]) => ({ id, ...use(v) }));
    return { ...global, region_transfers: regions };
  }
}
