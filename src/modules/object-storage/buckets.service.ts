import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { activateObjectStorage, cancelObjectStorage } from '../billing/billables.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, pageOf } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import {
  bucketHostname,
  endpointOf,
  resolveCluster,
  s3Endpoint,
  toApiCluster,
} from './objects.clusters.js';
import { BUCKETS_PER_ENDPOINT } from './objects.quotas.js';
import type { ObjectData } from './objects.data.js';
import { type BucketRow, dropKeyAccess, findBucket, monthOf } from './objects.repository.js';
import { assertPositiveStanding, bucketLabelProblem } from './objects.rules.js';
import { cannedAclDocument } from './s3/s3.acl.js';
import type {
  ApiBucket,
  ApiBucketAccessConfig,
  ApiCluster,
  BucketAccess,
  CreateBucket,
} from './objects.schemas.js';

/** Over the `obj-buckets` quota (RGW: TooManyBuckets). */
export const tooManyBuckets = () =>
  errors.reason(`You have reached the limit of ${BUCKETS_PER_ENDPOINT} buckets in this endpoint.`);

export interface BucketDeps {
  db: Database;
  clock: Clock;
  data: ObjectData;
  clusters: readonly string[];
  /** Bucket records announce virtual-host-style hostnames (STRATUS_S3_VIRTUAL_HOSTS). */
  virtualHosts: boolean;
}

export function toApiBucket(base: string, r: BucketRow, virtualHost = false): ApiBucket {
  const e = endpointOf(r.cluster);
  return {
    created: r.created,
    cluster: r.cluster,
    region: e.region,
    label: r.label,
    hostname: bucketHostname(base, r.cluster, r.label, virtualHost),
    size: Number(r.size),
    objects: Number(r.objects),
    endpoint_type: e.endpoint_type,
    s3_endpoint: s3Endpoint(base, r.cluster),
  };
}

/** The 404 of a path naming neither a cluster nor a region with Object Storage (as recorded). */
const noSuchRegion = () =>
  errors.notFound('The specified region was not found or does not support Object Storage.');

/** Clusters, buckets (create, list, view, delete, access), transfer and cancel. */
export class BucketsService {
  constructor(private readonly d: BucketDeps) {}

  clusters(base: string, params: PageParams): Page<ApiCluster> {
    const all = this.d.clusters.map((c) => toApiCluster(base, c));
    const size = params.page_size ?? 100;
    const page = params.page ?? 1;
    return {
      data: all.slice((page - 1) * size, page * size),
      page,
      pages: Math.max(1, Math.ceil(all.length / size)),
      results: all.length,
    };
  }

  cluster(base: string, id: string): ApiCluster {
    if (!this.d.clusters.includes(id)) throw errors.notFound();
    return toApiCluster(base, id);
  }

  /** A path's `{clusterId}` (a cluster or a region id) as its cluster; 404 for neither. */
  clusterOf(id: string): string {
    const c = resolveCluster(this.d.clusters, id);
    if (c === null) throw noSuchRegion();
    return c;
  }

  /** The caller's bucket (404 for an unknown cluster or region, another account's bucket or none). */
  async load(
    db: Database,
    p: Principal,
    clusterOrRegion: string,
    label: string,
  ): Promise<BucketRow> {
    const row = await findBucket(db, this.clusterOf(clusterOrRegion), label);
    if (!row || row.account_id !== p.accountId) throw errors.notFound();
    return row;
  }

