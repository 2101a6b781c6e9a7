import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import { tagsFilter, tagsOf } from '../tags/tags.repository.js';
import type { Policy, RuleSet } from './firewalls.rules.js';
import type { ApiFirewall } from './firewalls.schemas.js';
import type { FirewallDevicesTable, FirewallsTable } from './networking.table.js';
import type { DeviceEntity } from './firewall-devices.js';

export type FirewallRow = Omit<FirewallsTable, 'id'> & { id: number };
export type DeviceRow = Omit<FirewallDevicesTable, 'id'> & { id: number };

/** Filterable fields of firewalls and devices (reference `x-compute-filterable`). */
export const FIREWALL_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'firewalls.id' },
  label: { kind: 'string', column: 'firewalls.label' },
  created: { kind: 'datetime', column: 'firewalls.created' },
  updated: { kind: 'datetime', column: 'firewalls.updated' },
  tags: tagsFilter('firewall', 'firewalls.id'),
};

export const DEVICE_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'firewall_devices.id' },
  created: { kind: 'datetime', column: 'firewall_devices.created' },
  updated: { kind: 'datetime', column: 'firewall_devices.updated' },
};

export async function findFirewall(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<FirewallRow | undefined> {
  const q = db.db
    .selectFrom('firewalls')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

export const rulesOf = (row: FirewallRow): RuleSet => {
  const parsed = JSON.parse(row.rules) as Partial<RuleSet>;
  return { inbound: parsed.inbound ?? [], outbound: parsed.outbound ?? [] };
};

/** A firewall's services as `entities` shows them (the device's entity, no parent entity). */
export type FirewallEntities = (
  db: Database,
  rows: readonly DeviceRow[],
) => Promise<Map<number, DeviceEntity>>;

/**
 * `rules.fingerprint`: the first 8 hex digits of the SHA-256 of the rule sets and policies, so a
 * client can tell whether the rules changed (the real service sends 8 hex digits too).
 */
export function rulesFingerprint(rules: RuleSet, inbound: string, outbound: string): string {
  const text = JSON.stringify({ ...rules, inbound_policy: inbound, outbound_policy: outbound });
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export async function toApiFirewalls(
  db: Database,
  rows: readonly FirewallRow[],
  entitiesOf: FirewallEntities,
): Promise<ApiFirewall[]> {
  const ids = rows.map((r) => r.id);
  const [tags, devices] = await Promise.all([
    tagsOf(db, 'firewall', ids),
    ids.length === 0
      ? Promise.resolve([] as DeviceRow[])
      : db.db
          .selectFrom('firewall_devices')
          .selectAll()
          .where('firewall_id', 'in', ids)
          .orderBy('id')
          .execute(),
  ]);
  const entities = await entitiesOf(db, devices);
  return rows.map((r) => {
    const rules = rulesOf(r);
    return {
      id: r.id,
      label: r.label,
      created: r.created,
      updated: r.updated,
      status: r.status,
      rules: {
        ...rules,
        inbound_policy: r.inbound_policy as Policy,
        outbound_policy: r.outbound_policy as Policy,
        version: r.rules_version ?? 1,
        fingerprint: rulesFingerprint(rules, r.inbound_policy, r.outbound_policy),
      },
      tags: tags.get(r.id) ?? [],
      entities: devices
        .filter((d) => d.firewall_id === r.id)
        .flatMap((d) => {
          const e = entities.get(d.id);
          return e ? [{ ...e, parent_entity: e.parent_entity ?? null }] : [];
        }),
    };
  });
}

export async function devicesOf(db: Database, firewallId: number): Promise<DeviceRow[]> {
  return db.db
    .selectFrom('firewall_devices')
    .selectAll()
    .where('firewall_id', '=', firewallId)
    .orderBy('id')
    .execute();
}

/** Enabled firewalls other than `exceptId` that have this entity as a device. */
export async function enabledFirewallsOf(
  db: Database,
  type: string,
  entityId: number,
  exceptId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('firewall_devices as d')
    .innerJoin('firewalls as f', 'f.id', 'd.firewall_id')
    .select(['f.id', 'f.label'])
    .where('d.entity_type', '=', type)
    .where('d.entity_id', '=', entityId)
    .where('f.status', '=', 'enabled')
    .where('f.id', '<>', exceptId)
    .execute();
}

/** Serialises the account's firewall assignments (PostgreSQL; SQLite has one writer). */
export async function lockAccountFirewalls(db: Database, accountId: number): Promise<void> {
  await db
    .forUpdate(db.db.selectFrom('accounts').select('id').where('id', '=', accountId))
    .execute();
}

/** Whether an instance is being live-migrated: status `migrating` or a migration job under way. */
export async function isMigrating(db: Database, instanceId: number): Promise<boolean> {
  const inst = await db.db
    .selectFrom('instances')
    .select('status')
    .where('id', '=', instanceId)
    .executeTakeFirst();
  if (inst?.status === 'migrating') return true;
  const job = await db.db
    .selectFrom('jobs')
    .select('id')
    .where('entity_type', '=', 'compute')
    .where('entity_id', '=', instanceId)
    .where('status', 'in', ['queued', 'running'])
    .where('name', 'like', '%migrat%')
    .executeTakeFirst();
  return job !== undefined;
}

/** Every firewall of an account with its label (grants views and checks). */
export async function firewallLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('firewalls')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** Removes an entity from every firewall's devices (its deletion). */
export async function dropDevice(db: Database, type: string, entityId: number): Promise<void> {
  await db.db
    .deleteFrom('firewall_devices')
    .where('entity_type', '=', type)
    .where('entity_id', '=', entityId)
    .execute();
}
