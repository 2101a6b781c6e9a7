import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { NbChildService } from './nb-child.service.js';
import { type ConfigRow, findNode, type NbRow, toApiConfigs } from './nodebalancers.repository.js';
import type { ApiConfig, ConfigInput, RebuildInput } from './nodebalancers.schemas.js';
import {
  type ConfigColumns,
  duplicateAddresses,
  insertConfig,
  insertNode,
  nodeColumnsOf,
  prepareConfig,
  prepareNode,
  uniqueAs,
} from './nodebalancers.writer.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';

/** The configs (ports) of a NodeBalancer: create, list, view, update, rebuild, delete. */
export class NbConfigsService extends NbChildService {
  private readonly seal = (plain: string) => this.d.sealer.sealNow(plain);

  private async apiConfig(db: Database, nb: NbRow, id: number): Promise<ApiConfig> {
    const row = await this.config(db, nb, id);
    return (await toApiConfigs(db, nb, [row]))[0] as ApiConfig;
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

  async list(
    p: Principal,
    nbId: number,
    params: PageParams,
    xf?: string | string[],
  ): Promise<Page<ApiConfig>> {
    const { db } = this.d;
    const nb = await this.nbs.load(db, p, nbId, 'read_only');
    const page = await paginate(
      db.db.selectFrom('nodebalancer_configs').where('nodebalancer_id', '=', nbId),
      (qb) => qb.selectAll(),
      compileFilter(xf, {}, db.dialect),
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
    await this.d.sealer.ready();
    const work = this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      const fe = new FieldErrors();
      const cols = prepareConfig(fe, '', b, this.seal);
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
    await this.d.sealer.ready();
    const work = this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      const row = await this.config(tx, nb, id);
      const fe = new FieldErrors();
      const cols = prepareConfig(fe, '', b, this.seal, row);
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
    await this.d.sealer.ready();
    return this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      const row = await this.config(tx, nb, id);
      // Rebuilding may delete nodes: refused under a cannot_delete_with_subresources lock.
      await refuseIfSubresourcesLocked(tx, 'nodebalancer', nb.id, 'the configs and nodes');
      const fe = new FieldErrors();
      const cols = prepareConfig(fe, '', b, this.seal, row);
      duplicateAddresses(fe, 'nodes.', b.nodes);
      const scope = { accountId: nb.account_id, region: nb.region, nbId: nb.id };
      const planned = [];
      for (const [i, n] of b.nodes.entries()) {
        const existing = n.id === undefined ? undefined : await findNode(tx, id, n.id);
        if (n.id !== undefined && !existing)
          fe.add(`nodes.${i}.id`, 'This node is not a node of this config');
        planned.push({
          id: existing?.id,
          created: existing?.created ?? '',
          cols: await prepareNode(tx, fe, `nodes.${i}.`, scope, n, existing),
        });
      }
      fe.throwIfAny();
      await this.assertPortFree(tx, nbId, cols.port, id);
      await this.write(tx, id, cols);
      // Kept nodes come back under their ids, so addresses may move between nodes in one rebuild.
      await tx.db.deleteFrom('nodebalancer_nodes').where('config_id', '=', id).execute();
      const now = this.now();
      for (const n of planned) {
        if (n.id === undefined) await insertNode(tx, nbId, id, n.cols, now);
        else
          await tx.db
            .insertInto('nodebalancer_nodes')
            .values({
              id: n.id,
              nodebalancer_id: nbId,
              config_id: id,
              ...nodeColumnsOf(n.cols),
              created: n.created,
            })
            .execute();
      }
      await this.event(tx, p, nb, 'nodebalancer_config_update');
      return this.apiConfig(tx, nb, id);
    });
  }

  async delete(p: Principal, nbId: number, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const nb = await this.nbs.load(tx, p, nbId, 'read_write', true);
      await this.config(tx, nb, id);
      await refuseIfSubresourcesLocked(tx, 'nodebalancer', nb.id, 'the configs');
      await tx.db.deleteFrom('nodebalancer_nodes').where('config_id', '=', id).execute();
      await tx.db.deleteFrom('nodebalancer_configs').where('id', '=', id).execute();
      await this.event(tx, p, nb, 'nodebalancer_config_delete');
    });
  }
}
