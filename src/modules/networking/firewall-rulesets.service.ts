import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { lockAccountFirewalls } from './firewalls.repository.js';
import {
  checkRule,
  type ExpandedRules,
  firewallLabelProblem,
  isRef,
  MAX_RULES,
  type Rule,
  type RuleInput,
  type RuleSet,
} from './firewalls.rules.js';
import type { ApiRuleset, CreateRuleset, UpdateRuleset } from './firewalls.schemas.js';
import type { FirewallRulesetsTable } from './networking.table.js';

type XFilter = string | string[] | undefined;
export type RulesetRow = Omit<FirewallRulesetsTable, 'id'> & { id: number };

export const RULESET_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'firewall_rulesets.id' },
  label: { kind: 'string', column: 'firewall_rulesets.label' },
  type: { kind: 'string', column: 'firewall_rulesets.type' },
  created: { kind: 'datetime', column: 'firewall_rulesets.created' },
  updated: { kind: 'datetime', column: 'firewall_rulesets.updated' },
};

const MAX_DESCRIPTION = 255;

export const toApiRuleset = (r: RulesetRow): ApiRuleset => ({
  id: r.id,
  label: r.label,
  description: r.description,
  type: r.type,
  rules: JSON.parse(r.rules) as Rule[],
  is_service_defined: false,
  version: r.version,
  created: r.created,
  updated: r.updated,
  deleted: r.deleted,
});

/** The account's rule set `id` that a firewall rule may name (not deleted), or undefined. */
export async function liveRuleset(
  db: Database,
  accountId: number,
  id: number,
): Promise<RulesetRow | undefined> {
  return db.db
    .selectFrom('firewall_rulesets')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted', 'is', null)
    .executeTakeFirst();
}

/**
 * Rule sets (`/networking/firewalls/rulesets`): an account's named, ordered rules of one
 * direction. They are the account's, with no per-entity grants: restricted users read them with
 * `account_access` (read_only) and write them with `add_firewalls`.
 */
export class FirewallRulesetsService {
  constructor(private readonly d: { db: Database; clock: Clock }) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private checkRules(fe: FieldErrors, rules: RuleInput[]): Rule[] {
    if (rules.length > MAX_RULES) fe.add('rules', `Too many rules: at most ${MAX_RULES}`);
    return rules.map((r, i) => checkRule(fe, `rules[${i}]`, r));
  }

  private checkText(fe: FieldErrors, label?: string, description?: string) {
    if (label !== undefined) {
      const lp = firewallLabelProblem(label);
      if (lp) fe.add('label', lp);
    }
    if (description !== undefined && description.length > MAX_DESCRIPTION)
      fe.add('description', `Description must be at most ${MAX_DESCRIPTION} characters`);
  }

