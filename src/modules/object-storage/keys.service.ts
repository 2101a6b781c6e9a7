import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { activateObjectStorage } from '../billing/billables.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, pageOf } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import type { Sealer } from '../../platform/sealer.js';
import { assertPositiveStanding } from './objects.rules.js';
import { endpointOf, regionOfCluster, s3Endpoint } from './objects.clusters.js';
import { KEYS_PER_ACCOUNT, keyCount } from './objects.quotas.js';
import type {
  ApiBucketAccess,
  ApiKey,
  ApiKeyRegion,
  BucketAccessRequestT,
  CreateKey,
  UpdateKey,
} from './objects.schemas.js';
import type { ObjKeysTable } from './objects.table.js';

type KeyRow = Selectable<ObjKeysTable>;

const ACCESS_KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const REDACTED = '[REDACTED]';
const LABEL_MAX = 50;

function accessKey(): string {
  const bytes = randomBytes(20);
  return Array.from(bytes, (b) => ACCESS_KEY_CHARS[b % ACCESS_KEY_CHARS.length]).join('');
}

/** 40 characters of base64url, like the real service's secret keys. */
function secretKey(): string {
  return randomBytes(30).toString('base64url');
}

/** Key events have no entity (no enum value fits): the message names the key. */
export const keyMessage = (id: number, label: string, accessKey: string): string =>
  `Object Storage access key ${id} "${label}" (${accessKey})`;

export interface KeyDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  sealer: Sealer;
  clusters: readonly string[];
}

/**
 * Object storage access keys. Secrets are sealed (SigV4 verification needs them back) and shown
 * only in the create response. The account's internal signing key (`system`) is never listed.
 */
export class KeysService {
  constructor(private readonly d: KeyDeps) {}

  private async access(db: Database, ids: number[]): Promise<Map<number, ApiBucketAccess[]>> {
    const out = new Map<number, ApiBucketAccess[]>();
    if (ids.length === 0) return out;
    const rows = await db.db
      .selectFrom('obj_key_buckets')
      .selectAll()
      .where('key_id', 'in', ids)
      .orderBy('key_id')
      .orderBy('cluster')
      .orderBy('bucket_name')
      .execute();
    for (const r of rows) {
      const list = out.get(r.key_id) ?? [];
      list.push({
        cluster: r.cluster,
        region: regionOfCluster(r.cluster),
        bucket_name: r.bucket_name,
        permissions: r.permissions,
      });
      out.set(r.key_id, list);
    }
    return out;
  }

  /** The clusters a key works in: those of its regions, or every cluster. */
  private keyClusters(r: Pick<KeyRow, 'regions'>): string[] {
    const regions = keyRegions(r);
    return regions === null
      ? [...this.d.clusters]
      : this.d.clusters.filter((c) => regions.includes(regionOfCluster(c)));
  }

  private toApi(
    base: string,
    r: KeyRow,
    access: Map<number, ApiBucketAccess[]>,
    secret = REDACTED,
  ): ApiKey {
    return {
      id: r.id,
      label: r.label,
      access_key: r.access_key,
      secret_key: secret,
      limited: r.limited === 1,
      bucket_access: r.limited === 1 ? (access.get(r.id) ?? []) : null,
      regions: this.keyClusters(r).map(
        (c): ApiKeyRegion => ({
          id: regionOfCluster(c),
          s3_endpoint: s3Endpoint(base, c),
          endpoint_type: endpointOf(c).endpoint_type,
        }),
      ),
    };
  }

  /** Checks `regions` (each a region offering Object Storage, once); null when not given. */
  private checkRegions(regions: string[] | undefined, fe: FieldErrors): string[] | null {
    if (regions === undefined) return null;
    if (regions.length === 0) fe.add('regions', 'At least one region is required.');
    const seen = new Set<string>();
    regions.forEach((r, i) => {
      if (!this.d.clusters.includes(`${r}-1`))
        fe.add(`regions[${i}]`, `Region ${r} does not support Object Storage.`);
      else if (seen.has(r)) fe.add(`regions[${i}]`, `Region ${r} is listed twice.`);
      seen.add(r);
    });
    return regions;
  }

  private async load(db: Database, p: Principal, id: number): Promise<KeyRow> {
    const row = await db.db
      .selectFrom('obj_keys')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', p.accountId)
      .where('system', '=', 0)
      .executeTakeFirst();
    if (!row) throw errors.notFound('The specified access key was not found.');
    return row;
  }

