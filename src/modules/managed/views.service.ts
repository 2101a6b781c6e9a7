import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { fromBool, parseJson, toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { parseApiTime } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { series, type StatsSubject } from '../compute/stats.service.js';
import { requireManaged } from './managed.account.js';
import type {
  ApiComputeSettings,
  ApiIssue,
  ManagedStats,
  UpdateComputeSettings,
} from './managed.schemas.js';
import type { ManagedIssuesTable } from './managed.table.js';

type IssueRow = Omit<ManagedIssuesTable, 'id'> & { id: number };
const DAY_MS = 86_400_000;

const toApiIssue = (r: IssueRow): ApiIssue => ({
  id: r.id,
  created: r.created,
  services: parseJson<number[]>(r.services, []),
  entity: {
    id: r.ticket_id ?? 0,
    type: 'ticket',
    label: r.ticket_summary,
    url: r.ticket_id === null ? '' : `/v4/support/tickets/${r.ticket_id}`,
  },
});

/** The issues Managed's checks opened, newest first. */
export class ManagedIssuesService {
  constructor(private readonly d: { db: Database }) {}

  async list(p: Principal, params: PageParams): Promise<Page<ApiIssue>> {
    const { db } = this.d;
    await requireManaged(db, p);
    return paginate(
      db.db.selectFrom('managed_issues').where('managed_issues.account_id', '=', p.accountId),
      (qb) => qb.selectAll('managed_issues'),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'managed_issues.id', defaultDirection: 'desc' },
      (r: IssueRow) => toApiIssue(r),
    );
  }

  async get(p: Principal, id: number): Promise<ApiIssue> {
    await requireManaged(this.d.db, p);
    const row = await this.d.db.db
      .selectFrom('managed_issues')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApiIssue(row as IssueRow);
  }
}

/** An instance and its settings row, if any (a left join: nulls without one). */
interface InstanceSettingsRow {
  id: number;
  label: string;
  group_label: string;
  ssh_access: number | null;
  ssh_user: string | null;
  ssh_ip: string | null;
  ssh_port: number | null;
}

function toApiSettings(r: InstanceSettingsRow): ApiComputeSettings {
  return {
    id: r.id,
    label: r.label,
    group: r.group_label,
    ssh: {
      // No row yet: the defaults (access on, root, any address, port 22).
      access: r.ssh_access === null ? true : toBool(r.ssh_access),
      user: r.ssh_user ?? null,
      ip: r.ssh_ip ?? 'any',
      port: r.ssh_port ?? null,
    },
  };
}

/**
 * Per-instance Managed settings: how support may reach each instance of the account over SSH.
 * Every instance has them (the defaults until changed); they go with the instance.
 */
export class ManagedComputeSettingsService {
  constructor(private readonly d: { db: Database }) {}

  private base(db: Database, accountId: number) {
    return db.db
      .selectFrom('instances')
      .leftJoin('managed_compute_settings as m', 'm.instance_id', 'instances.id')
      .where('instances.account_id', '=', accountId);
  }

  private select<Q extends ReturnType<ManagedComputeSettingsService['base']>>(qb: Q) {
    return qb.select([
      'instances.id',
      'instances.label',
      'instances.group_label',
      'm.ssh_access',
      'm.ssh_user',
      'm.ssh_ip',
      'm.ssh_port',
    ]);
  }

