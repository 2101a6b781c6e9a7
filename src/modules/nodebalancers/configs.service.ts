import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  type ConfigRow,
  findConfig,
  findNode,
  type NbRow,
  type NodeRow,
  nbRef,
  toApiConfigs,
  toApiNodes,
} from './nodebalancers.repository.js';
import type {
  ApiConfig,
  ApiNode,
  ConfigInput,
  NodeInput,
  RebuildInput,
  UpdateNodeInput,
} from './nodebalancers.schemas.js';
import type { NodeBalancersService } from './nodebalancers.service.js';
import {
  type ConfigColumns,
  duplicateAddresses,
  insertConfig,
  insertNode,
  prepareConfig,
  prepareNode,
  uniqueAs,
} from './nodebalancers.writer.js';

export interface NbConfigDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
}

type Action =
  | 'nodebalancer_config_create'
  | 'nodebalancer_config_update'
  | 'nodebalancer_config_delete'
  | 'nodebalancer_node_create'
  | 'nodebalancer_node_update'
  | 'nodebalancer_node_delete';

/** The configs (ports) of a NodeBalancer and their nodes (backends). */
export class NbConfigsService {
  constructor(
    private readonly d: NbConfigDeps,
    private readonly nbs: NodeBalancersService,
  ) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private event(db: Database, p: Principal, nb: NbRow, action: Action) {
    return this.d.events.record(db, {
      accountId: p.accountId,
      action,
      entity: nbRef(nb.id, nb.label),
      status: 'notification',
      username: p.username,
    });
  }

  private async config(db: Database, nb: NbRow, id: number): Promise<ConfigRow> {
    const row = await findConfig(db, nb.id, id);
    if (!row) throw errors.notFound();
    return row;
  }

  private async apiConfig(db: Database, nb: NbRow, id: number): Promise<ApiConfig> {
    const row = await this.config(db, nb, id);
    return (await toApiConfigs(db, nb, [row]))[0] as ApiConfig;
  }

  private async apiNode(db: Database, nb: NbRow, row: NodeRow): Promise<ApiNode> {
    return (await toApiNodes(db, nb, [row]))[0] as ApiNode;
  }

  /** 400 naming `port` when another config of the NodeBalancer listens on it. */
  private async assertPortFree(db: Database, nbId: number, port: number, self?: number) {
    let q = db.db
      .selectFrom('nodebalancer_configs')
      .select('id')
      .where('nodebalancer_id', '=', nbId)
      .where('port', '=', port);
    if (self !== undefined) q = q.where('id', '!=', self);
    if (await q.executeTakeFirst())
      throw errors.invalidField('port', `Port ${port} is already in use by another config.`);
  }

  private async assertAddressFree(
    db: Database,
    configId: number,
    n: { ip: string; port: number },
    self?: number,
  ) {
    let q = db.db
      .selectFrom('nodebalancer_nodes')
      .select('id')
      .where('config_id', '=', configId)
      .where('ip', '=', n.ip)
      .where('port', '=', n.port);
    if (self !== undefined) q = q.where('id', '!=', self);
    if (await q.executeTakeFirst())
      throw errors.invalidField('address', 'This address is already a node of this config.');
  }

  async list(p: Principal, nbId: number, params: PageParams): Promise<Page<ApiConfig>> {
    const { db } = this.d;
    const nb = await this.nbs.load(db, p, nbId, 'read_only');
    const page = await paginate(
      db.db.selectFrom('nodebalancer_configs').where('nodebalancer_id', '=', nbId),
      (qb) => qb.selectAll(),
      compileFilter(undefined, {}, db.dialect),
      params,
      { idColumn: 'id' },
      (r: ConfigRow) => r,
    );
    return { ...page, data: await toApiConfigs(db, nb, page.data) };
  }

  async get(p: Principal, nbId: number, id: number): Promise<ApiConfig> {
    const nb = await this.nbs.load(this.d.db, p, nbId, 'read_only');
    return this.apiConfig(this.d.db, nb, id);
  }

