import { authz, type Permission } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { DnsConfig } from '../../config/dns-config.js';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { dropTags, setTags } from '../tags/tags.repository.js';
import { axfr, addressesOf, TransferError, TransferPolicy } from './dns/transfer.js';
import { zoneRecordsOf } from './dns/zones.js';
import { scheduleRefresh, unscheduleRefresh } from './domains.jobs.js';
import {
  DOMAIN_FILTERS,
  type DomainRow,
  domainTaken,
  findDomain,
  toApiDomains,
  zoneChanged,
} from './domains.repository.js';
import {
  domainKey,
  domainProblem,
  IP_LIST_MAX_CHARS,
  isEmail,
  isIp,
  newZoneVersion,
  nextSerial,
  rnameEmail,
  roundSeconds,
} from './domains.rules.js';
import type { ApiDomain, CreateDomain, ImportDomain, UpdateDomain } from './domains.schemas.js';
import type { DomainStatus, DomainType } from './domains.table.js';
import { importedRecords } from './records.import.js';
import { effectiveTimers, type SoaData } from './zone.js';
import { zoneFileLines } from './zone-file.js';

type XFilter = string | string[] | undefined;

export interface DomainDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  dns: DnsConfig;
}

/** A domain's event reference: `domain`, labelled with the zone's name. */
export const domainRef = (id: number, domain: string): EntityRef => ({
  type: 'domain',
  id,
  label: domain,
  url: `/v4/domains/${id}`,
});

/** The stored form of a domain's settings after the rules (what create and update write). */
interface Settings {
  domain: string;
  type: DomainType;
  status: DomainStatus;
  description: string;
  display_group: string;
  soa_email: string;
  refresh_sec: number;
  retry_sec: number;
  expire_sec: number;
  ttl_sec: number;
  master_ips: string[];
  axfr_ips: string[];
}

type SettingsInput = Omit<UpdateDomain, 'tags'>;

/**
 * The rules of a domain's settings (reference, Domain): the name's form, `soa_email` for master
 * zones, at least one of `master_ips` for slave zones, valid addresses within 1000 characters,
 * timers rounded up to valid values. `base` is the stored domain (update) or the defaults.
 */
function settingsOf(base: Settings, b: SettingsInput): Settings {
  const fe = new FieldErrors();
  const s: Settings = {
    domain: b.domain?.trim().replace(/\.$/, '') ?? base.domain,
    type: (b.type as DomainType | null | undefined) ?? base.type,
    status: (b.status as DomainStatus | null | undefined) ?? base.status,
    description: b.description ?? base.description,
    display_group: b.group ?? base.display_group,
    soa_email: b.soa_email ?? base.soa_email,
    refresh_sec: b.refresh_sec == null ? base.refresh_sec : roundSeconds(b.refresh_sec),
    retry_sec: b.retry_sec == null ? base.retry_sec : roundSeconds(b.retry_sec),
    expire_sec: b.expire_sec == null ? base.expire_sec : roundSeconds(b.expire_sec),
    ttl_sec: b.ttl_sec == null ? base.ttl_sec : roundSeconds(b.ttl_sec),
    master_ips: b.master_ips ?? base.master_ips,
    axfr_ips: b.axfr_ips ?? base.axfr_ips,
  };
  const problem = domainProblem(s.domain);
  if (problem) fe.add('domain', problem);
  if (s.soa_email !== '' && !isEmail(s.soa_email)) fe.add('soa_email', 'SOA Email is not valid.');
  else if (s.type === 'master' && s.soa_email === '')
    fe.add('soa_email', 'soa_email is required for master domains');
  for (const field of ['master_ips', 'axfr_ips'] as const) {
    s[field].forEach((ip, i) => {
      fe.check(!isIp(ip.trim()), `${field}.${i}`, `${ip} is not a valid IP address`);
    });
    s[field] = s[field].map((ip) => ip.trim());
    fe.check(
      s[field].join('').length > IP_LIST_MAX_CHARS,
      field,
      `The combined length of ${field} must be at most ${IP_LIST_MAX_CHARS} characters`,
    );
  }
  if (s.type === 'slave' && s.master_ips.length === 0)
    fe.add('master_ips', 'At least one master IP address is required for slave domains');
  fe.throwIfAny();
  return s;
}

const DEFAULTS: Settings = {
  domain: '',
  type: 'master',
  status: 'active',
  description: '',
  display_group: '',
  soa_email: '',
  refresh_sec: 0,
  retry_sec: 0,
  expire_sec: 0,
  ttl_sec: 0,
  master_ips: [],
  axfr_ips: [],
};

const settingsOfRow = (r: DomainRow): Settings => ({
  domain: r.domain,
  type: r.type,
  status: r.status,
  description: r.description,
  display_group: r.display_group,
  soa_email: r.soa_email,
  refresh_sec: r.refresh_sec,
  retry_sec: r.retry_sec,
  expire_sec: r.expire_sec,
  ttl_sec: r.ttl_sec,
  master_ips: parseJson<string[]>(r.master_ips, []),
  axfr_ips: parseJson<string[]>(r.axfr_ips, []),
});