  async list(p: Principal, s3Base: string, params: PageParams): Promise<Page<ApiKey>> {
    authz.requireAccountAccess(p, 'read_only');
    const base = this.d.db.db
      .selectFrom('obj_keys')
      .where('account_id', '=', p.accountId)
      .where('system', '=', 0);
    const page = await pageOf(
      params,
      (limit, offset) => base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      async () =>
        Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0),
    );
    const access = await this.access(
      this.d.db,
      page.data.map((r) => r.id),
    );
    return { ...page, data: page.data.map((r) => this.toApi(s3Base, r, access)) };
  }

  async get(p: Principal, base: string, id: number): Promise<ApiKey> {
    authz.requireAccountAccess(p, 'read_only');
    const row = await this.load(this.d.db, p, id);
    return this.toApi(base, row, await this.access(this.d.db, [id]));
  }

  /**
   * Each entry's cluster: its `region`'s, or its (deprecated) `cluster`; both given must agree.
   * A key limited to regions reaches buckets of those regions only.
   */
  private checkAccess(
    list: BucketAccessRequestT[],
    regions: string[] | null,
    fe: FieldErrors,
  ): ApiBucketAccess[] {
    const seen = new Set<string>();
    const out: ApiBucketAccess[] = [];
    list.forEach((a, i) => {
      let cluster: string | undefined;
      if (a.region !== undefined) {
        if (this.d.clusters.includes(`${a.region}-1`)) cluster = `${a.region}-1`;
        else
          fe.add(
            `bucket_access[${i}].region`,
            `Region ${a.region} does not support Object Storage.`,
          );
      }
      if (a.cluster !== undefined) {
        if (!this.d.clusters.includes(a.cluster))
          fe.add(`bucket_access[${i}].cluster`, 'Cluster not found');
        else if (cluster !== undefined && cluster !== a.cluster)
          fe.add(`bucket_access[${i}].cluster`, 'The cluster is not in the region given.');
        else cluster = a.cluster;
      }
      if (a.region === undefined && a.cluster === undefined)
        fe.add(`bucket_access[${i}].region`, 'region is required');
      if (cluster === undefined) return;
      const region = regionOfCluster(cluster);
      if (regions !== null && !regions.includes(region))
        fe.add(`bucket_access[${i}].region`, `Region ${region} is not one of the key's regions.`);
      const id = `${cluster}/${a.bucket_name}`;
      if (seen.has(id)) fe.add(`bucket_access[${i}].bucket_name`, 'Bucket listed twice');
      seen.add(id);
      out.push({ cluster, region, bucket_name: a.bucket_name, permissions: a.permissions });
    });
    return out;
  }

  /**
   * A key acts for the user who creates it: it is removed with that user, and a restricted
   * creator's key works on the data plane only while the creator keeps `account_access:
   * read_write` (objects.rules.ts, keyUsable).
   */
  async create(p: Principal, base: string, body: CreateKey): Promise<ApiKey> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    const label = body.label ?? '';
    if (label.length > LABEL_MAX)
      fe.add('label', `Length must be ${LABEL_MAX} characters or less.`);
    const regions = this.checkRegions(body.regions, fe);
    const bucketAccess = body.bucket_access
      ? this.checkAccess(body.bucket_access, regions, fe)
      : [];
    fe.throwIfAny();
    const limited = body.bucket_access !== undefined;
    const secret = secretKey();
    // Sealed before the transaction: the sealer may read the keyring through its own connection.
    const sealed = await this.d.sealer.seal(secret);
    return this.d.db.transaction(async (tx) => {
      await assertPositiveStanding(tx, p.accountId);
      // The global `keys` quota; the account row serializes concurrent creates.
      await tx
        .forUpdate(tx.db.selectFrom('accounts').select('id').where('id', '=', p.accountId))
        .executeTakeFirst();
      if ((await keyCount(tx, p.accountId)) >= KEYS_PER_ACCOUNT)
        throw errors.reason(
          `You have reached the limit of ${KEYS_PER_ACCOUNT} Object Storage access keys.`,
        );
      if (limited) {
        for (const [i, a] of bucketAccess.entries()) {
          const b = await tx.db
            .selectFrom('obj_buckets')
            .select('id')
            .where('account_id', '=', p.accountId)
            .where('cluster', '=', a.cluster)
            .where('label', '=', a.bucket_name)
            .executeTakeFirst();
          if (!b) throw errors.invalidField(`bucket_access[${i}].bucket_name`, 'Bucket not found');
        }
      }
      await activateObjectStorage(tx, p.accountId, isoSeconds(this.d.clock.nowMs()));
      const { id } = await tx.db
        .insertInto('obj_keys')
        .values({
          account_id: p.accountId,
          user_id: p.userId,
          label,
          access_key: accessKey(),
          secret_sealed: sealed,
          limited: limited ? 1 : 0,
          system: 0,
          regions: regions === null ? null : JSON.stringify(regions),
          created: isoSeconds(this.d.clock.nowMs()),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const a of bucketAccess) {
        await tx.db
          .insertInto('obj_key_buckets')
          .values({
            key_id: id,
            cluster: a.cluster,
            bucket_name: a.bucket_name,
            permissions: a.permissions,
          })
          .execute();
      }
      const row = await this.load(tx, p, id);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'obj_access_key_create',
        entity: null,
        message: keyMessage(id, label, row.access_key),
        status: 'notification',
        username: p.username,
      });
      return this.toApi(base, row, await this.access(tx, [id]), secret);
    });
  }

  /**
   * Changes the label or the regions (replaced whole; a limited key's buckets must stay within
   * them).
   */
  async update(p: Principal, base: string, id: number, body: UpdateKey): Promise<ApiKey> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    if (body.label !== undefined && body.label.length > LABEL_MAX)
      fe.add('label', `Length must be ${LABEL_MAX} characters or less.`);
    const regions = this.checkRegions(body.regions, fe);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id);
      const label = body.label ?? row.label;
      const stored = regions === null ? row.regions : JSON.stringify(regions);
      if (regions !== null) {
        const outside = (await this.access(tx, [id]))
          .get(id)
          ?.find((a) => !regions.includes(a.region));
        if (outside)
          throw errors.invalidField(
            'regions',
            `The key reaches bucket ${outside.bucket_name} in region ${outside.region}.`,
          );
      }
      await tx.db
        .updateTable('obj_keys')
        .set({ label, regions: stored })
        .where('id', '=', id)
        .execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'obj_access_key_update',
        entity: null,
        message: keyMessage(id, label, row.access_key),
        status: 'notification',
        username: p.username,
      });
      return this.toApi(base, { ...row, label, regions: stored }, await this.access(tx, [id]));
    });
  }

  async revoke(p: Principal, id: number): Promise<Record<string, never>> {
    authz.requireAccountAccess(p, 'read_write');
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id);
      await tx.db.deleteFrom('obj_keys').where('id', '=', id).execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'obj_access_key_delete',
        entity: null,
        message: keyMessage(id, row.label, row.access_key),
        status: 'notification',
        username: p.username,
      });
    });
    return {};
  }

  /** The account's internal key that signs pre-signed URLs, created on first use. */
  async systemKey(accountId: number): Promise<{ accessKey: string; secret: string }> {
    const find = () =>
      this.d.db.db
        .selectFrom('obj_keys')
        .select(['access_key', 'secret_sealed'])
        .where('account_id', '=', accountId)
        .where('system', '=', 1)
        .orderBy('id')
        .executeTakeFirst();
    let row = await find();
    if (!row) {
      const sealed = await this.d.sealer.seal(secretKey());
      await this.d.db.transaction(async (tx) => {
        const again = await tx
          .forUpdate(tx.db.selectFrom('accounts').select('id').where('id', '=', accountId))
          .executeTakeFirst();
        if (!again) throw errors.notFound();
        const exists = await tx.db
          .selectFrom('obj_keys')
          .select('id')
          .where('account_id', '=', accountId)
          .where('system', '=', 1)
          .executeTakeFirst();
        if (exists) return;
        await tx.db
          .insertInto('obj_keys')
          .values({
            account_id: accountId,
            user_id: null,
            label: 'pre-signed URLs',
            access_key: accessKey(),
            secret_sealed: sealed,
            limited: 0,
            system: 1,
            regions: null,
            created: isoSeconds(this.d.clock.nowMs()),
          })
          .execute();
      });
      row = await find();
    }
    if (!row) throw errors.internal();
    return { accessKey: row.access_key, secret: await this.d.sealer.open(row.secret_sealed) };
  }
}

/** A key's regions, or null for every region. */
export function keyRegions(r: Pick<KeyRow, 'regions'>): string[] | null {
  return r.regions === null ? null : (JSON.parse(r.regions) as string[]);
}