  async list(
    p: Principal,
    base: string,
    params: PageParams,
    cluster?: string,
  ): Promise<Page<ApiBucket>> {
    authz.requireAccountAccess(p, 'read_only');
    const c = cluster === undefined ? undefined : this.clusterOf(cluster);
    let q = this.d.db.db.selectFrom('obj_buckets').where('account_id', '=', p.accountId);
    if (c !== undefined) q = q.where('cluster', '=', c);
    const page = await pageOf(
      params,
      (limit, offset) =>
        q.selectAll().orderBy('cluster').orderBy('label').limit(limit).offset(offset).execute(),
      async () =>
        Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0),
    );
    return { ...page, data: page.data.map((r) => toApiBucket(base, r, this.d.virtualHosts)) };
  }

  async get(p: Principal, base: string, cluster: string, label: string): Promise<ApiBucket> {
    authz.requireAccountAccess(p, 'read_only');
    return toApiBucket(base, await this.load(this.d.db, p, cluster, label), this.d.virtualHosts);
  }

  /**
   * Creates a bucket; an existing bucket of the caller's with that label in that cluster is
   * returned as it is. A label taken by another account in the cluster is refused.
   */
  async create(p: Principal, base: string, body: CreateBucket): Promise<ApiBucket> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    const problem = bucketLabelProblem(body.label);
    if (problem) fe.add('label', problem);
    const cluster = this.createCluster(base, body, fe);
    fe.throwIfAny();
    const row = await this.createRow(p.accountId, cluster as string, body.label, {
      acl: body.acl ?? 'private',
      cors: body.cors_enabled ?? false,
    });
    return toApiBucket(base, row, this.d.virtualHosts);
  }

  /**
   * Where a new bucket goes: its `region` (or the deprecated `cluster`; both must agree), and
   * the region's endpoint, which `endpoint_type` and `s3_endpoint` may name but not change.
   */
  private createCluster(base: string, body: CreateBucket, fe: FieldErrors): string | null {
    let cluster: string | null = null;
    if (body.region !== undefined) {
      cluster = this.d.clusters.includes(`${body.region}-1`) ? `${body.region}-1` : null;
      if (cluster === null) fe.add('region', 'Region does not support Object Storage.');
    }
    if (body.cluster !== undefined) {
      if (!this.d.clusters.includes(body.cluster)) fe.add('cluster', 'Cluster not found');
      else if (cluster !== null && cluster !== body.cluster)
        fe.add('cluster', 'The cluster is not in the region given.');
      else cluster = body.cluster;
    }
    if (body.region === undefined && body.cluster === undefined)
      fe.add('region', 'region is required');
    if (cluster === null) return null;
    const e = endpointOf(cluster);
    if (body.endpoint_type !== undefined && body.endpoint_type !== e.endpoint_type)
      fe.add(
        'endpoint_type',
        `Endpoint type ${body.endpoint_type} is not available in region ${e.region}.`,
      );
    if (body.s3_endpoint !== undefined && body.s3_endpoint !== s3Endpoint(base, cluster))
      fe.add('s3_endpoint', `S3 endpoint ${body.s3_endpoint} is not in region ${e.region}.`);
    return cluster;
  }

  /** Shared with the data plane's CreateBucket: `existed` tells an owner's repeat apart. */
  async createRow(
    accountId: number,
    cluster: string,
    label: string,
    o: {
      acl: BucketRow['acl'];
      cors: boolean;
      /** The data plane's grants (with `acl` 'custom') and object lock (versioning on). */
      grants?: string | null;
      objectLock?: boolean;
    },
  ): Promise<BucketRow & { existed?: boolean }> {
    const existing = await findBucket(this.d.db, cluster, label);
    if (existing) {
      if (existing.account_id === accountId) return { ...existing, existed: true };
      throw errors.invalidField(
        'label',
        'A bucket with this label already exists in this cluster.',
      );
    }
    try {
      return await this.d.db.transaction(async (tx) => {
        await assertPositiveStanding(tx, accountId);
        // The `obj-buckets` quota; the account row serializes concurrent creates.
        await tx
          .forUpdate(tx.db.selectFrom('accounts').select('id').where('id', '=', accountId))
          .executeTakeFirst();
        const n = await tx.db
          .selectFrom('obj_buckets')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .where('cluster', '=', cluster)
          .executeTakeFirst();
        if (Number(n?.n ?? 0) >= BUCKETS_PER_ENDPOINT) throw tooManyBuckets();
        await activateObjectStorage(tx, accountId, isoSeconds(this.d.clock.nowMs()));
        return tx.db
          .insertInto('obj_buckets')
          .values({
            account_id: accountId,
            cluster,
            label,
            acl: o.acl,
            cors_enabled: o.cors ? 1 : 0,
            ssl_cert: null,
            ssl_key_sealed: null,
            created: isoSeconds(this.d.clock.nowMs()),
            grants: o.grants ?? null,
            object_lock: o.objectLock ? 1 : 0,
            versioning: o.objectLock ? 'Enabled' : null,
            lock_config: null,
            policy: null,
            cors: null,
            lifecycle: null,
            website: null,
            tags: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const again = await findBucket(this.d.db, cluster, label);
      if (again?.account_id === accountId) return { ...again, existed: true };
      throw errors.invalidField(
        'label',
        'A bucket with this label already exists in this cluster.',
      );
    }
  }

  async remove(p: Principal, cluster: string, label: string): Promise<Record<string, never>> {
    authz.requireAccountAccess(p, 'read_write');
    const b = await this.load(this.d.db, p, cluster, label);
    await this.removeRow(b, () =>
      errors.reason('The bucket must be empty before it can be deleted.'),
    );
    return {};
  }

  /**
   * Deletes a bucket without objects (every version and delete marker counts). Unfinished
   * multipart uploads do not keep it: they are aborted with it, their parts' bytes freed after
   * the commit (as S3 and RGW delete a bucket).
   */
  async removeRow(b: BucketRow, notEmpty: () => Error): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await tx
        .forUpdate(tx.db.selectFrom('obj_buckets').select('objects').where('id', '=', b.id))
        .executeTakeFirst();
      if (!row) return;
      if (Number(row.objects) > 0) throw notEmpty();
      const parts = await tx.db
        .selectFrom('obj_parts')
        .innerJoin('obj_uploads', 'obj_uploads.id', 'obj_parts.upload_id')
        .select('obj_parts.blob')
        .where('obj_uploads.bucket_id', '=', b.id)
        .execute();
      await tx.db.deleteFrom('obj_buckets').where('id', '=', b.id).execute();
      await dropKeyAccess(tx, b.account_id, [b]);
      const blobs = parts.map((p) => p.blob);
      tx.onCommit(() => this.d.data.dropBlobs(blobs));
    });
  }

  /** The bucket's canned ACL and its grants, and whether CORS is on (`GET …/access`). */
  async accessGet(p: Principal, cluster: string, label: string): Promise<ApiBucketAccessConfig> {
    authz.requireAccountAccess(p, 'read_only');
    const b = await this.load(this.d.db, p, cluster, label);
    return {
      acl: b.acl as ApiBucketAccessConfig['acl'],
      acl_xml: cannedAclDocument(b.acl, p.accountEuuid, b.grants),
      cors_enabled: b.cors_enabled === 1,
      cors_xml: b.cors ?? null,
    };
  }

  async access(
    p: Principal,
    cluster: string,
    label: string,
    body: BucketAccess,
  ): Promise<Record<string, never>> {
    authz.requireAccountAccess(p, 'read_write');
    const b = await this.load(this.d.db, p, cluster, label);
    const set: { acl?: BucketRow['acl']; cors_enabled?: number } = {};
    if (body.acl !== undefined) set.acl = body.acl;
    if (body.cors_enabled !== undefined) set.cors_enabled = body.cors_enabled ? 1 : 0;
    if (Object.keys(set).length > 0)
      await this.d.db.db.updateTable('obj_buckets').set(set).where('id', '=', b.id).execute();
    return {};
  }

  /** Outbound bytes of the account's buckets this month. */
  async transfer(p: Principal): Promise<{ used: number }> {
    authz.requireAccountAccess(p, 'read_only');
    await this.d.data.meter.flush();
    const row = await this.d.db.db
      .selectFrom('obj_transfer')
      .select('bytes_out')
      .where('account_id', '=', p.accountId)
      .where('month', '=', monthOf(this.d.clock.nowMs()))
      .executeTakeFirst();
    return { used: Number(row?.bytes_out ?? 0) };
  }

  async cancel(p: Principal): Promise<Record<string, never>> {
    authz.requireAccountAccess(p, 'read_write');
    await this.d.data.removeAccountBuckets(p.accountId);
    await cancelObjectStorage(this.d.db, p.accountId, isoSeconds(this.d.clock.nowMs()));
    return {};
  }
}
