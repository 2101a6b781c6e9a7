import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';

/** Event entity of a VPC: type `vpc` (docs/fidelity.md: the reference's enum has none). */
export const vpcRef = (id: number, label: string): EntityRef => ({
  type: 'vpc',
  id,
  label,
  url: `/v4/vpcs/${id}`,
});

/** Event entity of a subnet: type `subnet`; its VPC is the secondary entity. */
export const subnetRef = (vpcId: number, id: number, label: string): EntityRef => ({
  type: 'subnet',
  id,
  label,
  url: `/v4/vpcs/${vpcId}/subnets/${id}`,
});

/** Records a VPC or subnet event (`notification`: the change is complete when answered). */
export async function recordVpcEvent(
  events: EventWriter,
  db: Database,
  p: Principal,
  action: string,
  vpc: { id: number; label: string },
  subnet?: { id: number; label: string },
): Promise<void> {
  await events.record(db, {
    accountId: p.accountId,
    action,
    entity: subnet ? subnetRef(vpc.id, subnet.id, subnet.label) : vpcRef(vpc.id, vpc.label),
    secondaryEntity: subnet ? vpcRef(vpc.id, vpc.label) : null,
    status: 'notification',
    username: p.username,
  });
}
