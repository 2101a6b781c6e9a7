import type { TransferCascade } from '../../entities/entities.js';

/**
 * The networking area's part of an instance's service transfer. Refused, as the reference says:
 * an instance in a firewall, with shared addresses (either way) or with IPv6 ranges; and an
 * instance holding a reserved address (the account's, not the instance's). Its own
 * IPv4 addresses and the reverse DNS of its SLAAC address move with it.
 */
export const networkingTransferCascade: TransferCascade = {
  async refuse(db, _accountId, ids) {
    const device = await db.db
      .selectFrom('firewall_devices')
      .select('id')
      .where('entity_type', '=', 'compute')
      .where('entity_id', 'in', ids)
      .executeTakeFirst();
    if (device) return 'Compute instances assigned to a firewall cannot be transferred.';
    const shared = await db.db
      .selectFrom('ip_shares')
      .select('ip_shares.id')
      .leftJoin('ip_addresses', 'ip_addresses.id', 'ip_shares.ip_id')
      .where((eb) =>
        eb.or([eb('ip_shares.instance_id', 'in', ids), eb('ip_addresses.instance_id', 'in', ids)]),
      )
      .executeTakeFirst();
    if (shared) return 'Compute instances with shared IP addresses cannot be transferred.';
    const range = await db.db
      .selectFrom('ipv6_ranges')
      .select('id')
      .where('instance_id', 'in', ids)
      .executeTakeFirst();
    if (range) return 'Compute instances with IPv6 ranges cannot be transferred.';
    // A reserved address is the sending account's: unassign it first (it stays reserved).
    const reserved = await db.db
      .selectFrom('ip_addresses')
      .select('id')
      .where('instance_id', 'in', ids)
      .where('reserved', '=', 1)
      .executeTakeFirst();
    if (reserved)
      return 'Compute instances with reserved IPv4 addresses cannot be transferred; unassign them first.';
    return undefined;
  },
  async move(db, m) {
    await db.db
      .updateTable('ip_addresses')
      .set({ account_id: m.to })
      .where('instance_id', 'in', m.ids)
      .execute();
    await db.db
      .updateTable('ipv6_rdns')
      .set({ account_id: m.to })
      .where('instance_id', 'in', m.ids)
      .execute();
  },
};
