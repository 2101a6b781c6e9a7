import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, pageOf, paginate } from '../../lib/pagination.js';
import {
  type ApiMaintenancePolicy,
  DEFAULT_MAINTENANCE_POLICY,
  MAINTENANCE_POLICY_LIST,
} from '../compute/compute.schemas.js';
import { isoSeconds, parseApiTime } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import { entityRefs } from '../events/events.types.js';
import { maintenanceWindowJob } from './maintenance.jobs.js';
import { effectOf, eventActionOf, noticeMs, policyType } from './maintenance.policy.js';
import { findMaintenance, type MaintenanceRow } from './maintenance.repository.js';
import type { ApiMaintenance, CreateMaintenance, OperatorMaintenance } from './notices.schemas.js';

export interface MaintenanceDeps {
  db: Database;
  clock: Clock;
  queue: JobQueue;
  events: EventWriter;
}

type XFilter = string | string[] | undefined;

const MAINTENANCE_FILTERS: FilterSpec = {
  type: { kind: 'string', column: 'maintenances.type' },
  status: { kind: 'string', column: 'maintenances.status' },
  when: { kind: 'datetime', column: 'maintenances.when' },
  description: { kind: 'string', column: 'maintenances.description' },
  source: { kind: 'string', column: 'maintenances.source' },
};

type Listed = MaintenanceRow & { label: string; live_policy: string | null | undefined };

/** The policy a maintenance follows: the one it started under, else the instance's now. */
function policySet(r: Pick<MaintenanceRow, 'policy'>, live: string | null | undefined): string {
  return r.policy ?? live ?? DEFAULT_MAINTENANCE_POLICY;
}

/** Its type: until it starts, one that follows the policy shows the live policy's. */
function typeShown(r: MaintenanceRow, live: string | null | undefined): string {
  return r.by_policy && r.status === 'pending' ? policyType(policySet(r, live)) : r.type;
}

/** A maintenance window lasts two hours unless the operator says otherwise. */
export const DEFAULT_WINDOW_MS = 2 * 3600 * 1000;

/**
 * Scheduled maintenance of compute instances: the account's list, and the operator's side
 * (`/_stratus/maintenance`, `stratus maintenance`) that creates and cancels it.
 */
export class MaintenanceService {
  constructor(private readonly d: MaintenanceDeps) {}

  /** GET /maintenance/policies: the policies an instance or the account may follow. */
  policies(params: PageParams): Promise<Page<ApiMaintenancePolicy>> {
    const all: ApiMaintenancePolicy[] = MAINTENANCE_POLICY_LIST.map((x) => ({ ...x }));
    return pageOf(
      params,
      async (limit, offset) => all.slice(offset, offset + limit),
      async () => all.length,
    );
  }

  list(p: Principal, params: PageParams, xFilter: XFilter): Promise<Page<ApiMaintenance>> {
    let base = this.d.db.db
      .selectFrom('maintenances')
      .innerJoin('instances', 'instances.id', 'maintenances.entity_id')
      .where('maintenances.entity_type', '=', 'compute')
      .where('maintenances.status', '!=', 'canceled')
      .where('instances.account_id', '=', p.accountId);
    const visible = authz.visible(p, 'compute', 'instances.id');
    if (visible) base = base.where(visible);
    return paginate(
      base,
      (qb) =>
        qb
          .selectAll('maintenances')
          .select(['instances.label', 'instances.maintenance_policy as live_policy']),
      compileFilter(xFilter, MAINTENANCE_FILTERS, this.d.db.dialect),
      params,
      { idColumn: 'maintenances.id' },
      (r: Listed) => ({
        type: typeShown(r, r.live_policy) as ApiMaintenance['type'],
        status: r.status as ApiMaintenance['status'],
        reason: r.reason,
        when: r.when,
        maintenance_policy_set: policySet(r, r.live_policy),
        description: r.description as ApiMaintenance['description'],
        source: r.source as ApiMaintenance['source'],
        not_before: r.not_before,
        start_time: r.start_time ?? r.when,
        complete_time: r.complete_time ?? r.until,
        entity: {
          id: r.entity_id,
          label: r.label,
          type: 'compute',
          url: `/v4/compute/instances/${r.entity_id}`,
        },
      }),
    );
  }

  private async operatorView(db: Database, row: MaintenanceRow): Promise<OperatorMaintenance> {
    const acc = await db.db
      .selectFrom('accounts')
      .select('euuid')
      .where('id', '=', row.account_id)
      .executeTakeFirst();
    const inst = await db.db
      .selectFrom('instances')
      .select('maintenance_policy')
      .where('id', '=', row.entity_id)
      .executeTakeFirst();
    return {
      id: row.id,
      euuid: acc?.euuid ?? '',
      entity: { id: row.entity_id, type: row.entity_type },
      type: typeShown(row, inst?.maintenance_policy),
      by_policy: row.by_policy === 1,
      status: row.status,
      reason: row.reason,
      description: row.description,
      source: row.source,
      when: row.when,
      until: row.until,
      not_before: row.not_before,
      start_time: row.start_time,
      complete_time: row.complete_time,
      maintenance_policy_set: policySet(row, inst?.maintenance_policy),
      event_id: row.event_id,
      created: row.created,
    };
  }

