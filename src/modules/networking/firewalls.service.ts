import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { EntityRegistry } from '../../entities/entities.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { ipv4ToNum, parseIpv6 } from '../../lib/ip.js';
import { type Page, type PageParams, pageOf, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { checkTags } from '../compute/compute.rules.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { dropTags, setTags } from '../tags/tags.repository.js';
import { checkRulesetRefs, expandRules } from './firewall-rulesets.service.js';
import { FIREWALL_TEMPLATES } from './firewall-templates.js';
import { type DeviceEntity, DeviceResolver, deviceRef } from './firewall-devices.js';
import {
  DEVICE_FILTERS,
  type DeviceRow,
  devicesOf,
  FIREWALL_FILTERS,
  type FirewallRow,
  findFirewall,
  lockAccountFirewalls,
  rulesFingerprint,
  rulesOf,
  toApiFirewalls,
} from './firewalls.repository.js';
import {
  DEFAULT_KINDS,
  type DefaultKind,
  defaultKindsOf,
  type RuleVersionRow,
  readDefaults,
  recordRuleVersion,
  ruleVersionView,
  writeDefaults,
} from './firewall-history.js';
import { checkRules, evaluate, firewallLabelProblem, type Policy } from './firewalls.rules.js';
import type {
  ApiFirewall,
  ApiFirewallDevice,
  ApiFirewallRules,
  ApiFirewallSettings,
  ApiFirewallTemplate,
  ApiRuleVersionEntry,
  CreateFirewall,
  Evaluate,
  UpdateFirewall,
  UpdateFirewallSettings,
  UpdateRules,
} from './firewalls.schemas.js';

type XFilter = string | string[] | undefined;

export interface FirewallDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  entities: EntityRegistry;
}

export const firewallRef = (id: number, label: string): EntityRef => ({
  type: 'firewall',
  id,
  label,
  url: `/v4/networking/firewalls/${id}`,
});

/** Firewalls: the resource, its rules and its devices; the one-enabled-firewall rule. */
export class FirewallsService {
  readonly devices: DeviceResolver;
  constructor(private readonly d: FirewallDeps) {
    this.devices = new DeviceResolver(d.entities);
  }

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** The entities of devices, for `entities` (the account is each device's own). */
  private readonly entitiesOf = async (db: Database, rows: readonly DeviceRow[]) => {
    const out = new Map<number, DeviceEntity>();
    for (const accountId of new Set(rows.map((r) => r.account_id))) {
      const mine = rows.filter((r) => r.account_id === accountId);
      for (const [k, v] of await this.devices.entitiesOf(db, accountId, mine)) out.set(k, v);
    }
    return out;
  };

  private async one(db: Database, id: number): Promise<ApiFirewall> {
    const row = await db.db
      .selectFrom('firewalls')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return (await toApiFirewalls(db, [row], this.entitiesOf))[0] as ApiFirewall;
  }

  private async load(
    db: Database,
    p: Principal,
    id: number,
    level: 'read_only' | 'read_write',
    lock = false,
  ): Promise<FirewallRow> {
    const row = await findFirewall(db, p.accountId, id, lock);
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'firewall', id, level);
    return row;
  }

  private async assertLabelFree(db: Database, p: Principal, label: string, exceptId = 0) {
    const dup = await db.db
      .selectFrom('firewalls')
      .select('id')
      .where('account_id', '=', p.accountId)
      .where('label', '=', label)
      .where('id', '<>', exceptId)
      .executeTakeFirst();
    if (dup) throw errors.invalidField('label', 'Label must be unique among your firewalls');
  }

  private record(tx: Database, p: Principal, action: string, fw: EntityRef, second?: EntityRef) {
    return this.d.events.record(tx, {
      accountId: p.accountId,
      action,
      entity: fw,
      secondaryEntity: second ?? null,
      status: 'notification',
      username: p.username,
    });
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiFirewall>> {
    const { db } = this.d;
    let base = db.db.selectFrom('firewalls').where('firewalls.account_id', '=', p.accountId);
    const vis = authz.visible(p, 'firewall', 'firewalls.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('firewalls'),
      compileFilter(xf, FIREWALL_FILTERS, db.dialect),
      params,
      { idColumn: 'firewalls.id' },
      (r: FirewallRow) => r,
    );
    return { ...page, data: await toApiFirewalls(db, page.data, this.entitiesOf) };
  }

