import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { activateObjectStorage, cancelObjectStorage } from '../billing/billables.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, pageOf } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { bucketHostname, toApiCluster } from './objects.clusters.js';
import type { ObjectData } from './objects.data.js';
import { type BucketRow, dropKeyAccess, findBucket, monthOf } from './objects.repository.js';
import { assertPositiveStanding, bucketLabelProblem } from './objects.rules.js';
import type { ApiBucket, ApiCluster, BucketAccess, CreateBucket } from './objects.schemas.js';

export interface BucketDeps {
  db: Database;
  clock: Clock;
  data: ObjectData;
  clusters: readonly string[];
  /** Bucket records announce virtual-host-style hostnames (STRATUS_S3_VIRTUAL_HOSTS). */
  virtualHosts: boolean;
}

export function toApiBucket(base: string, r: BucketRow, virtualHost = false): ApiBucket {
  return {
    created: r.created,
    cluster: r.cluster,
    label: r.label,
    hostname: bucketHostname(base, r.cluster, r.label, virtualHost),
    size: Number(r.size),
    objects: Number(r.objects),
  };
}

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

  /** The caller's bucket (404 for an unknown cluster, another account's bucket or none). */
  async load(db: Database, p: Principal, cluster: string, label: string): Promise<BucketRow> {
    const row = await findBucket(db, cluster, label);
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
    if (cluster !== undefined && !this.d.clusters.includes(cluster)) throw errors.notFound();
    let q = this.d.db.db.selectFrom('obj_buckets').where('account_id', '=', p.accountId);
    if (cluster !== undefined) q = q.where('cluster', '=', cluster);
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
    if (!this.d.clusters.includes(body.cluster)) fe.add('cluster', 'Cluster not found');
    fe.throwIfAny();
    const row = await this.createRow(p.accountId, body.cluster, body.label, {
      acl: body.acl ?? 'private',
      cors: body.cors_enabled ?? false,
    });
    return toApiBucket(base, row, this.d.virtualHosts);
  }

  /** Shared with the data plane's CreateBucket: `existed` tells an owner's repeat apart. */
  async createRow(
    accountId: number,
    cluster: string,
    label: string,
    o: { acl: BucketRow['acl']; cors: boolean },
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

  /** Deletes an empty bucket (objects and unfinished uploads count as content). */
  async removeRow(b: BucketRow, notEmpty: () => Error): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await tx
        .forUpdate(tx.db.selectFrom('obj_buckets').select('objects').where('id', '=', b.id))
        .executeTakeFirst();
      if (!row) return;
      const upload = await tx.db
        .selectFrom('obj_uploads')
        .select('id')
        .where('bucket_id', '=', b.id)
        .executeTakeFirst();
      if (Number(row.objects) > 0 || upload) throw notEmpty();
      await tx.db.deleteFrom('obj_buckets').where('id', '=', b.id).execute();
      await dropKeyAccess(tx, b.account_id, [b]);
    });
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