  async create(p: Principal, nbId: number, b: ConfigInput): Promise<ApiConfig> {
    const work = this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      const fe = new FieldErrors();
      const cols = prepareConfig(fe, '', b);
      fe.throwIfAny();
      await this.assertPortFree(tx, nbId, cols.port);
      const id = await insertConfig(tx, nbId, cols, this.now());
      await this.event(tx, p, nb, 'nodebalancer_config_create');
      return this.apiConfig(tx, nb, id);
    });
    return uniqueAs(work, 'port', 'Port is already in use by another config.');
  }

  private async write(db: Database, id: number, cols: ConfigColumns): Promise<void> {
    await db.db
      .updateTable('nodebalancer_configs')
      .set({ ...cols, updated: this.now() })
      .where('id', '=', id)
      .execute();
  }

  async update(p: Principal, nbId: number, id: number, b: ConfigInput): Promise<ApiConfig> {
    const work = this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      const row = await this.config(tx, nb, id);
      const fe = new FieldErrors();
      const cols = prepareConfig(fe, '', b, row);
      fe.throwIfAny();
      await this.assertPortFree(tx, nbId, cols.port, id);
      await this.write(tx, id, cols);
      await this.event(tx, p, nb, 'nodebalancer_config_update');
      return this.apiConfig(tx, nb, id);
    });
    return uniqueAs(work, 'port', 'Port is already in use by another config.');
  }

  /**
   * Rebuild: the config's fields and its whole node list at once. Nodes with an `id` of the
   * config are updated, those without are created, and the config's other nodes are deleted.
   */
  async rebuild(p: Principal, nbId: number, id: number, b: RebuildInput): Promise<ApiConfig> {
    authz.requireGlobal(p, 'add_nodebalancers');
    return this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      const row = await this.config(tx, nb, id);
      const fe = new FieldErrors();
      const cols = prepareConfig(fe, '', b, row);
      duplicateAddresses(fe, 'nodes.', b.nodes);
      const scope = { accountId: nb.account_id, region: nb.region };
      const planned = [];
      for (const [i, n] of b.nodes.entries()) {
        const existing = n.id === undefined ? undefined : await findNode(tx, id, n.id);
        if (n.id !== undefined && !existing)
          fe.add(`nodes.${i}.id`, 'This node is not a node of this config');
        planned.push({
          id: existing?.id,
          cols: await prepareNode(tx, fe, `nodes.${i}.`, scope, n),
        });
      }
      fe.throwIfAny();
      await this.assertPortFree(tx, nbId, cols.port, id);
      await this.write(tx, id, cols);
      const keep = planned.flatMap((n) => (n.id === undefined ? [] : [n.id]));
      let del = tx.db.deleteFrom('nodebalancer_nodes').where('config_id', '=', id);
      if (keep.length > 0) del = del.where('id', 'not in', keep);
      await del.execute();
      const now = this.now();
      // Updated nodes first: a new node may take an address an updated node gives up.
      for (const n of planned.filter((x) => x.id !== undefined))
        await tx.db
          .updateTable('nodebalancer_nodes')
          .set(n.cols)
          .where('id', '=', n.id as number)
          .execute();
      for (const n of planned.filter((x) => x.id === undefined))
        await insertNode(tx, nbId, id, n.cols, now);
      await this.event(tx, p, nb, 'nodebalancer_config_update');
      return this.apiConfig(tx, nb, id);
    });
  }

  async delete(p: Principal, nbId: number, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      await this.config(tx, nb, id);
      await tx.db.deleteFrom('nodebalancer_nodes').where('config_id', '=', id).execute();
      await tx.db.deleteFrom('nodebalancer_configs').where('id', '=', id).execute();
      await this.event(tx, p, nb, 'nodebalancer_config_delete');
    });
  }

  async listNodes(
    p: Principal,
    nbId: number,
    configId: number,
    params: PageParams,
  ): Promise<Page<ApiNode>> {
    const { db } = this.d;
    const nb = await this.nbs.load(db, p, nbId, 'read_only');
    await this.config(db, nb, configId);
    const page = await paginate(
      db.db.selectFrom('nodebalancer_nodes').where('config_id', '=', configId),
      (qb) => qb.selectAll(),
      compileFilter(undefined, {}, db.dialect),
      params,
      { idColumn: 'id' },
      (r: NodeRow) => r,
    );
    return { ...page, data: await toApiNodes(db, nb, page.data) };
  }

  private async node(db: Database, configId: number, id: number): Promise<NodeRow> {
    const row = await findNode(db, configId, id);
    if (!row) throw errors.notFound();
    return row;
  }

  async getNode(p: Principal, nbId: number, configId: number, id: number): Promise<ApiNode> {
    const { db } = this.d;
    const nb = await this.nbs.load(db, p, nbId, 'read_only');
    await this.config(db, nb, configId);
    return this.apiNode(db, nb, await this.node(db, configId, id));
  }

  async createNode(p: Principal, nbId: number, configId: number, b: NodeInput): Promise<ApiNode> {
    const work = this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      await this.config(tx, nb, configId);
      const fe = new FieldErrors();
      const scope = { accountId: nb.account_id, region: nb.region };
      const cols = await prepareNode(tx, fe, '', scope, b);
      fe.throwIfAny();
      await this.assertAddressFree(tx, configId, cols);
      const id = await insertNode(tx, nbId, configId, cols, this.now());
      await this.event(tx, p, nb, 'nodebalancer_node_create');
      return this.apiNode(tx, nb, await this.node(tx, configId, id));
    });
    return uniqueAs(work, 'address', 'This address is already a node of this config.');
  }

  async updateNode(
    p: Principal,
    nbId: number,
    configId: number,
    id: number,
    b: UpdateNodeInput,
  ): Promise<ApiNode> {
    const work = this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      await this.config(tx, nb, configId);
      const row = await this.node(tx, configId, id);
      const fe = new FieldErrors();
      const scope = { accountId: nb.account_id, region: nb.region };
      const cols = await prepareNode(tx, fe, '', scope, b, row);
      fe.throwIfAny();
      await this.assertAddressFree(tx, configId, cols, id);
      await tx.db.updateTable('nodebalancer_nodes').set(cols).where('id', '=', id).execute();
      await this.event(tx, p, nb, 'nodebalancer_node_update');
      return this.apiNode(tx, nb, await this.node(tx, configId, id));
    });
    return uniqueAs(work, 'address', 'This address is already a node of this config.');
  }

  async deleteNode(p: Principal, nbId: number, configId: number, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      await this.config(tx, nb, configId);
      await this.node(tx, configId, id);
      await tx.db.deleteFrom('nodebalancer_nodes').where('id', '=', id).execute();
      await this.event(tx, p, nb, 'nodebalancer_node_delete');
    });
  }
}
