import { errors } from '../../errors/errors.js';
import type { RecordType } from './domains.table.js';
import { roundSeconds } from './domains.rules.js';
import { MAX_RECORDS, type RecordValues, relativeName } from './records.rules.js';
import type { ZoneRecord } from './zone.js';

/**
 * The records of a transferred zone as a domain's records: names relative to the zone, TTLs
 * rounded to valid values. The SOA and the apex NS records are left out (a domain's own are
 * generated), and so are names outside the zone.
 */
export function importedRecords(zone: readonly ZoneRecord[], apex: string): RecordValues[] {
  const key = apex.toLowerCase();
  const out: RecordValues[] = [];
  for (const r of zone) {
    const owner = r.name.toLowerCase();
    if (owner !== key && !owner.endsWith(`.${key}`)) continue;
    if (r.type === 'SOA' || (r.type === 'NS' && owner === key)) continue;
    const base: RecordValues = {
      type: r.type as RecordType,
      name: relativeName(r.name, key),
      target: '',
      priority: 0,
      weight: 0,
      port: 0,
      service: null,
      protocol: null,
      tag: null,
      ttl_sec: roundSeconds(r.ttl),
    };
    const d = r.data as never;
    switch (r.type) {
      case 'MX': {
        const m = r.data as { preference: number; exchange: string };
        const exchange = m.exchange.replace(/\.$/, '');
        out.push({ ...base, priority: m.preference, target: exchange === '' ? '' : exchange });
        break;
      }
      case 'SRV': {
        const s = r.data as { priority: number; weight: number; port: number; target: string };
        const labels = base.name.split('.');
        const service = labels[0]?.replace(/^_/, '') ?? '';
        const protocol = labels[1]?.replace(/^_/, '') ?? 'tcp';
        out.push({
          ...base,
          name: `_${service}._${protocol}`,
          service,
          protocol,
          priority: s.priority,
          weight: s.weight,
          port: s.port,
          target: s.target.replace(/\.$/, ''),
        });
        break;
      }
      case 'TXT':
        out.push({ ...base, target: (r.data as string[]).join('') });
        break;
      case 'CAA': {
        const c = r.data as { tag: string; value: string };
        out.push({ ...base, tag: c.tag, target: c.value });
        break;
      }
      default:
        out.push({ ...base, target: String(d).replace(/\.$/, '') });
    }
  }
  if (out.length > MAX_RECORDS)
    throw errors.invalidField('domain', `The zone has more than ${MAX_RECORDS} records`);
  return out;
}