  /**
   * Schedules maintenance of an instance. A `scheduled` one cannot start before the notice period
   * of the instance's policy has passed (`not_before`; `when` defaults to it); an `emergency` one
   * gives no notice. Without a `type` it does what the instance's policy says when it starts. Its
   * event (`compute_migrate` or `compute_poweroff_on`) is recorded `scheduled` at once.
   */
  async createMaintenance(body: CreateMaintenance): Promise<OperatorMaintenance> {
    const nowMs = this.d.clock.nowMs();
    const fe = new FieldErrors();
    const parse = (field: 'when' | 'until', v: string | null | undefined) => {
      if (v == null) return undefined;
      const ms = parseApiTime(v);
      if (Number.isNaN(ms)) fe.add(field, 'Must be a date-time (YYYY-MM-DDTHH:MM:SS, UTC).');
      return ms;
    };
    const askedWhen = parse('when', body.when);
    const askedUntil = parse('until', body.until);
    fe.throwIfAny();
    const emergency = body.description === 'emergency';
    return this.d.db.transaction(async (tx) => {
      const inst = await tx.db
        .selectFrom('instances')
        .select(['id', 'account_id', 'label', 'maintenance_policy'])
        .where('id', '=', body.compute_id)
        .where('status', '!=', 'deleting')
        .executeTakeFirst();
      if (!inst) throw errors.invalidField('compute_id', 'Not found.');
      const policy = inst.maintenance_policy ?? DEFAULT_MAINTENANCE_POLICY;
      // Whole seconds, like every time the API shows.
      const notBeforeMs = Math.floor((nowMs + (emergency ? 0 : noticeMs(policy))) / 1000) * 1000;
      const whenMs = askedWhen ?? notBeforeMs;
      if (whenMs < notBeforeMs) {
        fe.add(
          'when',
          `Must be ${isoSeconds(notBeforeMs)} or later: the notice period of the instance's maintenance policy (${policy}).`,
        );
      }
      const untilMs = askedUntil ?? whenMs + DEFAULT_WINDOW_MS;
      if (untilMs <= whenMs) fe.add('until', 'Must be after when.');
      fe.throwIfAny();
      const byPolicy = body.type == null;
      const type = (body.type ?? policyType(policy)) as MaintenanceRow['type'];
      const eventId = await this.d.events.record(tx, {
        accountId: inst.account_id,
        action: eventActionOf(effectOf(type)),
        entity: entityRefs.compute(inst.id, inst.label),
        status: 'scheduled',
        username: null,
      });
      const { id } = await tx.db
        .insertInto('maintenances')
        .values({
          account_id: inst.account_id,
          entity_type: 'compute',
          entity_id: inst.id,
          type,
          by_policy: byPolicy ? 1 : 0,
          reason: body.reason ?? '',
          description: emergency ? 'emergency' : 'scheduled',
          source: body.source ?? 'platform',
          status: 'pending',
          when: isoSeconds(whenMs),
          when_ms: whenMs,
          until: isoSeconds(untilMs),
          until_ms: untilMs,
          not_before: isoSeconds(notBeforeMs),
          not_before_ms: notBeforeMs,
          start_time: null,
          complete_time: null,
          policy: null,
          event_id: eventId,
          prior_status: null,
          created: isoSeconds(nowMs),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.d.queue.enqueue(
        tx,
        maintenanceWindowJob,
        { maintenanceId: id },
        { accountId: inst.account_id, delayMs: Math.max(0, whenMs - nowMs) },
      );
      return this.operatorView(tx, (await findMaintenance(tx, id)) as MaintenanceRow);
    });
  }

  async listMaintenance(euuid?: string): Promise<{ data: OperatorMaintenance[] }> {
    let q = this.d.db.db
      .selectFrom('maintenances')
      .innerJoin('accounts', 'accounts.id', 'maintenances.account_id')
      .selectAll('maintenances')
      .orderBy('maintenances.id');
    if (euuid !== undefined) q = q.where('accounts.euuid', '=', euuid);
    const rows = await q.execute();
    return { data: await Promise.all(rows.map((r) => this.operatorView(this.d.db, r))) };
  }

  /**
   * Cancels a maintenance that has not started (its event is canceled too). Once started, the
   * work on the instance runs to its end.
   */
  async cancelMaintenance(id: number): Promise<OperatorMaintenance> {
    return this.d.db.transaction(async (tx) => {
      const row = await findMaintenance(tx, id, true);
      if (!row) throw errors.notFound();
      if (row.status !== 'pending') throw errors.reason(`This maintenance is ${row.status}.`);
      await tx.db
        .updateTable('maintenances')
        .set({ status: 'canceled' })
        .where('id', '=', id)
        .execute();
      if (row.event_id !== null) {
        await this.d.events.update(tx, row.event_id, { status: 'canceled' });
      }
      return this.operatorView(tx, { ...row, status: 'canceled' });
    });
  }
}
