import ipaddr from 'ipaddr.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { requireManaged } from './managed.account.js';
import { scheduleChecks, tcpTarget } from './managed.checks.js';
import type { ApiService, CreateService, UpdateService } from './managed.schemas.js';
import type { ManagedServicesTable } from './managed.table.js';

type ServiceRow = Omit<ManagedServicesTable, 'id'> & { id: number };

const LABEL = /^[a-zA-Z0-9_ .-]{3,64}$/;

/** The event reference of a Managed service. */
export const managedServiceRef = (id: number, label: string): EntityRef => ({
  type: 'managed_service',
  id,
  label,
  url: `/v4/managed/services/${id}`,
});

export function toApiService(r: ServiceRow): ApiService {
  return {
    id: r.id,
    status: r.status,
    service_type: r.service_type,
    label: r.label,
    address: r.address,
    timeout: r.timeout,
    body: r.body,
    consultation_group: r.consultation_group,
    notes: r.notes,
    region: r.region,
    credentials: parseJson<number[]>(r.credentials, []),
    created: r.created,
    updated: r.updated,
  };
}

/** The host a service's address names (a URL's, or host:port's), lower-cased. */
function hostOf(type: 'url' | 'tcp', address: string): string | undefined {
  if (type === 'tcp') return tcpTarget(address)?.host.toLowerCase();
  try {
    return new URL(address).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

function isPrivateAddress(host: string): boolean {
  if (!ipaddr.isValid(host)) return false;
  const range = ipaddr.parse(host).range();
  return range === 'private' || range === 'uniqueLocal';
}

/**
 * Managed services: what Managed monitors (an http(s) URL, or a TCP host:port), checked by a
 * recurring job (managed.checks.ts) that moves `pending` to `ok` or `problem` and opens and
 * resolves issues. Events `managed_service_create` and `managed_service_delete`.
 */
export class ManagedServicesService {
  constructor(
    private readonly d: {
      db: Database;
      clock: Clock;
      events: EventWriter;
      queue: JobQueue;
      catalogue: CatalogueService;
    },
  ) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async load(db: Database, p: Principal, id: number): Promise<ServiceRow> {
    const row = await db
      .forUpdate(
        db.db
          .selectFrom('managed_services')
          .selectAll()
          .where('account_id', '=', p.accountId)
          .where('id', '=', id),
      )
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row as ServiceRow;
  }

  /**
   * The service as it would be after the change, checked field by field (every failing field
   * at once); the address normalised (a URL's #fragment dropped).
   */
  private async validate(
    db: Database,
    accountId: number,
    s: Omit<CreateService, 'credentials'> & { credentials: number[] },
  ): Promise<{ address: string }> {
    const fe = new FieldErrors();
    fe.check(
      !LABEL.test(s.label),
      'label',
      'Label must be 3 to 64 characters of letters, digits, spaces, ".", "-" and "_".',
    );
    let address = s.address.trim();
    if (address.length < 3 || address.length > 100) {
      fe.add('address', 'Address must be between 3 and 100 characters.');
    } else if (s.service_type === 'url') {
      let u: URL | undefined;
      try {
        u = new URL(address);
      } catch {
        u = undefined;
      }
      if (!u || !['http:', 'https:'].includes(u.protocol))
        fe.add('address', 'A url service needs an http:// or https:// URL.');
      else {
        u.hash = '';
        address = u.toString();
      }
    } else if (!tcpTarget(address)) {
      fe.add('address', 'A tcp service needs host:port (port 1 to 65535).');
    }
    fe.check(
      !Number.isInteger(s.timeout) || s.timeout < 1 || s.timeout > 255,
      'timeout',
      'Timeout must be between 1 and 255 seconds.',
    );
    if (s.body !== undefined && s.body !== null)
      fe.check(s.body.length > 100, 'body', 'Body must be 100 characters or less.');
    if (s.consultation_group !== undefined)
      fe.check(
        s.consultation_group.length > 50,
        'consultation_group',
        'Consultation group must be 50 characters or less.',
      );
    const host = fe.has('address') ? undefined : hostOf(s.service_type as 'url' | 'tcp', address);
    const region = s.region ?? null;
    if (host !== undefined && isPrivateAddress(host)) {
      if (region === null)
        fe.add('region', 'A region is required when the address is a private IP address.');
      else if (!this.d.catalogue.region(region)) fe.add('region', 'region is not valid');
    } else if (host !== undefined && region !== null) {
      fe.add('region', 'A region may only be given when the address is a private IP address.');
    }
    if (s.credentials.length > 0) {
      const found = await db.db
        .selectFrom('managed_credentials')
        .select('id')
        .where('account_id', '=', accountId)
        .where('id', 'in', s.credentials)
        .execute();
      const have = new Set(found.map((c) => c.id));
      s.credentials.forEach((c, i) => {
        fe.check(!have.has(c), `credentials[${i}]`, `No Managed credential with id ${c}.`);
      });
    }
    fe.throwIfAny();
    return { address };
  }

  async list(p: Principal, params: PageParams): Promise<Page<ApiService>> {
    const { db } = this.d;
    await requireManaged(db, p);
    return paginate(
      db.db.selectFrom('managed_services').where('managed_services.account_id', '=', p.accountId),
      (qb) => qb.selectAll('managed_services'),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'managed_services.id' },
      (r: ServiceRow) => toApiService(r),
    );
  }

  async get(p: Principal, id: number): Promise<ApiService> {
    await requireManaged(this.d.db, p);
    return toApiService(await this.load(this.d.db, p, id));
  }

  /** Create: `pending` until its first check; event `managed_service_create`. */
  async create(p: Principal, b: CreateService): Promise<ApiService> {
    await requireManaged(this.d.db, p);
    return this.d.db.transaction(async (tx) => {
      const credentials = [...new Set(b.credentials ?? [])];
      const { address } = await this.validate(tx, p.accountId, { ...b, credentials });
      const now = this.now();
      const row = await tx.db
        .insertInto('managed_services')
        .values({
          account_id: p.accountId,
          label: b.label,
          service_type: b.service_type as 'url' | 'tcp',
          address,
          timeout: b.timeout,
          body: b.body ?? null,
          consultation_group: b.consultation_group ?? '',
          notes: b.notes ?? null,
          region: b.region ?? null,
          credentials: JSON.stringify(credentials),
          status: 'pending',
          last_error: null,
          checked_ms: null,
          created: now,
          updated: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await scheduleChecks(tx, this.d.queue, row.id, p.accountId, this.d.clock.nowMs());
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'managed_service_create',
        entity: managedServiceRef(row.id, b.label),
        status: 'notification',
        username: p.username,
      });
      return toApiService(row as ServiceRow);
    });
  }

  /** Update: any field; a change to what is checked makes it `pending` and checks it at once. */
  async update(p: Principal, id: number, b: UpdateService): Promise<ApiService> {
    await requireManaged(this.d.db, p);
    return this.d.db.transaction(async (tx) => {
      const cur = await this.load(tx, p, id);
      const merged = {
        service_type: b.service_type ?? cur.service_type,
        label: b.label ?? cur.label,
        address: b.address ?? cur.address,
        timeout: b.timeout ?? cur.timeout,
        body: b.body !== undefined ? b.body : cur.body,
        consultation_group: b.consultation_group ?? cur.consultation_group,
        notes: b.notes !== undefined ? b.notes : cur.notes,
        region: b.region !== undefined ? b.region : cur.region,
        credentials: [...new Set(b.credentials ?? parseJson<number[]>(cur.credentials, []))],
      };
      const { address } = await this.validate(tx, p.accountId, merged);
      const rechecked =
        merged.service_type !== cur.service_type ||
        address !== cur.address ||
        merged.timeout !== cur.timeout ||
        merged.body !== cur.body;
      const active = cur.status !== 'disabled';
      await tx.db
        .updateTable('managed_services')
        .set({
          ...merged,
          service_type: merged.service_type as 'url' | 'tcp',
          address,
          credentials: JSON.stringify(merged.credentials),
          ...(rechecked && active ? { status: 'pending' as const, last_error: null } : {}),
          updated: this.now(),
        })
        .where('id', '=', id)
        .execute();
      if (rechecked && active)
        await scheduleChecks(tx, this.d.queue, id, p.accountId, this.d.clock.nowMs());
      return toApiService(await this.load(tx, p, id));
    });
  }

  /** Delete: its checks end; event `managed_service_delete`. */
  async delete(p: Principal, id: number): Promise<void> {
    await requireManaged(this.d.db, p);
    await this.d.db.transaction(async (tx) => {
      const cur = await this.load(tx, p, id);
      await tx.db.deleteFrom('managed_services').where('id', '=', id).execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'managed_service_delete',
        entity: managedServiceRef(id, cur.label),
        status: 'notification',
        username: p.username,
      });
    });
  }

  /** Disable: `disabled`, no checks until enabled again. */
  async disable(p: Principal, id: number): Promise<ApiService> {
    await requireManaged(this.d.db, p);
    return this.d.db.transaction(async (tx) => {
      await this.load(tx, p, id);
      await tx.db
        .updateTable('managed_services')
        .set({ status: 'disabled', updated: this.now() })
        .where('id', '=', id)
        .execute();
      return toApiService(await this.load(tx, p, id));
    });
  }

  /** Enable: `pending` again (a service already monitored stays as it is), checked at once. */
  async enable(p: Principal, id: number): Promise<ApiService> {
    await requireManaged(this.d.db, p);
    return this.d.db.transaction(async (tx) => {
      const cur = await this.load(tx, p, id);
      if (cur.status === 'disabled') {
        await tx.db
          .updateTable('managed_services')
          .set({ status: 'pending', last_error: null, updated: this.now() })
          .where('id', '=', id)
          .execute();
        await scheduleChecks(tx, this.d.queue, id, p.accountId, this.d.clock.nowMs());
      }
      return toApiService(await this.load(tx, p, id));
    });
  }
}