  private async assertLabelFree(tx: Database, accountId: number, label: string, exceptId = 0) {
    const dup = await tx.db
      .selectFrom('firewall_rulesets')
      .select('id')
      .where('account_id', '=', accountId)
      .where('label', '=', label)
      .where('deleted', 'is', null)
      .where('id', '<>', exceptId)
      .executeTakeFirst();
    if (dup) throw errors.invalidField('label', 'Label must be unique among your rule sets');
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiRuleset>> {
    authz.requireAccountAccess(p, 'read_only');
    const { db } = this.d;
    return paginate(
      db.db.selectFrom('firewall_rulesets').where('firewall_rulesets.account_id', '=', p.accountId),
      (qb) => qb.selectAll('firewall_rulesets'),
      compileFilter(xf, RULESET_FILTERS, db.dialect),
      params,
      { idColumn: 'firewall_rulesets.id' },
      (r: RulesetRow) => toApiRuleset(r),
    );
  }

  async get(p: Principal, id: number): Promise<ApiRuleset> {
    authz.requireAccountAccess(p, 'read_only');
    const row = await this.d.db.db
      .selectFrom('firewall_rulesets')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApiRuleset(row);
  }

  async create(p: Principal, b: CreateRuleset): Promise<ApiRuleset> {
    authz.requireGlobal(p, 'add_firewalls');
    const fe = new FieldErrors();
    this.checkText(fe, b.label, b.description);
    const rules = this.checkRules(fe, b.rules);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      await this.assertLabelFree(tx, p.accountId, b.label);
      const now = this.now();
      const row = await tx.db
        .insertInto('firewall_rulesets')
        .values({
          account_id: p.accountId,
          label: b.label,
          description: b.description ?? '',
          type: b.type as RulesetRow['type'],
          rules: JSON.stringify(rules),
          version: 1,
          created: now,
          updated: now,
          deleted: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toApiRuleset(row);
    });
  }

  /** Label and description change in place; new `rules` replace the list and make a new version. */
  async update(p: Principal, id: number, b: UpdateRuleset): Promise<ApiRuleset> {
    authz.requireGlobal(p, 'add_firewalls');
    const fe = new FieldErrors();
    this.checkText(fe, b.label, b.description);
    const rules = b.rules === undefined ? undefined : this.checkRules(fe, b.rules);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      const row = await liveRuleset(tx, p.accountId, id);
      if (!row) throw errors.notFound();
      if (b.label !== undefined && b.label !== row.label)
        await this.assertLabelFree(tx, p.accountId, b.label, id);
      const changed = await tx.db
        .updateTable('firewall_rulesets')
        .set({
          label: b.label ?? row.label,
          description: b.description ?? row.description,
          ...(rules ? { rules: JSON.stringify(rules), version: row.version + 1 } : {}),
          updated: this.now(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toApiRuleset(changed);
    });
  }

  /**
   * Delete: the rule set stays listed with `deleted` set, as the real service lists it; no
   * firewall rule may name it any more. One that a firewall's rules name cannot be deleted.
   */
  async delete(p: Principal, id: number): Promise<void> {
    authz.requireGlobal(p, 'add_firewalls');
    await this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      const row = await liveRuleset(tx, p.accountId, id);
      if (!row) throw errors.notFound();
      const users = await firewallsNaming(tx, p.accountId, id);
      if (users.length > 0)
        throw errors.reason(
          `The rule set is used by firewall ${users.map((f) => f.label).join(', ')}; remove it from their rules first`,
        );
      await tx.db
        .updateTable('firewall_rulesets')
        .set({ deleted: this.now() })
        .where('id', '=', id)
        .execute();
    });
  }
}

/** The account's firewalls whose rules name rule set `id`. */
async function firewallsNaming(db: Database, accountId: number, id: number) {
  const rows = await db.db
    .selectFrom('firewalls')
    .select(['id', 'label', 'rules'])
    .where('account_id', '=', accountId)
    .execute();
  return rows.filter((r) => {
    const parsed = JSON.parse(r.rules) as {
      inbound?: { ruleset?: number }[];
      outbound?: { ruleset?: number }[];
    };
    return [...(parsed.inbound ?? []), ...(parsed.outbound ?? [])].some((x) => x.ruleset === id);
  });
}

/**
 * The rule sets a firewall's rules name must be the account's, not deleted, and of the entry's
 * direction: 400 naming `<prefix>.<direction>[i].ruleset` otherwise.
 */
export async function checkRulesetRefs(
  db: Database,
  accountId: number,
  prefix: string,
  rules: RuleSet,
): Promise<void> {
  const fe = new FieldErrors();
  for (const dir of ['inbound', 'outbound'] as const) {
    for (const [i, r] of rules[dir].entries()) {
      if (!isRef(r)) continue;
      const f = `${prefix ? `${prefix}.` : ''}${dir}[${i}].ruleset`;
      const rs = await liveRuleset(db, accountId, r.ruleset);
      if (!rs) fe.add(f, 'Rule set not found');
      else if (rs.type !== dir) fe.add(f, `Rule set ${rs.id} holds ${rs.type} rules`);
    }
  }
  fe.throwIfAny();
}

/** A firewall's rules with each rule set named replaced by its current rules, in place. */
export async function expandRules(
  db: Database,
  accountId: number,
  rules: RuleSet,
): Promise<ExpandedRules> {
  const out: ExpandedRules = { inbound: [], outbound: [] };
  const cache = new Map<number, Rule[]>();
  for (const dir of ['inbound', 'outbound'] as const) {
    for (const r of rules[dir]) {
      if (!isRef(r)) {
        out[dir].push(r);
        continue;
      }
      let list = cache.get(r.ruleset);
      if (!list) {
        const row = await db.db
          .selectFrom('firewall_rulesets')
          .select('rules')
          .where('account_id', '=', accountId)
          .where('id', '=', r.ruleset)
          .executeTakeFirst();
        list = row ? (JSON.parse(row.rules) as Rule[]) : [];
        cache.set(r.ruleset, list);
      }
      out[dir].push(...list);
    }
  }
  return out;
}