  async list(p: Principal, params: PageParams): Promise<Page<ApiComputeSettings>> {
    const { db } = this.d;
    await requireManaged(db, p);
    return paginate(
      this.base(db, p.accountId),
      (qb) => this.select(qb as ReturnType<ManagedComputeSettingsService['base']>),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'instances.id' },
      (r: InstanceSettingsRow) => toApiSettings(r),
    );
  }

  private async one(db: Database, accountId: number, id: number): Promise<ApiComputeSettings> {
    const row = await this.select(
      this.base(db, accountId).where('instances.id', '=', id),
    ).executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApiSettings(row as InstanceSettingsRow);
  }

  async get(p: Principal, id: number): Promise<ApiComputeSettings> {
    await requireManaged(this.d.db, p);
    return this.one(this.d.db, p.accountId, id);
  }

  /**
   * Changes the SSH settings given: `user` at most 32 characters (null: root), `ip` "any" or one
   * of the instance's own addresses, `port` 1 to 65535 (null: 22).
   */
  async update(p: Principal, id: number, b: UpdateComputeSettings): Promise<ApiComputeSettings> {
    await requireManaged(this.d.db, p);
    return this.d.db.transaction(async (tx) => {
      const cur = await this.one(tx, p.accountId, id);
      const ssh = b.ssh ?? {};
      const fe = new FieldErrors();
      if (ssh.user !== undefined && ssh.user !== null)
        fe.check(ssh.user.length > 32, 'ssh.user', 'User must be 32 characters or less.');
      if (ssh.port !== undefined && ssh.port !== null)
        fe.check(ssh.port < 1 || ssh.port > 65535, 'ssh.port', 'Port must be between 1 and 65535.');
      if (ssh.ip !== undefined && ssh.ip !== 'any') {
        const own = await tx.db
          .selectFrom('ip_addresses')
          .select('address')
          .where('instance_id', '=', id)
          .execute();
        const inst = await tx.db
          .selectFrom('instances')
          .select('ipv6')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const addresses = new Set([
          ...own.map((a) => a.address),
          ...(inst.ipv6 ? [inst.ipv6] : []),
        ]);
        fe.check(
          !addresses.has(ssh.ip),
          'ssh.ip',
          'ip must be "any" or one of the compute instance\'s addresses.',
        );
      }
      fe.throwIfAny();
      const next = {
        ssh_access: fromBool(ssh.access ?? cur.ssh.access),
        ssh_user: ssh.user !== undefined ? ssh.user : cur.ssh.user,
        ssh_ip: ssh.ip ?? cur.ssh.ip,
        ssh_port: ssh.port !== undefined ? ssh.port : cur.ssh.port,
      };
      await tx.db
        .insertInto('managed_compute_settings')
        .values({ instance_id: id, account_id: p.accountId, ...next })
        .onConflict((oc) => oc.column('instance_id').doUpdateSet(next))
        .execute();
      return this.one(tx, p.accountId, id);
    });
  }
}

/**
 * `GET /managed/stats`: the last 24 hours of every instance of the account together (Managed
 * covers them all), from the same series as each instance's own statistics (5-minute points,
 * `x` epoch ms): CPU %, disk I/O blocks/s, swap, public traffic in and out (bits/s).
 */
export class ManagedStatsService {
  constructor(private readonly d: { db: Database; clock: Clock; catalogue: CatalogueService }) {}

  async stats(p: Principal): Promise<{ data: ManagedStats | string[] }> {
    const { db, clock, catalogue } = this.d;
    await requireManaged(db, p);
    const to = clock.nowMs();
    const from = to - DAY_MS;
    const instances = await db.db
      .selectFrom('instances')
      .select(['id', 'type', 'created'])
      .where('account_id', '=', p.accountId)
      .orderBy('id')
      .execute();
    const runs = await db.db
      .selectFrom('instance_runs')
      .select(['instance_id', 'started_ms', 'stopped_ms'])
      .where('account_id', '=', p.accountId)
      .where((eb) => eb.or([eb('stopped_ms', 'is', null), eb('stopped_ms', '>', from)]))
      .orderBy('started_ms')
      .execute();
    const totals = new Map<
      number,
      { cpu: number; disk: number; swap: number; in: number; out: number }
    >();
    for (const inst of instances) {
      const created = parseApiTime(inst.created);
      const subject: StatsSubject = {
        id: inst.id,
        vcpus: catalogue.type(inst.type)?.vcpus ?? 1,
        hasPrivate: false,
        createdMs: Number.isNaN(created) ? 0 : created,
        runs: runs
          .filter((r) => r.instance_id === inst.id)
          .map((r) => ({
            start: Number(r.started_ms),
            end: r.stopped_ms === null ? to : Number(r.stopped_ms),
          })),
      };
      if (subject.runs.length === 0) continue;
      const s = series(subject, from, to);
      s.cpu.forEach(([x, y], i) => {
        const t = totals.get(x) ?? { cpu: 0, disk: 0, swap: 0, in: 0, out: 0 };
        t.cpu += y;
        t.disk += s.io.io[i]?.[1] ?? 0;
        t.swap += s.io.swap[i]?.[1] ?? 0;
        t.in += (s.netv4.in[i]?.[1] ?? 0) + (s.netv6.in[i]?.[1] ?? 0);
        t.out += (s.netv4.out[i]?.[1] ?? 0) + (s.netv6.out[i]?.[1] ?? 0);
        totals.set(x, t);
      });
    }
    if (totals.size === 0) return { data: ['Graphs are not yet available.'] };
    const xs = [...totals.keys()].sort((a, b) => a - b);
    const round = (v: number) => Math.round(v * 100) / 100;
    const pick = (k: 'cpu' | 'disk' | 'swap' | 'in' | 'out') =>
      xs.map((x) => ({ x, y: round(totals.get(x)?.[k] ?? 0) }));
    return {
      data: {
        cpu: pick('cpu'),
        disk: pick('disk'),
        swap: pick('swap'),
        net_in: pick('in'),
        net_out: pick('out'),
      },
    };
  }
}
