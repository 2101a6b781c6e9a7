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
import { maintenanceWindowJob } from './maintenance.jobs.js';
import { findMaintenance, type MaintenanceRow } from './maintenance.repository.js';
import type { ApiMaintenance, CreateMaintenance, OperatorMaintenance } from './notices.schemas.js';

export interface MaintenanceDeps {
  db: Database;
  clock: Clock;
  queue: JobQueue;
}

type XFilter = string | string[] | undefined;

const MAINTENANCE_FILTERS: FilterSpec = {
  type: { kind: 'string', column: 'maintenances.type' },
  status: { kind: 'string', column: 'maintenances.status' },
  when: { kind: 'datetime', column: 'maintenances.when' },
};

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
          .select(['instances.label', 'instances.maintenance_policy as policy']),
      compileFilter(xFilter, MAINTENANCE_FILTERS, this.d.db.dialect),
      params,
      { idColumn: 'maintenances.id' },
      (r: MaintenanceRow & { label: string; policy: string | null | undefined }) => ({
        type: r.type,
        status: r.status,
        reason: r.reason,
        when: r.when,
        maintenance_policy_set: r.policy ?? DEFAULT_MAINTENANCE_POLICY,
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
    return {
      id: row.id,
      euuid: acc?.euuid ?? '',
      entity: { id: row.entity_id, type: row.entity_type },
      type: row.type,
      status: row.status,
      reason: row.reason,
      when: row.when,
      until: row.until,
      created: row.created,
    };
  }

  async createMaintenance(body: CreateMaintenance): Promise<OperatorMaintenance> {
    const fe = new FieldErrors();
    const whenMs = parseApiTime(body.when);
    if (Number.isNaN(whenMs)) fe.add('when', 'Must be a date-time (YYYY-MM-DDTHH:MM:SS, UTC).');
    const untilMs =
      body.until === undefined ? whenMs + DEFAULT_WINDOW_MS : parseApiTime(body.until);
    if (body.until !== undefined && Number.isNaN(untilMs)) {
      fe.add('until', 'Must be a date-time (YYYY-MM-DDTHH:MM:SS, UTC).');
    } else if (!Number.isNaN(whenMs) && untilMs <= whenMs) {
      fe.add('until', 'Must be after when.');
    }
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const inst = await tx.db
        .selectFrom('instances')
        .select(['id', 'account_id'])
        .where('id', '=', body.compute_id)
        .where('status', '!=', 'deleting')
        .executeTakeFirst();
      if (!inst) throw errors.invalidField('compute_id', 'Not found.');
      const { id } = await tx.db
        .insertInto('maintenances')
        .values({
          account_id: inst.account_id,
          entity_type: 'compute',
          entity_id: inst.id,
          type: body.type as MaintenanceRow['type'],
          reason: body.reason ?? '',
          status: 'pending',
          when: isoSeconds(whenMs),
          when_ms: whenMs,
          until: isoSeconds(untilMs),
          until_ms: untilMs,
          created: isoSeconds(this.d.clock.nowMs()),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const nowMs = this.d.clock.nowMs();
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

  /** Cancels a pending or started maintenance (the instance leaves its window at once). */
  async cancelMaintenance(id: number): Promise<OperatorMaintenance> {
    return this.d.db.transaction(async (tx) => {
      const row = await findMaintenance(tx, id, true);
      if (!row) throw errors.notFound();
      if (row.status === 'completed' || row.status === 'canceled') {
        throw errors.reason(`This maintenance is ${row.status}.`);
      }
      await tx.db
        .updateTable('maintenances')
        .set({ status: 'canceled' })
        .where('id', '=', id)
        .execute();
      return this.operatorView(tx, { ...row, status: 'canceled' });
    });
  }
}
