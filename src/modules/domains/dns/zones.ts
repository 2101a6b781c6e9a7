import type { Database } from '../../../db/database.js';
import { parseJson } from '../../../db/database.js';
import { masterZoneRecords, type ZoneRecord } from '../zone.js';
import { Zone } from './answer.js';

/** What the DNS server knows of the zone a name falls in. */
export interface ServedZone {
  id: number;
  key: string;
  type: 'master' | 'slave';
  axfrIps: string[];
  masterIps: string[];
  /** Undefined for a slave zone not transferred yet (answered SERVFAIL). */
  zone: Zone | undefined;
}

interface Cached {
  version: number;
  zone: Zone | undefined;
}

/** Every suffix of a name that could be a zone: `a.b.example.com` → itself, `b.example.com`, … */
function candidates(name: string): string[] {
  const labels = name.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/**
 * The zones the DNS server answers for, read from the database for every question: the active
 * zone with the longest name that the question's name falls in, whatever its account. A zone's
 * records are kept in memory while its `version` (one row, read with the lookup) is unchanged; a
 * change through the API draws a new version in its transaction, so the next question in any
 * process sees it.
 */
export class ZoneSource {
  private readonly cache = new Map<number, Cached>();

  constructor(
    private readonly db: Database,
    private readonly nameservers: readonly string[],
    private readonly maxZones = 512,
  ) {}

  async find(qname: string): Promise<ServedZone | undefined> {
    const name = qname.replace(/\.$/, '').toLowerCase();
    const keys = candidates(name);
    if (keys.length === 0) return undefined;
    const rows = await this.db.db
      .selectFrom('domains')
      .select(['id', 'domain_key', 'type', 'version', 'axfr_ips', 'master_ips'])
      .where('domain_key', 'in', keys)
      .where('status', '=', 'active')
      .execute();
    if (rows.length === 0) return undefined;
    const row = rows.reduce((a, b) => (b.domain_key.length > a.domain_key.length ? b : a));
    const version = Number(row.version);
    let cached = this.cache.get(row.id);
    if (cached?.version !== version) {
      cached = { version, zone: await this.load(row.id, row.type) };
      this.remember(row.id, cached);
    } else {
      // Recently used: keep it at the end of the eviction order.
      this.cache.delete(row.id);
      this.cache.set(row.id, cached);
    }
    return {
      id: row.id,
      key: row.domain_key,
      type: row.type,
      axfrIps: parseJson<string[]>(row.axfr_ips, []),
      masterIps: parseJson<string[]>(row.master_ips, []),
      zone: cached.zone,
    };
  }

  private remember(id: number, c: Cached): void {
    this.cache.delete(id);
    this.cache.set(id, c);
    while (this.cache.size > this.maxZones) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  /** A zone's records as they are now (master: built from its rows; slave: its copy). */
  private async load(id: number, type: 'master' | 'slave'): Promise<Zone | undefined> {
    const records = await zoneRecordsOf(this.db, id, type, this.nameservers);
    if (!records) return undefined;
    const soa = records[0];
    return soa ? new Zone(soa.name, records) : undefined;
  }
}

/**
 * The records a zone serves, SOA first: a master's built from its domain and records, a slave's
 * transferred copy (undefined before the first transfer or when the domain is gone).
 */
export async function zoneRecordsOf(
  db: Database,
  id: number,
  type: 'master' | 'slave',
  nameservers: readonly string[],
): Promise<ZoneRecord[] | undefined> {
  if (type === 'slave') {
    const copy = await db.db
      .selectFrom('domain_slave_zones')
      .select('records')
      .where('domain_id', '=', id)
      .executeTakeFirst();
    return copy?.records ? parseJson<ZoneRecord[]>(copy.records, []) : undefined;
  }
  const d = await db.db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirst();
  if (!d) return undefined;
  const records = await db.db
    .selectFrom('domain_records')
    .selectAll()
    .where('domain_id', '=', id)
    .orderBy('id')
    .execute();
  return masterZoneRecords(d, records, nameservers);
}
