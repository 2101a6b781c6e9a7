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
import type { ApiBucketAccess, ApiKey, CreateKey, UpdateKey } from './objects.schemas.js';
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
      list.push({ cluster: r.cluster, bucket_name: r.bucket_name, permissions: r.permissions });
      out.set(r.key_id, list);
    }
    return out;
  }

  private toApi(r: KeyRow, access: Map<number, ApiBucketAccess[]>, secret = REDACTED): ApiKey {
    return {
      id: r.id,
      label: r.label,
      access_key: r.access_key,
      secret_key: secret,
      limited: r.limited === 1,
      bucket_access: r.limited === 1 ? (access.get(r.id) ?? []) : null,
    };
  }

  private async load(db: Database, p: Principal, id: number): Promise<KeyRow> {
    const row = await db.db
      .selectFrom('obj_keys')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', p.accountId)
      .where('system', '=', 0)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async list(p: Principal, params: PageParams): Promise<Page<ApiKey>> {
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
    return { ...page, data: page.data.map((r) => this.toApi(r, access)) };
  }

  async get(p: Principal, id: number): Promise<ApiKey> {
    authz.requireAccountAccess(p, 'read_only');
    const row = await this.load(this.d.db, p, id);
    return this.toApi(row, await this.access(this.d.db, [id]));
  }

  private checkAccess(list: ApiBucketAccess[], fe: FieldErrors): void {
    const seen = new Set<string>();
    list.forEach((a, i) => {
      if (!this.d.clusters.includes(a.cluster))
        fe.add(`bucket_access[${i}].cluster`, 'Cluster not found');
      const id = `${a.cluster}/${a.bucket_name}`;
      if (seen.has(id)) fe.add(`bucket_access[${i}].bucket_name`, 'Bucket listed twice');
      seen.add(id);
    });
  }

  /**
   * A key acts for the user who creates it: it is removed with that user, and a restricted
   * creator's key works on the data plane only while the creator keeps `account_access:
   * read_write` (objects.rules.ts, keyUsable).
   */
  async create(p: Principal, body: CreateKey): Promise<ApiKey> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    const label = body.label ?? '';
    if (label.length > LABEL_MAX)
      fe.add('label', `Length must be ${LABEL_MAX} characters or less.`);
    if (body.bucket_access) this.checkAccess(body.bucket_access, fe);
    fe.throwIfAny();
    const limited = body.bucket_access !== undefined;
    const secret = secretKey();
    // Sealed before the transaction: the sealer may read the keyring through its own connection.
    const sealed = await this.d.sealer.seal(secret);
    return this.d.db.transaction(async (tx) => {
      await assertPositiveStanding(tx, p.accountId);
      if (limited) {
        for (const [i, a] of (body.bucket_access ?? []).entries()) {
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
          created: isoSeconds(this.d.clock.nowMs()),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const a of body.bucket_access ?? []) {
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
      return this.toApi(row, await this.access(tx, [id]), secret);
    });
  }

  async update(p: Principal, id: number, body: UpdateKey): Promise<ApiKey> {
    authz.requireAccountAccess(p, 'read_write');
    if (body.label !== undefined && body.label.length > LABEL_MAX)
      throw errors.invalidField('label', `Length must be ${LABEL_MAX} characters or less.`);
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id);
      const label = body.label ?? row.label;
      await tx.db.updateTable('obj_keys').set({ label }).where('id', '=', id).execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'obj_access_key_update',
        entity: null,
        message: keyMessage(id, label, row.access_key),
        status: 'notification',
        username: p.username,
      });
      return this.toApi({ ...row, label }, await this.access(tx, [id]));
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
