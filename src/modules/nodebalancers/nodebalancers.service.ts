import type { ExpressionBuilder } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.js';
import type { FirewallsService } from '../networking/firewalls.service.js';
import { authz, type Permission } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { billNodeBalancer } from '../billing/billables.js';
import type { Sealer } from '../../platform/sealer.js';
import type { CascadeContext, EntityRegistry } from '../../entities/entities.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { findInstance, insertIp } from '../compute/compute.repository.js';
import type { EventWriter } from '../events/events.writer.js';
import type { IpAllocator } from '../networking/ip-allocator.js';
import { dropTags, setTags } from '../tags/tags.repository.js';
import { findNb, NB_FILTERS, type NbRow, nbRef, toApiNbs } from './nodebalancers.repository.js';
import type {
  ApiNbVpcConfig,
  ApiNodeBalancer,
  CreateNodeBalancer,
  UpdateNodeBalancer,
} from './nodebalancers.schemas.js';
import {
  duplicateAddresses,
  insertConfig,
  insertNode,
  nodeColumnsOf,
  prepareConfig,
  prepareNode,
  uniqueAs,
} from './nodebalancers.writer.js';
import { refuseIfLocked } from '../locks/locks.repository.js';
import { insertNbVpcs, type NbVpcRow, prepareNbVpcs, toApiNbVpc } from './nb-vpcs.js';

type XFilter = string | string[] | undefined;

/** What NodeBalancers need of the Sealer (src/platform/sealer.ts). */
export type KeySealer = Pick<Sealer, 'ready' | 'sealNow'>;

export interface NodeBalancerDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  catalogue: CatalogueService;
  ips: IpAllocator;
  /** Cascades declared for a NodeBalancer's deletion (e.g. firewall devices) run in its delete. */
  entities: EntityRegistry;
  cascade: Omit<CascadeContext, 'db'>;
  /** The networking area's firewalls: `firewall_id` on create, the NodeBalancer's firewalls. */
  firewalls: FirewallsService;
  /** Seals configs' TLS private keys; `ready()` before a transaction. */
  sealer: KeySealer;
}

const CAPABILITY = 'NodeBalancers';
/** Filterable fields of a VPC configuration. */
const NB_VPC_FILTERS: FilterSpec = {
  vpc_id: { kind: 'int', column: 'vpc_id' },
  subnet_id: { kind: 'int', column: 'subnet_id' },
  ipv4_range: { kind: 'string', column: 'ipv4_range' },
};
const LABEL_TAKEN = 'Label must be unique.';
const STATS_STEP_MS = 5 * 60_000;
const DAY_MS = 24 * 3600_000;

