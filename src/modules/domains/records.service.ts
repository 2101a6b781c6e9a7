import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  countRecords,
  type DomainRow,
  RECORD_FILTERS,
  type RecordRow,
  toApiRecord,
  zoneChanged,
} from './domains.repository.js';
import type { ApiRecord, CreateRecord, UpdateRecord } from './domains.schemas.js';
import { type DomainsService, domainRef } from './domains.service.js';
import type { RecordType } from './domains.table.js';
import { MAX_RECORDS, type RecordValues, recordValues } from './records.rules.js';

type XFilter = string | string[] | undefined;

export interface RecordDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  domains: DomainsService;
}

const CNAME_CONFLICT = 'Record conflict - CNAMES must be unique';
const SLAVE_RECORDS =
  'Zones must be set to the master type to update resource records using the API.';

/**
 * The records of a domain: list, view, create, update, delete, with the per-type rules
 * (records.rules.ts), the zone-wide ones (a CNAME's name holds nothing else; a Null MX stands
 * alone; at most 12,000 records), and a new zone version in each change's transaction.
 */
export class RecordsService {
  constructor(private readonly d: RecordDeps) {}

  private async record(db: Database, domainId: number, id: number): Promise<RecordRow> {
    const row = await db.db
      .selectFrom('domain_records')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', domainId)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async list(
    p: Principal,
    domainId: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiRecord>> {
    const { db } = this.d;
    await this.d.domains.load(db, p, domainId, 'read_only');
    const base = db.db
      .selectFrom('domain_records')
      .where('domain_records.domain_id', '=', domainId);
    return paginate(
      base,
      (qb) => qb.selectAll('domain_records'),
      compileFilter(xf, RECORD_FILTERS, db.dialect),
      params,
      { idColumn: 'domain_records.id' },
      (r: RecordRow) => toApiRecord(r),
    );
  }

  async get(p: Principal, domainId: number, id: number): Promise<ApiRecord> {
    await this.d.domains.load(this.d.db, p, domainId, 'read_only');
    return toApiRecord(await this.record(this.d.db, domainId, id));
  }

  /** The zone-wide rules a record must keep with the domain's other records. */
  private async conflicts(db: Database, domainId: number, v: RecordValues, except?: number) {
    let q = db.db
      .selectFrom('domain_records')
      .select(['id', 'type', 'name', 'target'])
      .where('domain_id', '=', domainId);
    if (except !== undefined) q = q.where('id', '<>', except);
    const others = await q.execute();
    const same = others.filter((o) => o.name.toLowerCase() === v.name.toLowerCase());
    if (v.type === 'CNAME' && same.length > 0) throw errors.invalidField('name', CNAME_CONFLICT);
    if (v.type !== 'CNAME' && same.some((o) => o.type === 'CNAME'))
      throw errors.invalidField('name', CNAME_CONFLICT);
    if (v.type === 'MX') {
      const mx = others.filter((o) => o.type === 'MX');
      const nullMx = (o: { name: string; target: string }) => o.name === '' && o.target === '';
      if (mx.some(nullMx))
        throw errors.invalidField(
          'target',
          'The domain has a Null MX record: no other MX record can be added.',
        );
      if (nullMx(v) && mx.length > 0)
        throw errors.invalidField(
          'target',
          'A Null MX record cannot be added while other MX records exist.',
        );
    }
  }

  private zoneName(domain: DomainRow): string {
    return domain.domain_key;
  }

  private async editable(db: Database, p: Principal, domainId: number): Promise<DomainRow> {
    const domain = await this.d.domains.load(db, p, domainId, 'read_write', true);
    if (domain.type !== 'master') throw errors.reason(SLAVE_RECORDS);
    return domain;
  }

  async create(
    p: Principal,
    domainId: number,
    b: CreateRecord,
    remoteAddr: string,
  ): Promise<ApiRecord> {
    return this.d.db.transaction(async (tx) => {
      const domain = await this.editable(tx, p, domainId);
      const v = recordValues(
        { ...b, type: b.type as RecordType },
        this.zoneName(domain),
        remoteAddr,
      );
      if ((await countRecords(tx, domainId)) >= MAX_RECORDS)
        throw errors.reason(`A domain can have at most ${MAX_RECORDS} records.`);
      await this.conflicts(tx, domainId, v);
      const nowMs = this.d.clock.nowMs();
      const now = isoSeconds(nowMs);
      const row = await tx.db
        .insertInto('domain_records')
        .values({ ...v, domain_id: domainId, created: now, updated: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      await zoneChanged(tx, domainId, nowMs);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_record_create',
        entity: domainRef(domainId, domain.domain),
        status: 'notification',
        username: p.username,
      });
      return toApiRecord(row);
    });
  }

  /** Update: the given fields over the stored ones, through the same rules; the type stays. */
  async update(
    p: Principal,
    domainId: number,
    id: number,
    b: UpdateRecord,
    remoteAddr: string,
  ): Promise<ApiRecord> {
    return this.d.db.transaction(async (tx) => {
      const domain = await this.editable(tx, p, domainId);
      const cur = await this.record(tx, domainId, id);
      const given = Object.fromEntries(
        Object.entries(b).filter(([, x]) => x !== undefined && x !== null),
      );
      const v = recordValues(
        { ...cur, ...given, type: cur.type },
        this.zoneName(domain),
        remoteAddr,
      );
      await this.conflicts(tx, domainId, v, id);
      const nowMs = this.d.clock.nowMs();
      const row = await tx.db
        .updateTable('domain_records')
        .set({ ...v, updated: isoSeconds(nowMs) })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await zoneChanged(tx, domainId, nowMs);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_record_update',
        entity: domainRef(domainId, domain.domain),
        status: 'notification',
        username: p.username,
      });
      return toApiRecord(row);
    });
  }

  async delete(p: Principal, domainId: number, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const domain = await this.editable(tx, p, domainId);
      await this.record(tx, domainId, id);
      await tx.db.deleteFrom('domain_records').where('id', '=', id).execute();
      const nowMs = this.d.clock.nowMs();
      await zoneChanged(tx, domainId, nowMs);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'dns_record_delete',
        entity: domainRef(domainId, domain.domain),
        status: 'notification',
        username: p.username,
      });
    });
  }
}
