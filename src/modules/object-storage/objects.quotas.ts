import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Page, PageParams } from '../../lib/pagination.js';
import { endpointOf, s3Endpoint } from './objects.clusters.js';
import type { ApiEndpoint, ApiGlobalQuota, ApiQuota, ApiQuotaUsage } from './objects.schemas.js';

/** A quota of each endpoint, as the real service lists them (limits per account, per endpoint). */
interface QuotaDef {
  type: string;
  name: string;
  description: string;
  limit: number;
  metric: string;
  /** Counted from the stored buckets: `buckets`, `objects` or `bytes`; none for throughput. */
  counts?: 'buckets' | 'objects' | 'bytes';
}

/** Buckets per account and endpoint (the `obj-buckets` quota), refused beyond it. */
export const BUCKETS_PER_ENDPOINT = 1000;
/** Objects (every version and delete marker) per account and endpoint (`obj-objects`). */
export const OBJECTS_PER_ENDPOINT = 100_000_000;
/** Bytes per account and endpoint (`obj-bytes`, 100 TiB). */
export const BYTES_PER_ENDPOINT = 109_951_162_777_600;
/** Access keys per account (the global `keys` quota), refused beyond it. */
export const KEYS_PER_ACCOUNT = 100;

export const ENDPOINT_QUOTAS: readonly QuotaDef[] = [
  {
    type: 'obj-bytes',
    name: 'Total Capacity',
    description: 'Current total capacity per account, per endpoint',
    limit: BYTES_PER_ENDPOINT,
    metric: 'byte',
    counts: 'bytes',
  },
  {
    type: 'obj-objects',
    name: 'Number of Objects',
    description: 'Current number of objects per account, per endpoint',
    limit: OBJECTS_PER_ENDPOINT,
    metric: 'object',
    counts: 'objects',
  },
  {
    type: 'obj-buckets',
    name: 'Number of Buckets',
    description: 'Current number of buckets per account, per endpoint',
    limit: BUCKETS_PER_ENDPOINT,
    metric: 'bucket',
    counts: 'buckets',
  },
  {
    type: 'obj-total-ingress-throughput',
    name: 'Ingress Throughput (per endpoint)',
    description: 'Current total ingress bandwidth per account, per endpoint',
    limit: 1_250_000_000,
    metric: 'byte_per_second',
  },
  {
    type: 'obj-total-egress-throughput',
    name: 'Egress Throughput (per endpoint)',
    description: 'Current total egress bandwidth per account, per endpoint',
    limit: 1_250_000_000,
    metric: 'byte_per_second',
  },
  {
    type: 'obj-per-ip-ingress-throughput',
    name: 'Ingress Throughput (per IP)',
    description: 'Current ingress bandwidth per account, per destination IP address',
    limit: 156_250_000,
    metric: 'byte_per_second',
  },
  {
    type: 'obj-per-ip-egress-throughput',
    name: 'Egress Throughput (per IP)',
    description: 'Current egress bandwidth per account, per destination IP address',
    limit: 250_000_000,
    metric: 'byte_per_second',
  },
];

const KEYS_QUOTA = {
  quota_id: 'keys',
  quota_name: 'Number of Access Keys',
  quota_type: 'keys',
  description: 'Current number of access keys per account',
  quota_limit: KEYS_PER_ACCOUNT,
  resource_metric: 'key',
  has_usage: true,
} satisfies ApiGlobalQuota;

function paged<T>(all: T[], params: PageParams): Page<T> {
  const size = params.page_size ?? 100;
  const page = params.page ?? 1;
  return {
    data: all.slice((page - 1) * size, page * size),
    page,
    pages: Math.max(1, Math.ceil(all.length / size)),
    results: all.length,
  };
}

/** The account's buckets, objects (every version) and bytes in one cluster. */
export async function clusterUsage(
  db: Database,
  accountId: number,
  cluster: string,
): Promise<{ buckets: number; objects: number; bytes: number }> {
  const row = await db.db
    .selectFrom('obj_buckets')
    .select((eb) => [
      eb.fn.countAll().as('buckets'),
      eb.fn.sum<number | string | null>('objects').as('objects'),
      eb.fn.sum<number | string | null>('size').as('bytes'),
    ])
    .where('account_id', '=', accountId)
    .where('cluster', '=', cluster)
    .executeTakeFirst();
  return {
    buckets: Number(row?.buckets ?? 0),
    objects: Number(row?.objects ?? 0),
    bytes: Number(row?.bytes ?? 0),
  };
}

/** `/object-storage/endpoints`, `/quotas` and `/global-quotas`, with usage from stored rows. */
export class QuotasService {
  constructor(private readonly d: { db: Database; clusters: readonly string[] }) {}

  endpoints(base: string, params: PageParams): Page<ApiEndpoint> {
    return paged(
      this.d.clusters.map((c) => {
        const e = endpointOf(c);
        return {
          region: e.region,
          endpoint_type: e.endpoint_type,
          s3_endpoint: s3Endpoint(base, c),
        };
      }),
      params,
    );
  }

  private all(base: string): { quota: ApiQuota; cluster: string; def: QuotaDef }[] {
    return this.d.clusters.flatMap((cluster) => {
      const e = endpointOf(cluster);
      return ENDPOINT_QUOTAS.map((def) => ({
        cluster,
        def,
        quota: {
          quota_id: `${def.type}-${cluster}`,
          quota_name: def.name,
          quota_type: def.type,
          endpoint_type: e.endpoint_type,
          s3_endpoint: s3Endpoint(base, cluster),
          description: def.description,
          quota_limit: def.limit,
          resource_metric: def.metric,
          has_usage: def.counts !== undefined,
        },
      }));
    });
  }

  private find(base: string, id: string) {
    const q = this.all(base).find((x) => x.quota.quota_id === id);
    if (!q) throw errors.notFound();
    return q;
  }

  quotas(p: Principal, base: string, params: PageParams): Page<ApiQuota> {
    authz.requireAccountAccess(p, 'read_only');
    return paged(
      this.all(base).map((x) => x.quota),
      params,
    );
  }

  quota(p: Principal, base: string, id: string): ApiQuota {
    authz.requireAccountAccess(p, 'read_only');
    return this.find(base, id).quota;
  }

  async usage(p: Principal, base: string, id: string): Promise<ApiQuotaUsage> {
    authz.requireAccountAccess(p, 'read_only');
    const { def, cluster } = this.find(base, id);
    if (!def.counts) throw errors.reason(`Usage is not available for quota ${id}.`);
    const u = await clusterUsage(this.d.db, p.accountId, cluster);
    return { quota_limit: def.limit, usage: u[def.counts] };
  }

  globalQuotas(p: Principal, params: PageParams): Page<ApiGlobalQuota> {
    authz.requireAccountAccess(p, 'read_only');
    return paged([KEYS_QUOTA], params);
  }

  globalQuota(p: Principal, id: string): ApiGlobalQuota {
    authz.requireAccountAccess(p, 'read_only');
    if (id !== KEYS_QUOTA.quota_id) throw errors.notFound();
    return KEYS_QUOTA;
  }

  async globalUsage(p: Principal, id: string): Promise<ApiQuotaUsage> {
    this.globalQuota(p, id);
    return { quota_limit: KEYS_PER_ACCOUNT, usage: await keyCount(this.d.db, p.accountId) };
  }
}

/** The account's access keys (the internal signing key is not one). */
export async function keyCount(db: Database, accountId: number): Promise<number> {
  const row = await db.db
    .selectFrom('obj_keys')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('system', '=', 0)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
