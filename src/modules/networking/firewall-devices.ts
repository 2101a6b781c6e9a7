import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { EntityRegistry } from '../../entities/entities.js';
import { errors } from '../../errors/errors.js';
import type { EntityRef } from '../events/events.types.js';
import { type DeviceRow, enabledFirewallsOf, isMigrating } from './firewalls.repository.js';

/** A device's entity as the API shows it. */
export interface DeviceEntity {
  id: number;
  type: string;
  /** null for an interface (it has no label). */
  label: string | null;
  url: string;
  /** An interface's instance; absent (null) for other devices. */
  parent_entity?: ParentEntity | null;
}

export interface ParentEntity {
  id: number;
  type: string;
  label: string;
  url: string;
  parent_entity: null;
}

/** An instance's own interface as a firewall device (`compute_interface`). */
async function interfaceEntities(
  db: Database,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, DeviceEntity>> {
  const out = new Map<number, DeviceEntity>();
  if (ids.length === 0) return out;
  const rows = await db.db
    .selectFrom('compute_interfaces as ci')
    .innerJoin('instances as i', 'i.id', 'ci.instance_id')
    .select(['ci.id', 'ci.instance_id', 'ci.purpose', 'i.label'])
    .where('ci.account_id', '=', accountId)
    .where('ci.id', 'in', [...ids])
    .execute();
  for (const r of rows) {
    out.set(r.id, {
      id: r.id,
      type: 'compute_interface',
      label: null,
      url: `/v4/compute/instances/${r.instance_id}/interfaces/${r.id}`,
      parent_entity: {
        id: r.instance_id,
        type: 'compute',
        label: r.label,
        url: `/v4/compute/instances/${r.instance_id}`,
        parent_entity: null,
      },
    });
  }
  return out;
}

const NAMES: Record<string, string> = {
  compute: 'Compute',
  nodebalancer: 'NodeBalancer',
  compute_interface: 'Interface',
};
const nameOf = (type: string) => NAMES[type] ?? type;

/**
 * Firewall devices are entities of declared types: their label, URL and grants come from
 * `ctx.entities`, so a type declared by another area (nodebalancer) works without more code.
 */
export class DeviceResolver {
  constructor(private readonly entities: EntityRegistry) {}

  /**
   * The entity a device names, checked: its type is declared, it exists in the caller's account,
   * the caller has read_write on it, and an instance is not live-migrating.
   */
  async resolve(
    db: Database,
    p: Principal,
    type: string,
    id: number,
    field: string,
  ): Promise<DeviceEntity> {
    if (type === 'compute_interface') return this.resolveInterface(db, p, id, field);
    const decl = this.entities.get(type);
    if (!decl || (type !== 'compute' && type !== 'nodebalancer'))
      throw errors.invalidField(
        field === 'id' ? 'type' : field,
        `${type} devices are not available`,
      );
    const found = (await decl.list(db, p.accountId)).find((e) => e.id === id);
    const perm =
      found && decl.grant ? await authz.permissionOn(db, p, decl.grant, id) : 'read_write';
    if (!found || perm === null)
      throw errors.invalidField(field, `${nameOf(type)} ${id} not found`);
    if (perm !== 'read_write') throw errors.unauthorized();
    if (type === 'compute') {
      const inst = await db.db
        .selectFrom('instances')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirst();
      if (inst?.status === 'deleting') throw errors.busy('Compute');
      if (await isMigrating(db, id))
        throw errors.invalidField(field, `Compute ${id} has a migration in progress`);
    }
    return { id, type, label: found.label, url: decl.url(id) };
  }

  /**
   * An interface of the compute generation: of the caller's account, on an instance the caller
   * has read_write on; a VLAN interface takes no firewall.
   */
  private async resolveInterface(
    db: Database,
    p: Principal,
    id: number,
    field: string,
  ): Promise<DeviceEntity> {
    const row = await db.db
      .selectFrom('compute_interfaces')
      .select(['instance_id', 'purpose'])
      .where('account_id', '=', p.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    const perm = row ? await authz.permissionOn(db, p, 'compute', row.instance_id) : null;
    if (!row || perm === null) throw errors.invalidField(field, `Interface ${id} not found`);
    if (perm !== 'read_write') throw errors.unauthorized();
    if (row.purpose === 'vlan')
      throw errors.invalidField(field, 'A VLAN interface cannot have a firewall');
    const found = (await interfaceEntities(db, p.accountId, [id])).get(id);
    if (!found) throw errors.invalidField(field, `Interface ${id} not found`);
    return found;
  }

  /** A second enabled firewall on one service is refused. */
  async assertNoOtherEnabled(db: Database, firewallId: number, d: DeviceEntity): Promise<void> {
    const others = await enabledFirewallsOf(db, d.type, d.id, firewallId);
    if (others.length > 0) {
      throw errors.reason(
        `${nameOf(d.type)} ${d.id} already has an enabled firewall (${others[0]?.label}); a service has at most one enabled firewall`,
      );
    }
  }

  /** The entities of stored devices, labels read once per type. */
  async entitiesOf(
    db: Database,
    accountId: number,
    rows: readonly DeviceRow[],
  ): Promise<Map<number, DeviceEntity>> {
    const labels = new Map<string, Map<number, string>>();
    for (const type of new Set(rows.map((r) => r.entity_type))) {
      if (type === 'compute_interface') continue;
      const decl = this.entities.get(type);
      const list = decl ? await decl.list(db, accountId) : [];
      labels.set(type, new Map(list.map((e) => [e.id, e.label])));
    }
    const out = new Map<number, DeviceEntity>();
    const ifaces = await interfaceEntities(
      db,
      accountId,
      rows.filter((r) => r.entity_type === 'compute_interface').map((r) => r.entity_id),
    );
    for (const r of rows) {
      if (r.entity_type === 'compute_interface') {
        const e = ifaces.get(r.entity_id);
        if (e) out.set(r.id, e);
        continue;
      }
      const decl = this.entities.get(r.entity_type);
      out.set(r.id, {
        id: r.entity_id,
        type: r.entity_type,
        label: labels.get(r.entity_type)?.get(r.entity_id) ?? '',
        url: decl ? decl.url(r.entity_id) : '',
      });
    }
    return out;
  }

  /** Whether any compute device is live-migrating (disable and delete wait for it). */
  async assertNoMigration(db: Database, rows: readonly DeviceRow[]): Promise<void> {
    for (const r of rows) {
      if (r.entity_type === 'compute' && (await isMigrating(db, r.entity_id)))
        throw errors.reason(`Compute ${r.entity_id} has a migration in progress`);
    }
  }
}

/** A device in an event: an interface is named by its instance (events name no interfaces). */
export const deviceRef = (d: DeviceEntity): EntityRef =>
  d.parent_entity
    ? {
        type: 'compute',
        id: d.parent_entity.id,
        label: d.parent_entity.label,
        url: d.parent_entity.url,
      }
    : {
        // Other device types are compute and nodebalancer only (resolve refuses others).
        type: d.type as 'compute' | 'nodebalancer',
        id: d.id,
        label: d.label,
        url: d.url,
      };
