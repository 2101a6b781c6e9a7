import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { NbChildService } from './nb-child.service.js';
import { findNode, type NbRow, type NodeRow, toApiNodes } from './nodebalancers.repository.js';
import type { ApiNode, NodeInput, UpdateNodeInput } from './nodebalancers.schemas.js';
import { insertNode, nodeColumnsOf, prepareNode, uniqueAs } from './nodebalancers.writer.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';

/** The nodes (backends) of a NodeBalancer config: create, list, view, update, delete. */
export class NbNodesService extends NbChildService {
  private async apiNode(db: Database, nb: NbRow, row: NodeRow): Promise<ApiNode> {
    return (await toApiNodes(db, nb, [row]))[0] as ApiNode;
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

  async listNodes(
    p: Principal,
    nbId: number,
    configId: number,
    params: PageParams,
    xf?: string | string[],
  ): Promise<Page<ApiNode>> {
    const { db } = this.d;
    const nb = await this.nbs.load(db, p, nbId, 'read_only');
    await this.config(db, nb, configId);
    const page = await paginate(
      db.db.selectFrom('nodebalancer_nodes').where('config_id', '=', configId),
      (qb) => qb.selectAll(),
      compileFilter(xf, {}, db.dialect),
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
      const scope = { accountId: nb.account_id, region: nb.region, nbId: nb.id };
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
      const scope = { accountId: nb.account_id, region: nb.region, nbId: nb.id };
      const cols = await prepareNode(tx, fe, '', scope, b, row);
      fe.throwIfAny();
      await this.assertAddressFree(tx, configId, cols, id);
      await tx.db
        .updateTable('nodebalancer_nodes')
        .set(nodeColumnsOf(cols))
        .where('id', '=', id)
        .execute();
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
      await refuseIfSubresourcesLocked(tx, 'nodebalancer', nb.id, 'the nodes');
      await tx.db.deleteFrom('nodebalancer_nodes').where('id', '=', id).execute();
      await this.event(tx, p, nb, 'nodebalancer_node_delete');
    });
  }
}
