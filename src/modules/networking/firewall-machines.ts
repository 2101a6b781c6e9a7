import type { Database } from '../../db/database.js';
import type { MachineFirewall } from '../../machines/driver.js';
import { expandRules } from './firewall-rulesets.service.js';
import { type FirewallRow, rulesOf } from './firewalls.repository.js';

/**
 * The enabled firewalls that protect an instance: those with the instance itself as a device, and
 * those with one of its interfaces (`compute_interface`), once each in id order, their rule sets
 * expanded to the rules they hold now. A disabled firewall protects nothing.
 */
export async function machineFirewalls(
  db: Database,
  instanceId: number,
): Promise<MachineFirewall[]> {
  const interfaces = (
    await db.db
      .selectFrom('compute_interfaces')
      .select('id')
      .where('instance_id', '=', instanceId)
      .execute()
  ).map((r) => r.id);
  const rows = await db.db
    .selectFrom('firewalls as f')
    .selectAll('f')
    .where('f.status', '=', 'enabled')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('firewall_devices as d')
          .select('d.id')
          .whereRef('d.firewall_id', '=', 'f.id')
          .where((w) =>
            w.or([
              w.and([w('d.entity_type', '=', 'compute'), w('d.entity_id', '=', instanceId)]),
              ...(interfaces.length > 0
                ? [
                    w.and([
                      w('d.entity_type', '=', 'compute_interface'),
                      w('d.entity_id', 'in', interfaces),
                    ]),
                  ]
                : []),
            ]),
          ),
      ),
    )
    .orderBy('f.id')
    .execute();
  const out: MachineFirewall[] = [];
  for (const row of rows as FirewallRow[]) {
    out.push({
      id: row.id,
      rules: await expandRules(db, row.account_id, rulesOf(row)),
      inboundPolicy: row.inbound_policy === 'ACCEPT' ? 'ACCEPT' : 'DROP',
      outboundPolicy: row.outbound_policy === 'ACCEPT' ? 'ACCEPT' : 'DROP',
    });
  }
  return out;
}