const DOMAIN_TAKEN = 'A domain with this name already exists.';

/**
 * Domains (DNS zones): list, view, create, update, delete, clone, import from a remote name
 * server (AXFR), and the zone file. Every change moves the zone's serial and version in its
 * transaction, so the DNS server answers the new data at the next question.
 */
export class DomainsService {
  constructor(private readonly d: DomainDeps) {}

  private async one(db: Database, id: number): Promise<ApiDomain> {
    const row = await db.db
      .selectFrom('domains')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const [api] = await toApiDomains(db, [row]);
    return api as ApiDomain;
  }

  /** A domain the caller may see (404 otherwise), checked for the given permission. */
  async load(db: Database, p: Principal, id: number, level: Permission, lock = false) {
    const row = await findDomain(db, p.accountId, id, lock);
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'domain', id, level);
    return row;
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiDomain>> {
    const { db } = this.d;
    let base = db.db.selectFrom('domains').where('domains.account_id', '=', p.accountId);
    const vis = authz.visible(p, 'domain', 'domains.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('domains'),
      compileFilter(xf, DOMAIN_FILTERS, db.dialect),
      params,
      { idColumn: 'domains.id' },
      (r: DomainRow) => r,
    );
    return { ...page, data: await toApiDomains(db, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiDomain> {
    await this.load(this.d.db, p, id, 'read_only');
    return this.one(this.d.db, id);
  }

  /** Inserts a domain (name checked free first, and by the unique index at commit). */
  private async insert(tx: Database, p: Principal, s: Settings): Promise<number> {
    if (await domainTaken(tx, domainKey(s.domain)))
      throw errors.invalidField('domain', DOMAIN_TAKEN);
    const nowMs = this.d.clock.nowMs();
    const now = isoSeconds(nowMs);
    const { id } = await tx.db
      .insertInto('domains')
      .values({
        account_id: p.accountId,
        ...s,
        domain_key: domainKey(s.domain),
        master_ips: JSON.stringify(s.master_ips),
        axfr_ips: JSON.stringify(s.axfr_ips),
        serial: nextSerial(0, nowMs),
        version: newZoneVersion(),
        created: now,
        updated: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await authz.grantCreator(tx, p, 'domain', id);
    if (s.type === 'slave') await scheduleRefresh(tx, this.d.queue, id, p.accountId, nowMs);
    return id;
  }

  /** Runs a write; a name taken by a concurrent create answers like a taken name. */
  private async write<T>(fn: (tx: Database) => Promise<T>): Promise<T> {
    try {
      return await this.d.db.transaction(fn);
    } catch (err) {
      if (isUniqueViolation(err)) throw errors.invalidField('domain', DOMAIN_TAKEN);
      throw err;
    }
  }

  async create(p: Principal, b: CreateDomain): Promise<ApiDomain> {
    authz.requireGlobal(p, 'add_domains');
    const s = settingsOf(DEFAULTS, b);
    return this.write(async (tx) => {
      const id = await this.insert(tx, p, s);
      if (b.tags) await setTags(tx, p.accountId, 'domain', id, b.tags);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_zone_create',
        entity: domainRef(id, s.domain),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, id);
    });
  }

  async update(p: Principal, id: number, b: UpdateDomain): Promise<ApiDomain> {
    return this.write(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      const s = settingsOf(settingsOfRow(row), b);
      if (
        domainKey(s.domain) !== row.domain_key &&
        (await domainTaken(tx, domainKey(s.domain), id))
      )
        throw errors.invalidField('domain', DOMAIN_TAKEN);
      const nowMs = this.d.clock.nowMs();
      await tx.db
        .updateTable('domains')
        .set({
          ...s,
          domain_key: domainKey(s.domain),
          master_ips: JSON.stringify(s.master_ips),
          axfr_ips: JSON.stringify(s.axfr_ips),
          updated: isoSeconds(nowMs),
        })
        .where('id', '=', id)
        .execute();
      if (b.tags != null) await setTags(tx, p.accountId, 'domain', id, b.tags);
      await zoneChanged(tx, id, nowMs);
      const retransfer =
        s.type === 'slave' &&
        (row.type !== 'slave' ||
          row.domain_key !== domainKey(s.domain) ||
          row.master_ips !== JSON.stringify(s.master_ips));
      if (s.type === 'master') {
        await unscheduleRefresh(tx, id);
        await tx.db.deleteFrom('domain_slave_zones').where('domain_id', '=', id).execute();
      } else if (retransfer) {
        // Another zone or other masters: the old copy no longer stands.
        await tx.db.deleteFrom('domain_slave_zones').where('domain_id', '=', id).execute();
        await scheduleRefresh(tx, this.d.queue, id, p.accountId, nowMs);
      }
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_zone_update',
        entity: domainRef(id, s.domain),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, id);
    });
  }

  /** Delete: the domain and all its records; it stops being served at once. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      await unscheduleRefresh(tx, id);
      await dropTags(tx, 'domain', id);
      await authz.dropEntity(tx, 'domain', id);
      await tx.db.deleteFrom('domain_slave_zones').where('domain_id', '=', id).execute();
      await tx.db.deleteFrom('domain_records').where('domain_id', '=', id).execute();
      await tx.db.deleteFrom('domains').where('id', '=', id).execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_zone_delete',
        entity: domainRef(id, row.domain),
        status: 'notification',
        username: p.username,
      });
    });
  }

  /** Clone: a new domain with the source's settings and a copy of every record. */
  async clone(p: Principal, id: number, domain: string): Promise<ApiDomain> {
    authz.requireGlobal(p, 'add_domains');
    return this.write(async (tx) => {
      const src = await this.load(tx, p, id, 'read_only', true);
      const s = settingsOf(settingsOfRow(src), { domain });
      const newId = await this.insert(tx, p, s);
      const records = await tx.db
        .selectFrom('domain_records')
        .selectAll()
        .where('domain_id', '=', id)
        .orderBy('id')
        .execute();
      if (records.length > 0) {
        const now = isoSeconds(this.d.clock.nowMs());
        await tx.db
          .insertInto('domain_records')
          .values(
            records.map(({ id: _id, domain_id: _d, ...r }) => ({
              ...r,
              domain_id: newId,
              created: now,
              updated: now,
            })),
          )
          .execute();
      }
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_zone_create',
        entity: domainRef(newId, s.domain),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, newId);
    });
  }

  /**
   * Import: transfers the zone (AXFR) from the remote name server before any transaction, then
   * creates a master domain with its SOA's contact and timers and its records of the served
   * types. A server that refuses, cannot be reached or sends no zone is a 400 naming
   * `remote_nameserver`.
   */
  async import(p: Principal, b: ImportDomain): Promise<ApiDomain> {
    authz.requireGlobal(p, 'add_domains');
    const name = b.domain.trim().replace(/\.$/, '');
    const problem = domainProblem(name);
    if (problem) throw errors.invalidField('domain', problem);
    const server = b.remote_nameserver.trim().replace(/\.$/, '');
    if (!isIp(server) && !/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(server))
      throw errors.invalidField(
        'remote_nameserver',
        'remote_nameserver must be a host name or an IP address',
      );
    if (await domainTaken(this.d.db, domainKey(name)))
      throw errors.invalidField('domain', DOMAIN_TAKEN);
    const policy = new TransferPolicy(this.d.dns.transferPort, this.d.dns.transferNetworks);
    let zone: Awaited<ReturnType<typeof axfr>> | undefined;
    const problems: string[] = [];
    try {
      for (const ip of await addressesOf(server)) {
        try {
          zone = await axfr(policy, ip, name);
          break;
        } catch (err) {
          problems.push(err instanceof Error ? err.message : String(err));
        }
      }
    } catch (err) {
      if (!(err instanceof TransferError)) throw err;
      problems.push(err.message);
    }
    const soa = zone?.[0];
    if (!zone || soa?.type !== 'SOA')
      throw errors.invalidField(
        'remote_nameserver',
        `The zone could not be transferred from ${server}: ${problems.join('; ') || 'no SOA'}`,
      );
    const sd = soa.data as SoaData;
    const s = settingsOf(DEFAULTS, {
      domain: name,
      type: 'master',
      soa_email: rnameEmail(sd.rname),
      refresh_sec: sd.refresh,
      retry_sec: sd.retry,
      expire_sec: sd.expire,
      ttl_sec: sd.minimum,
    });
    const records = importedRecords(zone, name);
    return this.write(async (tx) => {
      const id = await this.insert(tx, p, s);
      const now = isoSeconds(this.d.clock.nowMs());
      for (let i = 0; i < records.length; i += 500) {
        await tx.db
          .insertInto('domain_records')
          .values(
            records
              .slice(i, i + 500)
              .map((r) => ({ ...r, domain_id: id, created: now, updated: now })),
          )
          .execute();
      }
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_zone_import',
        entity: domainRef(id, s.domain),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, id);
    });
  }

  /** The zone file of what the zone serves now (a slave zone: its transferred copy). */
  async zoneFile(p: Principal, id: number): Promise<{ zone_file: string[] }> {
    const row = await this.load(this.d.db, p, id, 'read_only');
    const records = await zoneRecordsOf(this.d.db, id, row.type, this.d.dns.nameservers);
    if (!records) return { zone_file: [] };
    return { zone_file: zoneFileLines(row.domain, id, effectiveTimers(row).ttl, records) };
  }

  /** A NOTIFY from a slave zone's master: check the masters now. */
  async refreshNow(id: number): Promise<void> {
    const row = await this.d.db.db
      .selectFrom('domains')
      .select(['account_id', 'type'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (row?.type !== 'slave') return;
    await this.d.db.transaction((tx) =>
      scheduleRefresh(tx, this.d.queue, id, row.account_id, this.d.clock.nowMs()),
    );
  }
}