  /** `GET /compute/instances/{id}/firewalls` (and any other device type's list). */
  async ofDevice(
    p: Principal,
    type: string,
    entityId: number,
    params: PageParams,
  ): Promise<Page<ApiFirewall>> {
    const { db } = this.d;
    let base = db.db
      .selectFrom('firewalls')
      .where('firewalls.account_id', '=', p.accountId)
      .where((eb) =>
        eb(
          'firewalls.id',
          'in',
          eb
            .selectFrom('firewall_devices')
            .select('firewall_id')
            .where('entity_type', '=', type)
            .where('entity_id', '=', entityId),
        ),
      );
    const vis = authz.visible(p, 'firewall', 'firewalls.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('firewalls'),
      compileFilter(undefined, FIREWALL_FILTERS, db.dialect),
      params,
      { idColumn: 'firewalls.id' },
      (r: FirewallRow) => r,
    );
    return { ...page, data: await toApiFirewalls(db, page.data, this.entitiesOf) };
  }

  async get(p: Principal, id: number): Promise<ApiFirewall> {
    await this.load(this.d.db, p, id, 'read_only');
    return this.one(this.d.db, id);
  }

  async create(p: Principal, b: CreateFirewall): Promise<ApiFirewall> {
    authz.requireGlobal(p, 'add_firewalls');
    const fe = new FieldErrors();
    const lp = firewallLabelProblem(b.label);
    if (lp) fe.add('label', lp);
    const rules = checkRules(fe, 'rules', b.rules);
    checkTags(fe, b.tags);
    const nbs = b.devices?.nodebalancers ?? [];
    if (nbs.length > 1)
      fe.add('devices.nodebalancers', 'A firewall can have at most one NodeBalancer');
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      await this.assertLabelFree(tx, p, b.label);
      await checkRulesetRefs(tx, p.accountId, 'rules', rules);
      const wanted: DeviceEntity[] = [];
      const seen = new Set<string>();
      for (const [type, ids] of [
        ['compute', b.devices?.computes ?? []],
        ['nodebalancer', nbs],
      ] as const) {
        for (const id of ids) {
          if (seen.has(`${type}:${id}`)) continue;
          seen.add(`${type}:${id}`);
          const field = type === 'compute' ? 'devices.computes' : 'devices.nodebalancers';
          const dev = await this.devices.resolve(tx, p, type, id, field);
          await this.devices.assertNoOtherEnabled(tx, 0, dev);
          wanted.push(dev);
        }
      }
      const now = this.now();
      const { id } = await tx.db
        .insertInto('firewalls')
        .values({
          account_id: p.accountId,
          label: b.label,
          status: 'enabled',
          inbound_policy: b.rules.inbound_policy,
          outbound_policy: b.rules.outbound_policy,
          rules: JSON.stringify(rules),
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await authz.grantCreator(tx, p, 'firewall', id);
      await recordRuleVersion(tx, { id, account_id: p.accountId, status: 'enabled' }, 1, {
        rules,
        inbound_policy: b.rules.inbound_policy,
        outbound_policy: b.rules.outbound_policy,
        created: now,
      });
      if (b.tags) await setTags(tx, p.accountId, 'firewall', id, b.tags);
      const ref = firewallRef(id, b.label);
      await this.record(tx, p, 'firewall_create', ref);
      for (const dev of wanted) await this.insertDevice(tx, p, id, dev, ref);
      return this.one(tx, id);
    });
  }

  private async insertDevice(
    tx: Database,
    p: Principal,
    firewallId: number,
    dev: DeviceEntity,
    ref: EntityRef,
  ): Promise<number> {
    const now = this.now();
    const { id } = await tx.db
      .insertInto('firewall_devices')
      .values({
        firewall_id: firewallId,
        account_id: p.accountId,
        entity_type: dev.type,
        entity_id: dev.id,
        created: now,
        updated: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.record(tx, p, 'firewall_device_add', ref, deviceRef(dev));
    return id;
  }

  async update(p: Principal, id: number, b: UpdateFirewall): Promise<ApiFirewall> {
    const fe = new FieldErrors();
    if (b.label !== undefined) {
      const lp = firewallLabelProblem(b.label);
      if (lp) fe.add('label', lp);
    }
    checkTags(fe, b.tags);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      const row = await this.load(tx, p, id, 'read_write', true);
      if (b.label !== undefined && b.label !== row.label)
        await this.assertLabelFree(tx, p, b.label, id);
      const label = b.label ?? row.label;
      const status = (b.status as FirewallRow['status'] | undefined) ?? row.status;
      if (status !== row.status) {
        const devices = await devicesOf(tx, id);
        if (status === 'disabled') await this.devices.assertNoMigration(tx, devices);
        else {
          const entities = await this.devices.entitiesOf(tx, p.accountId, devices);
          for (const dev of entities.values()) await this.devices.assertNoOtherEnabled(tx, id, dev);
        }
      }
      await tx.db
        .updateTable('firewalls')
        .set({ label, status, updated: this.now() })
        .where('id', '=', id)
        .execute();
      if (b.tags !== undefined) await setTags(tx, p.accountId, 'firewall', id, b.tags);
      const ref = firewallRef(id, label);
      if (b.label !== undefined || b.tags !== undefined)
        await this.record(tx, p, 'firewall_update', ref);
      if (status !== row.status)
        await this.record(
          tx,
          p,
          status === 'enabled' ? 'firewall_enable' : 'firewall_disable',
          ref,
        );
      return this.one(tx, id);
    });
  }

