import type { Database } from '../../db/database.js';
import { rulesFingerprint } from './firewalls.repository.js';
import type { Policy, RuleSet } from './firewalls.rules.js';
import type { ApiFirewallRules } from './firewalls.schemas.js';
import type { FirewallRuleVersionsTable } from './networking.table.js';

export type RuleVersionRow = Omit<FirewallRuleVersionsTable, 'id'> & { id: number };

/** Keeps one version of a firewall's rules (its creation: 1; each change: one more). */
export async function recordRuleVersion(
  db: Database,
  fw: { id: number; account_id: number; status: string },
  version: number,
  v: { rules: RuleSet; inbound_policy: string; outbound_policy: string; created: string },
): Promise<void> {
  await db.db
    .insertInto('firewall_rule_versions')
    .values({
      firewall_id: fw.id,
      account_id: fw.account_id,
      version,
      status: fw.status,
      inbound_policy: v.inbound_policy,
      outbound_policy: v.outbound_policy,
      rules: JSON.stringify({ inbound: v.rules.inbound, outbound: v.rules.outbound }),
      created: v.created,
    })
    .execute();
}

/** A kept version as `GET …/history/rules/{version}` answers it (as `GET …/rules` did then). */
export function ruleVersionView(row: RuleVersionRow): ApiFirewallRules {
  const parsed = JSON.parse(row.rules) as Partial<RuleSet>;
  const rules: RuleSet = { inbound: parsed.inbound ?? [], outbound: parsed.outbound ?? [] };
  return {
    ...rules,
    inbound_policy: row.inbound_policy as Policy,
    outbound_policy: row.outbound_policy as Policy,
    version: row.version,
    fingerprint: rulesFingerprint(rules, row.inbound_policy, row.outbound_policy),
  };
}

/** The kinds of default firewall (`default_firewall_ids`). */
export const DEFAULT_KINDS = [
  'compute',
  'nodebalancer',
  'public_interface',
  'vpc_interface',
] as const;
export type DefaultKind = (typeof DEFAULT_KINDS)[number];
export type DefaultFirewallIds = Record<DefaultKind, number | null>;

export async function readDefaults(db: Database, accountId: number): Promise<DefaultFirewallIds> {
  const row = await db.db
    .selectFrom('firewall_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return {
    compute: row?.compute ?? null,
    nodebalancer: row?.nodebalancer ?? null,
    public_interface: row?.public_interface ?? null,
    vpc_interface: row?.vpc_interface ?? null,
  };
}

export async function writeDefaults(
  db: Database,
  accountId: number,
  ids: DefaultFirewallIds,
  now: string,
): Promise<void> {
  const updated = await db.db
    .updateTable('firewall_settings')
    .set({ ...ids, updated: now })
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0)
    await db.db
      .insertInto('firewall_settings')
      .values({ account_id: accountId, ...ids, updated: now })
      .execute();
}

/** The kinds for which a firewall is the account's default (none: it may be deleted). */
export async function defaultKindsOf(
  db: Database,
  accountId: number,
  firewallId: number,
): Promise<DefaultKind[]> {
  const ids = await readDefaults(db, accountId);
  return DEFAULT_KINDS.filter((k) => ids[k] === firewallId);
}
