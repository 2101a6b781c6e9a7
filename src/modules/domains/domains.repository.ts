import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import { tagsFilter, tagsOf } from '../tags/tags.repository.js';
import { newZoneVersion, nextSerial } from './domains.rules.js';
import type { ApiDomain, ApiRecord } from './domains.schemas.js';
import type { DomainRecordsTable, DomainsTable } from './domains.table.js';

export type DomainRow = Omit<DomainsTable, 'id'> & { id: number };
export type RecordRow = Omit<DomainRecordsTable, 'id'> & { id: number };

/** Filterable fields of Domain (reference: domain, group, tags). */
export const DOMAIN_FILTERS: FilterSpec = {
  domain: { kind: 'string', column: 'domains.domain' },
  group: { kind: 'string', column: 'domains.display_group' },
  tags: tagsFilter('domain', 'domains.id'),
  type: { kind: 'string', column: 'domains.type' },
  status: { kind: 'string', column: 'domains.status' },
};

/** Filterable fields of DomainRecord (reference: type, name, target, tag). */
export const RECORD_FILTERS: FilterSpec = {
  type: { kind: 'string', column: 'domain_records.type' },
  name: { kind: 'string', column: 'domain_records.name' },
  target: { kind: 'string', column: 'domain_records.target' },
  tag: { kind: 'string', column: 'domain_records.tag' },
};

/** A domain of the account, optionally row-locked until the transaction ends (PostgreSQL). */
export async function findDomain(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<DomainRow | undefined> {
  const q = db.db
    .selectFrom('domains')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** Whether a zone of that name exists in any account (names are unique across accounts). */
export async function domainTaken(db: Database, key: string, except?: number): Promise<boolean> {
  let q = db.db.selectFrom('domains').select('id').where('domain_key', '=', key);
  if (except !== undefined) q = q.where('id', '<>', except);
  return (await q.executeTakeFirst()) !== undefined;
}

/** The API shape of domains, with their tags and (slave zones) the last transfer's error. */
export async function toApiDomains(db: Database, rows: readonly DomainRow[]): Promise<ApiDomain[]> {
  const ids = rows.map((r) => r.id);
  const slaves = rows.filter((r) => r.type === 'slave').map((r) => r.id);
  const [tags, copies] = await Promise.all([
    tagsOf(db, 'domain', ids),
    slaves.length === 0
      ? Promise.resolve([] as { domain_id: number; error: string }[])
      : db.db
          .selectFrom('domain_slave_zones')
          .select(['domain_id', 'error'])
          .where('domain_id', 'in', slaves)
          .execute(),
  ]);
  const errorOf = new Map(copies.map((c) => [c.domain_id, c.error]));
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    domain: r.domain,
    group: r.display_group,
    status: r.status,
    description: r.description,
    soa_email: r.soa_email,
    retry_sec: r.retry_sec,
    master_ips: parseJson<string[]>(r.master_ips, []),
    axfr_ips: parseJson<string[]>(r.axfr_ips, []),
    expire_sec: r.expire_sec,
    refresh_sec: r.refresh_sec,
    ttl_sec: r.ttl_sec,
    tags: tags.get(r.id) ?? [],
    created: r.created,
    updated: r.updated,
    errors: r.type === 'slave' ? (errorOf.get(r.id) ?? '') : '',
  }));
}

export function toApiRecord(r: RecordRow): ApiRecord {
  return {
    id: r.id,
    type: r.type,
    name: r.name,
    target: r.target,
    priority: r.priority,
    weight: r.weight,
    port: r.port,
    service: r.service,
    protocol: r.protocol,
    ttl_sec: r.ttl_sec,
    tag: r.tag,
    created: r.created,
    updated: r.updated,
  };
}

/**
 * Records that the zone changed, in the change's transaction: the SOA serial moves forward (so
 * slaves transfer it again) and a new version tells every DNS server process to reload it.
 */
export async function zoneChanged(db: Database, domainId: number, nowMs: number): Promise<void> {
  const row = await db.db
    .selectFrom('domains')
    .select('serial')
    .where('id', '=', domainId)
    .executeTakeFirst();
  if (!row) return;
  await db.db
    .updateTable('domains')
    .set({
      serial: nextSerial(Number(row.serial), nowMs),
      version: newZoneVersion(),
    })
    .where('id', '=', domainId)
    .execute();
}

/** Id and label (the domain name) of every domain of an account, by id (grants views). */
export async function domainLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  const rows = await db.db
    .selectFrom('domains')
    .select(['id', 'domain'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, label: r.domain }));
}

/** How many records a domain holds. */
export async function countRecords(db: Database, domainId: number): Promise<number> {
  const row = await db.db
    .selectFrom('domain_records')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