  /** Delete: its rules leave every service it covered (its devices go with it). */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      const row = await this.load(tx, p, id, 'read_write', true);
      const kinds = await defaultKindsOf(tx, p.accountId, id);
      if (kinds.length > 0)
        throw errors.reason(
          `This firewall is a default firewall (${kinds.join(', ')}); choose another default in the firewall settings first`,
        );
      await this.devices.assertNoMigration(tx, await devicesOf(tx, id));
      await tx.db.deleteFrom('firewall_rule_versions').where('firewall_id', '=', id).execute();
      await tx.db.deleteFrom('firewall_devices').where('firewall_id', '=', id).execute();
      await dropTags(tx, 'firewall', id);
      await authz.dropEntity(tx, 'firewall', id);
      await tx.db.deleteFrom('firewalls').where('id', '=', id).execute();
      await this.record(tx, p, 'firewall_delete', firewallRef(id, row.label));
    });
  }

  async rules(p: Principal, id: number) {
    return (await this.get(p, id)).rules;
  }

  /**
   * `GET …/rules/expansion`: the rules with each rule set named replaced by its current rules
   * (what the firewall applies); version and fingerprint are the rules'.
   */
  async rulesExpansion(p: Principal, id: number) {
    const { db } = this.d;
    const row = await this.load(db, p, id, 'read_only');
    const view = (await this.one(db, id)).rules;
    return { ...view, ...(await expandRules(db, p.accountId, rulesOf(row))) };
  }

  /** Replaces both rule sets entirely (an omitted one becomes empty); policies kept if omitted. */
  async replaceRules(p: Principal, id: number, b: UpdateRules) {
    const fe = new FieldErrors();
    const rules = checkRules(fe, '', b);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      // The account's lock: a rule set named here cannot be deleted meanwhile.
      await lockAccountFirewalls(tx, p.accountId);
      const row = await this.load(tx, p, id, 'read_write', true);
      await checkRulesetRefs(tx, p.accountId, '', rules);
      const now = this.now();
      const inbound_policy = b.inbound_policy ?? row.inbound_policy;
      const outbound_policy = b.outbound_policy ?? row.outbound_policy;
      // The same rules and policies again are no new version (the Python SDK's suite, run
      // against the real service, puts the same rules twice and counts two versions).
      const same =
        rulesFingerprint(rules, inbound_policy, outbound_policy) ===
        rulesFingerprint(rulesOf(row), row.inbound_policy, row.outbound_policy);
      const version = (row.rules_version ?? 1) + (same ? 0 : 1);
      await tx.db
        .updateTable('firewalls')
        .set({
          rules: JSON.stringify(rules),
          inbound_policy,
          outbound_policy,
          rules_version: version,
          updated: now,
        })
        .where('id', '=', id)
        .execute();
      // Every change of the rules is kept as a version (`/history`).
      if (!same)
        await recordRuleVersion(tx, row, version, {
          rules,
          inbound_policy,
          outbound_policy,
          created: now,
        });
      await this.record(tx, p, 'firewall_rules_update', firewallRef(id, row.label));
      return (await this.one(tx, id)).rules;
    });
  }

  // ---- the rules history ----

  /** `GET …/history`: every version of the rules, oldest first (the firewall's status then). */
  async history(p: Principal, id: number, params: PageParams): Promise<Page<ApiRuleVersionEntry>> {
    const { db } = this.d;
    await this.load(db, p, id, 'read_only');
    return paginate(
      db.db
        .selectFrom('firewall_rule_versions')
        .where('firewall_rule_versions.firewall_id', '=', id),
      (qb) => qb.selectAll('firewall_rule_versions'),
      compileFilter(undefined, {}, db.dialect),
      params,
      { idColumn: 'firewall_rule_versions.id' },
      (r: RuleVersionRow) => ({
        updated: r.created,
        status: r.status,
        rules: { version: r.version },
      }),
    );
  }

  /** `GET …/history/rules/{version}`: the rules as they were at that version. */
  async ruleVersion(p: Principal, id: number, version: number): Promise<ApiFirewallRules> {
    const { db } = this.d;
    await this.load(db, p, id, 'read_only');
    const row = await db.db
      .selectFrom('firewall_rule_versions')
      .selectAll()
      .where('firewall_id', '=', id)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return ruleVersionView(row);
  }

  // ---- settings: the account's default firewalls ----

  async settings(p: Principal): Promise<ApiFirewallSettings> {
    authz.requireAccountAccess(p, 'read_only');
    return { default_firewall_ids: await readDefaults(this.d.db, p.accountId) };
  }

  /**
   * `PUT /networking/firewalls/settings`: the kinds named change (null: no default), the others
   * stay; each firewall named must be one of the account's.
   */
  async updateSettings(p: Principal, b: UpdateFirewallSettings): Promise<ApiFirewallSettings> {
    authz.requireAccountAccess(p, 'read_write');
    const wanted = b.default_firewall_ids ?? {};
    return this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      const fe = new FieldErrors();
      for (const kind of DEFAULT_KINDS) {
        const fwId = wanted[kind];
        if (fwId === undefined || fwId === null) continue;
        if (!(await findFirewall(tx, p.accountId, fwId)))
          fe.add(`default_firewall_ids.${kind}`, 'Firewall not found');
      }
      fe.throwIfAny();
      const current = await readDefaults(tx, p.accountId);
      const next = { ...current };
      for (const kind of DEFAULT_KINDS) {
        const fwId = wanted[kind];
        if (fwId !== undefined) next[kind] = fwId;
      }
      await writeDefaults(tx, p.accountId, next, this.now());
      return { default_firewall_ids: next };
    });
  }

  /**
   * The account's default firewall of a kind, assigned to a new device whose create named no
   * firewall (instance and NodeBalancer create, in their transaction). The setting is the
   * account's: the creating user needs no grant on the firewall. `public_interface` and
   * `vpc_interface` are for new-generation interfaces (their area assigns them with this method's
   * sibling `defaultFirewallId`).
   */
  async assignDefaultOnCreate(
    tx: Database,
    p: Principal,
    entityId: number,
    type: 'compute' | 'nodebalancer',
  ): Promise<number | null> {
    const fwId = await this.defaultFirewallId(tx, p.accountId, type);
    if (fwId === null) return null;
    await lockAccountFirewalls(tx, p.accountId);
    const row = await findFirewall(tx, p.accountId, fwId, true);
    if (!row) return null;
    await this.attach(tx, p, row, type, entityId, 'firewall_id');
    return fwId;
  }

  /** The account's default firewall id of a kind, or null. */
  async defaultFirewallId(
    tx: Database,
    accountId: number,
    kind: DefaultKind,
  ): Promise<number | null> {
    return (await readDefaults(tx, accountId))[kind];
  }

  // ---- templates ----

  /** `GET /networking/firewalls/templates`: the shipped templates, in one page. */
  async templates(params: PageParams): Promise<Page<ApiFirewallTemplate>> {
    return pageOf(
      params,
      async (limit, offset) => FIREWALL_TEMPLATES.slice(offset, offset + limit),
      async () => FIREWALL_TEMPLATES.length,
    );
  }

  template(slug: string): ApiFirewallTemplate {
    const t = FIREWALL_TEMPLATES.find((x) => x.slug === slug);
    if (!t) throw errors.notFound();
    return t;
  }

  // ---- devices ----

  private async deviceShapes(db: Database, p: Principal, rows: DeviceRow[]) {
    const entities = await this.devices.entitiesOf(db, p.accountId, rows);
    return rows.map(
      (r): ApiFirewallDevice => ({
        id: r.id,
        created: r.created,
        updated: r.updated,
        entity: {
          ...(entities.get(r.id) as DeviceEntity),
          parent_entity: entities.get(r.id)?.parent_entity ?? null,
        },
      }),
    );
  }

  async listDevices(
    p: Principal,
    id: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiFirewallDevice>> {
    const { db } = this.d;
    await this.load(db, p, id, 'read_only');
    const page = await paginate(
      db.db.selectFrom('firewall_devices').where('firewall_devices.firewall_id', '=', id),
      (qb) => qb.selectAll('firewall_devices'),
      compileFilter(xf, DEVICE_FILTERS, db.dialect),
      params,
      { idColumn: 'firewall_devices.id' },
      (r: DeviceRow) => r,
    );
    return { ...page, data: await this.deviceShapes(db, p, page.data) };
  }

  private async loadDevice(db: Database, firewallId: number, deviceId: number) {
    const row = await db.db
      .selectFrom('firewall_devices')
      .selectAll()
      .where('firewall_id', '=', firewallId)
      .where('id', '=', deviceId)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async getDevice(p: Principal, id: number, deviceId: number): Promise<ApiFirewallDevice> {
    const { db } = this.d;
    await this.load(db, p, id, 'read_only');
    const [shape] = await this.deviceShapes(db, p, [await this.loadDevice(db, id, deviceId)]);
    return shape as ApiFirewallDevice;
  }

  async addDevice(
    p: Principal,
    id: number,
    b: { id: number; type: string },
  ): Promise<ApiFirewallDevice> {
    return this.d.db.transaction(async (tx) => {
      await lockAccountFirewalls(tx, p.accountId);
      const row = await this.load(tx, p, id, 'read_write', true);
      return this.attach(tx, p, row, b.type, b.id, 'id');
    });
  }

  /** Adds a device to a locked firewall: every assignment rule. */
  private async attach(
    tx: Database,
    p: Principal,
    row: FirewallRow,
    type: string,
    entityId: number,
    field: string,
  ): Promise<ApiFirewallDevice> {
    const dev = await this.devices.resolve(tx, p, type, entityId, field);
    const existing = await devicesOf(tx, row.id);
    if (existing.some((d) => d.entity_type === type && d.entity_id === entityId))
      throw errors.invalidField(field, 'This device is already assigned to the firewall');
    if (type === 'nodebalancer' && existing.some((d) => d.entity_type === 'nodebalancer'))
      throw errors.invalidField(field, 'A firewall can have at most one NodeBalancer');
    if (row.status === 'enabled') await this.devices.assertNoOtherEnabled(tx, row.id, dev);
    const deviceId = await this.insertDevice(tx, p, row.id, dev, firewallRef(row.id, row.label));
    const [shape] = await this.deviceShapes(tx, p, [await this.loadDevice(tx, row.id, deviceId)]);
    return shape as ApiFirewallDevice;
  }

  /**
   * Instance or NodeBalancer create with `firewall_id`: the firewall is checked, then assigned in
   * the create's transaction.
   */
  async assignOnCreate(
    tx: Database,
    p: Principal,
    firewallId: number,
    entityId: number,
    type: 'compute' | 'nodebalancer' = 'compute',
  ): Promise<void> {
    await lockAccountFirewalls(tx, p.accountId);
    const row = await findFirewall(tx, p.accountId, firewallId, true);
    const perm = row ? await authz.permissionOn(tx, p, 'firewall', firewallId) : null;
    if (!row || perm === null) throw errors.invalidField('firewall_id', 'Firewall not found');
    if (perm !== 'read_write') throw errors.unauthorized();
    await this.attach(tx, p, row, type, entityId, 'firewall_id');
  }

  async removeDevice(p: Principal, id: number, deviceId: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      const dev = await this.loadDevice(tx, id, deviceId);
      const [shape] = await this.deviceShapes(tx, p, [dev]);
      await tx.db.deleteFrom('firewall_devices').where('id', '=', deviceId).execute();
      await this.record(
        tx,
        p,
        'firewall_device_remove',
        firewallRef(id, row.label),
        deviceRef((shape as ApiFirewallDevice).entity),
      );
    });
  }

  // ---- the evaluator ----

  /** What the firewall does with one packet: the first matching rule, else the policy. */
  async evaluate(p: Principal, id: number, b: Evaluate) {
    const { db } = this.d;
    const row = await this.load(db, p, id, 'read_only');
    const fe = new FieldErrors();
    if (Number.isNaN(ipv4ToNum(b.address)) && !parseIpv6(b.address))
      fe.add('address', 'address must be an IPv4 or IPv6 address');
    if (b.port !== undefined && (b.protocol === 'ICMP' || b.protocol === 'IPENCAP'))
      fe.add('port', `${b.protocol} has no ports`);
    fe.throwIfAny();
    const policy = (b.direction === 'inbound' ? row.inbound_policy : row.outbound_policy) as Policy;
    if (row.status !== 'enabled') {
      return {
        action: 'ACCEPT',
        decided_by: 'disabled',
        rule_index: null,
        rule: null,
        firewall_status: row.status,
      };
    }
    const v = evaluate(await expandRules(db, p.accountId, rulesOf(row)), policy, {
      direction: b.direction as 'inbound' | 'outbound',
      protocol: b.protocol as 'TCP',
      ...(b.port !== undefined ? { port: b.port } : {}),
      address: b.address,
    });
    return { ...v, decided_by: v.rule ? 'rule' : 'policy', firewall_status: row.status };
  }
}
