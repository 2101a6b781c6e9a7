import { randomBytes } from 'node:crypto';
import { authz, type Permission } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { parseApiTime, isoSeconds } from '../../lib/time.js';
import type { Sealer } from '../../platform/sealer.js';
import { syncFacts } from '../billing/facts.js';
import { toMicros } from '../billing/prices.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { clientsAllowed, type LongviewSubscription, subscription } from './longview.data.js';
import type { ApiLongviewClient, CreateLongviewClient } from './longview.schemas.js';
import type { LongviewClientsTable } from './longview.table.js';

type XFilter = string | string[] | undefined;
type ClientRow = Omit<LongviewClientsTable, 'id'> & { id: number };

export interface LongviewDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  sealer: Sealer;
}

const FILTERS: FilterSpec = { label: { kind: 'string', column: 'longview_clients.label' } };
const LABEL = /^[a-zA-Z0-9_-]{3,32}$/;
const REDACTED = '[REDACTED]';

/** The event reference of a client. */
export const longviewRef = (id: number, label: string): EntityRef => ({
  type: 'longview',
  id,
  label,
  url: `/v4/longview/clients/${id}`,
});

/** A key as the service writes them: `8-4-4-16` upper-case hex (`BD1B4B54-D752-A76D-5A9B…`). */
export function longviewKey(): string {
  const h = randomBytes(16).toString('hex').toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16)}`;
}

/** The plan's billing period: one open period while the account is on a Pro tier. */
export async function billLongviewPlan(
  db: Database,
  accountId: number,
  plan: LongviewSubscription | undefined,
  nowIso: string,
): Promise<void> {
  await syncFacts(
    db,
    { accountId, entityType: 'longview_subscription', entityId: accountId },
    plan
      ? [
          {
            kind: 'longview',
            ref: plan.id,
            label: plan.label,
            region: null,
            quantity: 1,
            price: { hourly: toMicros(plan.price.hourly), monthly: toMicros(plan.price.monthly) },
          },
        ]
      : [],
    parseApiTime(nowIso),
  );
}

/**
 * Longview clients (`longview` grants and events) and the account's plan: Longview Free (10
 * clients) or a Pro tier, billed hourly up to its monthly price through the billing periods.
 */
export class LongviewService {
  constructor(private readonly d: LongviewDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async load(
    db: Database,
    p: Principal,
    id: number,
    level: Permission,
    lock = false,
  ): Promise<ClientRow> {
    const q = db.db
      .selectFrom('longview_clients')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .where('id', '=', id);
    const row = (lock ? await db.forUpdate(q).executeTakeFirst() : await q.executeTakeFirst()) as
      | ClientRow
      | undefined;
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'longview', id, level);
    return row;
  }

  /** The API object; keys in clear only for callers who may write the client. */
  private async toApi(db: Database, p: Principal, rows: ClientRow[]): Promise<ApiLongviewClient[]> {
    const out: ApiLongviewClient[] = [];
    for (const r of rows) {
      const write = (await authz.permissionOn(db, p, 'longview', r.id)) === 'read_write';
      out.push({
        id: r.id,
        label: r.label,
        api_key: write ? await this.d.sealer.open(r.api_key_sealed) : REDACTED,
        install_code: write ? await this.d.sealer.open(r.install_code_sealed) : REDACTED,
        apps: { apache: toBool(r.apache), nginx: toBool(r.nginx), mysql: toBool(r.mysql) },
        created: r.created,
        updated: r.updated,
      });
    }
    return out;
  }

  private async one(db: Database, p: Principal, id: number): Promise<ApiLongviewClient> {
    const row = (await db.db
      .selectFrom('longview_clients')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()) as ClientRow;
    return (await this.toApi(db, p, [row]))[0] as ApiLongviewClient;
  }

  private async checkLabel(db: Database, accountId: number, label: string, except?: number) {
    const fe = new FieldErrors();
    if (label.length < 3 || label.length > 32)
      fe.add('label', 'Label must be between 3 and 32 characters.');
    else if (!LABEL.test(label))
      fe.add('label', 'Label must contain only letters, digits, dashes and underscores.');
    fe.throwIfAny();
    let q = db.db
      .selectFrom('longview_clients')
      .select('id')
      .where('account_id', '=', accountId)
      .where('label', '=', label);
    if (except !== undefined) q = q.where('id', '!=', except);
    if (await q.executeTakeFirst()) throw errors.invalidField('label', 'Label must be unique.');
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiLongviewClient>> {
    const { db } = this.d;
    let base = db.db
      .selectFrom('longview_clients')
      .where('longview_clients.account_id', '=', p.accountId);
    const vis = authz.visible(p, 'longview', 'longview_clients.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('longview_clients'),
      compileFilter(xf, FILTERS, db.dialect),
      params,
      { idColumn: 'longview_clients.id' },
      (r: ClientRow) => r,
    );
    return { ...page, data: await this.toApi(db, p, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiLongviewClient> {
    const row = await this.load(this.d.db, p, id, 'read_only');
    return (await this.toApi(this.d.db, p, [row]))[0] as ApiLongviewClient;
  }

  /** Create: within the plan's client count; a label or `longview<id>`; event `longviewclient_create`. */
  async create(p: Principal, b: CreateLongviewClient): Promise<ApiLongviewClient> {
    authz.requireGlobal(p, 'add_longview');
    await this.d.sealer.ready();
    return this.d.db.transaction(async (tx) => {
      const acct = await tx
        .forUpdate(
          tx.db
            .selectFrom('accounts')
            .select('longview_subscription')
            .where('id', '=', p.accountId),
        )
        .executeTakeFirstOrThrow();
      if (b.label !== undefined && b.label !== null)
        await this.checkLabel(tx, p.accountId, b.label);
      const count = await tx.db
        .selectFrom('longview_clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', p.accountId)
        .executeTakeFirstOrThrow();
      const allowed = clientsAllowed(acct.longview_subscription);
      if (Number(count.n) >= allowed) {
        throw errors.reason(
          `Your Longview plan allows ${allowed} clients; upgrade the plan (PUT /longview/plan) to add more.`,
        );
      }
      const now = this.now();
      const row = await tx.db
        .insertInto('longview_clients')
        .values({
          account_id: p.accountId,
          label: b.label ?? `longview-new-${randomBytes(6).toString('hex')}`,
          api_key_sealed: this.d.sealer.sealNow(longviewKey()),
          install_code_sealed: this.d.sealer.sealNow(longviewKey()),
          apache: 0,
          nginx: 0,
          mysql: 0,
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      let label = b.label ?? null;
      if (label === null) {
        label = `longview${row.id}`;
        await tx.db
          .updateTable('longview_clients')
          .set({ label })
          .where('id', '=', row.id)
          .execute();
      }
      await authz.grantCreator(tx, p, 'longview', row.id);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'longviewclient_create',
        entity: longviewRef(row.id, label),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, p, row.id);
    });
  }

  /** Update: the label; event `longviewclient_update`. */
  async update(p: Principal, id: number, label: string | undefined): Promise<ApiLongviewClient> {
    await this.d.sealer.ready();
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      if (label !== undefined) await this.checkLabel(tx, p.accountId, label, id);
      await tx.db
        .updateTable('longview_clients')
        .set({ ...(label !== undefined ? { label } : {}), updated: this.now() })
        .where('id', '=', id)
        .execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'longviewclient_update',
        entity: longviewRef(id, label ?? row.label),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, p, id);
    });
  }

  /** Delete: its data and grants go; event `longviewclient_delete`. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      await authz.dropEntity(tx, 'longview', id);
      await tx.db.deleteFrom('longview_clients').where('id', '=', id).execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'longviewclient_delete',
        entity: longviewRef(id, row.label),
        status: 'notification',
        username: p.username,
      });
    });
  }

  // ---- plan ----

  private static planView(plan: LongviewSubscription | undefined) {
    return plan ? { ...plan, price: { ...plan.price } } : {};
  }

  /**
   * The plan, `{}` on Longview Free. Restricted users need account access, `longview_subscription`
   * or `add_longview`.
   */
  async plan(p: Principal) {
    const g = p.globalGrants;
    if (p.restricted && g.account_access === null && !g.longview_subscription && !g.add_longview) {
      throw errors.unauthorized();
    }
    const acct = await this.d.db.db
      .selectFrom('accounts')
      .select('longview_subscription')
      .where('id', '=', p.accountId)
      .executeTakeFirstOrThrow();
    return LongviewService.planView(subscription(acct.longview_subscription));
  }

  /**
   * Changes the plan (`null` or `""`: Longview Free): refused below the account's client count;
   * the billing period of the old tier closes and the new one's opens, in the same transaction.
   * Restricted users need `longview_subscription`.
   */
  async updatePlan(p: Principal, wanted: string | null | undefined) {
    if (p.restricted && !p.globalGrants.longview_subscription) throw errors.unauthorized();
    if (wanted === undefined) return this.plan(p);
    const id = wanted === '' ? null : wanted;
    const plan = id === null ? undefined : subscription(id);
    if (id !== null && !plan) {
      throw errors.invalidField(
        'longview_subscription',
        'longview_subscription must be longview-3, longview-10, longview-40, longview-100 or null.',
      );
    }
    return this.d.db.transaction(async (tx) => {
      await tx
        .forUpdate(tx.db.selectFrom('accounts').select('id').where('id', '=', p.accountId))
        .executeTakeFirstOrThrow();
      const count = await tx.db
        .selectFrom('longview_clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', p.accountId)
        .executeTakeFirstOrThrow();
      const allowed = clientsAllowed(id);
      if (Number(count.n) > allowed) {
        throw errors.invalidField(
          'longview_subscription',
          `This plan allows ${allowed} clients and the account has ${count.n}; delete clients first.`,
        );
      }
      await tx.db
        .updateTable('accounts')
        .set({ longview_subscription: id })
        .where('id', '=', p.accountId)
        .execute();
      await billLongviewPlan(tx, p.accountId, plan, this.now());
      return LongviewService.planView(plan);
    });
  }
}
