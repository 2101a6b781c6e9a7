import type { TransferCascade } from '../../entities/entities.js';

/** An instance that is a NodeBalancer's backend (a node on one of its addresses) stays. */
export const nodebalancersTransferCascade: TransferCascade = {
  async refuse(db, _accountId, ids) {
    const node = await db.db
      .selectFrom('nodebalancer_nodes')
      .innerJoin('ip_addresses', 'ip_addresses.address', 'nodebalancer_nodes.ip')
      .select('nodebalancer_nodes.id')
      .where('ip_addresses.instance_id', 'in', ids)
      .executeTakeFirst();
    return node ? 'Compute instances behind a NodeBalancer cannot be transferred.' : undefined;
  },
};