/** NodeBalancers: create (with configs and nodes), list, view, update, delete, stats. */
export class NodeBalancersService {
  constructor(private readonly d: NodeBalancerDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  async one(db: Database, row: NbRow): Promise<ApiNodeBalancer> {
    const [api] = await toApiNbs(db, [row]);
    return api as ApiNodeBalancer;
  }

  /** A NodeBalancer the caller may see (404 otherwise), checked for the given permission. */
  async load(
    db: Database,
    p: Principal,
    id: number,
    level: Permission,
    lock = false,
  ): Promise<NbRow> {
    const row = await findNb(db, p.accountId, id, lock);
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'nodebalancer', id, level);
    return row;
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiNodeBalancer>> {
    return this.page(p, undefined, params, xf);
  }

  /** The NodeBalancers with a node on a private address of the instance, that the caller can read. */
  async listForInstance(
    p: Principal,
    computeId: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiNodeBalancer>> {
    const inst = await findInstance(this.d.db, p.accountId, computeId);
    if (!inst) throw errors.notFound();
    await authz.requireEntity(this.d.db, p, 'compute', computeId, 'read_only');
    return this.page(p, computeId, params, xf);
  }

  private async page(
    p: Principal,
    computeId: number | undefined,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiNodeBalancer>> {
    const { db } = this.d;
    let base = db.db
      .selectFrom('nodebalancers')
      .where('nodebalancers.account_id', '=', p.accountId);
    if (computeId !== undefined) {
      // A node on one of the instance's private addresses, or on its VPC address in the subnet
      // of the node's VPC configuration (a profile's interface or the instance's own).
      const inVpc = (
        eb: ExpressionBuilder<DatabaseSchema, 'nodebalancers'>,
        table: 'config_interfaces',
      ) =>
        eb.exists(
          eb
            .selectFrom('nodebalancer_nodes as n')
            .innerJoin('nodebalancer_vpcs as nv', 'nv.id', 'n.vpc_config_id')
            .innerJoin(`${table} as ci`, (j) =>
              j.onRef('ci.subnet_id', '=', 'nv.subnet_id').onRef('ci.ipv4_vpc', '=', 'n.ip'),
            )
            .select('n.id')
            .whereRef('n.nodebalancer_id', '=', 'nodebalancers.id')
            .where('ci.purpose', '=', 'vpc')
            .where('ci.instance_id', '=', computeId),
        );
      base = base.where((eb) =>
        eb.or([
          eb.exists(
            eb
              .selectFrom('nodebalancer_nodes as n')
              .innerJoin('ip_addresses as ip', 'ip.address', 'n.ip')
              .select('n.id')
              .whereRef('n.nodebalancer_id', '=', 'nodebalancers.id')
              .whereRef('ip.region', '=', 'nodebalancers.region')
              .where('n.vpc_config_id', 'is', null)
              .where('ip.kind', '=', 'private')
              .where('ip.instance_id', '=', computeId),
          ),
          inVpc(eb, 'config_interfaces'),
          inVpc(eb, 'compute_interfaces' as 'config_interfaces'),
        ]),
      );
    }
    const vis = authz.visible(p, 'nodebalancer', 'nodebalancers.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('nodebalancers'),
      compileFilter(xf, NB_FILTERS, db.dialect),
      params,
      { idColumn: 'nodebalancers.id' },
      (r: NbRow) => r,
    );
    return { ...page, data: await toApiNbs(db, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiNodeBalancer> {
    return this.one(this.d.db, await this.load(this.d.db, p, id, 'read_only'));
  }

  private async assertLabelFree(db: Database, accountId: number, label: string, self?: number) {
    let q = db.db
      .selectFrom('nodebalancers')
      .select('id')
      .where('account_id', '=', accountId)
      .where('label', '=', label);
    if (self !== undefined) q = q.where('id', '!=', self);
    if (await q.executeTakeFirst()) throw errors.invalidField('label', LABEL_TAKEN);
  }

  /** Create: a public IPv4 from the region's pool, an IPv6 address, and the configs given. */
  async create(p: Principal, b: CreateNodeBalancer): Promise<ApiNodeBalancer> {
    const { catalogue } = this.d;
    authz.requireGlobal(p, 'add_nodebalancers');
    const fe = new FieldErrors();
    if (!catalogue.region(b.region)) fe.add('region', 'region is not valid');
    else if (!catalogue.regionHas(b.region, CAPABILITY))
      fe.add('region', 'NodeBalancers are not available in this region');
    fe.throwIfAny();
    await this.d.sealer.ready();
    const work = this.d.db.transaction(async (tx) => {
      const now = this.now();
      if (b.label !== undefined) await this.assertLabelFree(tx, p.accountId, b.label);
      const vpcs = await prepareNbVpcs(tx, fe, p.accountId, b.region, b.vpcs ?? []);
      const scope = {
        accountId: p.accountId,
        region: b.region,
        vpcSubnets: new Set(vpcs.map((v) => v.subnet.id)),
      };
      const ports = new Set<number>();
      const configs = [];
      for (const [i, c] of (b.configs ?? []).entries()) {
        const at = `configs.${i}.`;
        const cols = prepareConfig(fe, at, c, (k) => this.d.sealer.sealNow(k));
        if (ports.has(cols.port)) fe.add(`${at}port`, 'Each config must have its own port');
        ports.add(cols.port);
        const nodes = c.nodes ?? [];
        if (nodes.length === 0) fe.add(`${at}nodes`, 'Each config needs at least one node');
        duplicateAddresses(fe, `${at}nodes.`, nodes);
        const nodeCols = [];
        for (const [j, n] of nodes.entries())
          nodeCols.push(await prepareNode(tx, fe, `${at}nodes.${j}.`, scope, n));
        configs.push({ cols, nodeCols });
      }
      fe.throwIfAny();

      const ip = await this.d.ips.next(tx, b.region, 'public');
      await insertIp(
        tx,
        { accountId: p.accountId, instanceId: null, region: b.region, kind: 'public', ip },
        now,
      );
      const inserted = await tx.db
        .insertInto('nodebalancers')
        .values({
          account_id: p.accountId,
          // A unique placeholder until the id is known (the default label is balancer<id>).
          label: b.label ?? `pending-${ip.address}`,
          region: b.region,
          ipv4: ip.address,
          ipv6: null,
          client_conn_throttle: b.client_conn_throttle ?? 0,
          client_udp_sess_throttle: b.client_udp_sess_throttle ?? 0,
          type: b.type ?? 'common',
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = inserted.id;
      const label = b.label ?? `balancer${id}`;
      if (b.label === undefined) await this.assertLabelFree(tx, p.accountId, label);
      await billNodeBalancer(tx, id, now);
      await tx.db
        .updateTable('nodebalancers')
        .set({ label, ipv6: this.d.ips.serviceIpv6(b.region, id) })
        .where('id', '=', id)
        .execute();
      await insertNbVpcs(tx, id, p.accountId, vpcs, now);
      const vpcConfigs = new Map(
        (
          await tx.db
            .selectFrom('nodebalancer_vpcs')
            .select(['id', 'subnet_id'])
            .where('nodebalancer_id', '=', id)
            .execute()
        ).map((r) => [r.subnet_id, r.id]),
      );
      for (const c of configs) {
        const configId = await insertConfig(tx, id, c.cols, now);
        for (const n of c.nodeCols) {
          const vpcConfigId =
            n.subnetId === undefined ? n.vpc_config_id : (vpcConfigs.get(n.subnetId) ?? null);
          await insertNode(
            tx,
            id,
            configId,
            { ...nodeColumnsOf(n), vpc_config_id: vpcConfigId },
            now,
          );
        }
      }
      await authz.grantCreator(tx, p, 'nodebalancer', id);
      if (b.firewall_id !== undefined)
        await this.d.firewalls.assignOnCreate(tx, p, b.firewall_id, id, 'nodebalancer');
      // No firewall named: the account's default NodeBalancer firewall, if it has one.
      else await this.d.firewalls.assignDefaultOnCreate(tx, p, id, 'nodebalancer');
      if (b.tags) await setTags(tx, p.accountId, 'nodebalancer', id, b.tags);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'nodebalancer_create',
        entity: nbRef(id, label),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, (await findNb(tx, p.accountId, id)) as NbRow);
    });
    return uniqueAs(work, 'label', LABEL_TAKEN);
  }

  /** Update: label, client_conn_throttle, client_udp_sess_throttle, tags. */
  async update(p: Principal, id: number, b: UpdateNodeBalancer): Promise<ApiNodeBalancer> {
    const work = this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      if (b.label !== undefined) await this.assertLabelFree(tx, p.accountId, b.label, id);
      await tx.db
        .updateTable('nodebalancers')
        .set({
          ...(b.label !== undefined ? { label: b.label } : {}),
          ...(b.client_conn_throttle !== undefined
            ? { client_conn_throttle: b.client_conn_throttle }
            : {}),
          ...(b.client_udp_sess_throttle !== undefined
            ? { client_udp_sess_throttle: b.client_udp_sess_throttle }
            : {}),
          updated: this.now(),
        })
        .where('id', '=', id)
        .execute();
      if (b.tags !== undefined) await setTags(tx, p.accountId, 'nodebalancer', id, b.tags);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'nodebalancer_update',
        entity: nbRef(id, b.label ?? row.label),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, (await findNb(tx, p.accountId, id)) as NbRow);
    });
    return uniqueAs(work, 'label', LABEL_TAKEN);
  }

  /**
   * Delete: its configs and nodes go with it, its addresses return to the pool, and every cascade
   * declared for `nodebalancer` runs first in the same transaction.
   */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      await refuseIfLocked(tx, 'nodebalancer', id, 'delete');
      for (const cascade of this.d.entities.cascadesOf('nodebalancer'))
        await cascade(tx, { id, label: row.label }, { ...this.d.cascade, db: tx });
      await tx.db.deleteFrom('nodebalancer_nodes').where('nodebalancer_id', '=', id).execute();
      await tx.db.deleteFrom('nodebalancer_configs').where('nodebalancer_id', '=', id).execute();
      await tx.db.deleteFrom('nodebalancer_vpcs').where('nodebalancer_id', '=', id).execute();
      await tx.db
        .deleteFrom('ip_addresses')
        .where('region', '=', row.region)
        .where('address', '=', row.ipv4)
        .where('instance_id', 'is', null)
        .execute();
      await dropTags(tx, 'nodebalancer', id);
      await authz.dropEntity(tx, 'nodebalancer', id);
      await tx.db.deleteFrom('nodebalancers').where('id', '=', id).execute();
      await billNodeBalancer(tx, id, isoSeconds(this.d.clock.nowMs()));
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'nodebalancer_delete',
        entity: nbRef(id, row.label),
        status: 'notification',
        username: p.username,
      });
    });
  }

  /**
   * Stats of the last 24 hours (from creation if later), one point every 5 minutes. Stratus
   * carries no traffic, so every reading is 0.
   */
  async stats(p: Principal, id: number) {
    const row = await this.load(this.d.db, p, id, 'read_only');
    const now = this.d.clock.nowMs();
    const created = Date.parse(`${row.created}Z`);
    // As on the real service, a new NodeBalancer has no statistics for its first 5 minutes.
    if (now < created + STATS_STEP_MS) throw errors.reason('Stats are unavailable at this time.');
    const first = Math.ceil(Math.max(created, now - DAY_MS) / STATS_STEP_MS) * STATS_STEP_MS;
    const zeros: number[][] = [];
    for (let t = first; t <= now; t += STATS_STEP_MS) zeros.push([t, 0]);
    return {
      title: `${row.label} (${row.id}) - day (5 min avg)`,
      data: { connections: zeros, traffic: { in: zeros, out: zeros } },
    };
  }

  /** `GET /nodebalancers/{id}/vpcs`: its VPC configurations, by id. */
  async listVpcs(
    p: Principal,
    id: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiNbVpcConfig>> {
    const { db } = this.d;
    await this.load(db, p, id, 'read_only');
    return paginate(
      db.db.selectFrom('nodebalancer_vpcs').where('nodebalancer_id', '=', id),
      (qb) => qb.selectAll(),
      compileFilter(xf, NB_VPC_FILTERS, db.dialect),
      params,
      { idColumn: 'id' },
      (r: NbVpcRow) => toApiNbVpc(r),
    );
  }

  /** `GET /nodebalancers/{id}/vpcs/{vpcConfigId}`. */
  async getVpc(p: Principal, id: number, vpcConfigId: number): Promise<ApiNbVpcConfig> {
    const { db } = this.d;
    await this.load(db, p, id, 'read_only');
    const row = await db.db
      .selectFrom('nodebalancer_vpcs')
      .selectAll()
      .where('nodebalancer_id', '=', id)
      .where('id', '=', vpcConfigId)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApiNbVpc(row);
  }

  /** `GET /nodebalancers/{id}/firewalls`: the firewalls it is a device of, that the caller sees. */
  async firewalls(p: Principal, id: number, params: PageParams) {
    await this.load(this.d.db, p, id, 'read_only');
    return this.d.firewalls.ofDevice(p, 'nodebalancer', id, params);
  }
}
