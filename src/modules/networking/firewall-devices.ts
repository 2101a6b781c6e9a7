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
  label: string;
  url: string;
}

const NAMES: Record<string, string> = { compute: 'Compute', nodebalancer: 'NodeBalancer' };
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
      const decl = this.entities.get(type);
      const list = decl ? await decl.list(db, accountId) : [];
      labels.set(type, new Map(list.map((e) => [e.id, e.label])));
    }
    const out = new Map<number, DeviceEntity>();
    for (const r of rows) {
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

export const deviceRef = (d: DeviceEntity): EntityRef => ({
  // Device types are compute and nodebalancer only (resolve refuses others).
  type: d.type as 'compute' | 'nodebalancer',
  id: d.id,
  label: d.label,
  url: d.url,
});
