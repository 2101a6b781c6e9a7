import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import { defineJob } from '../../jobs/job.js';
import type { JobQueue } from '../../jobs/queue.js';
import { isoSeconds } from '../../lib/time.js';
import { axfr, soaSerial, TransferPolicy } from './dns/transfer.js';
import { newZoneVersion, serialNewer } from './domains.rules.js';
import { effectiveTimers, type SoaData, type ZoneRecord } from './zone.js';

/** The refresh schedule's entity: one per slave zone (never makes the domain busy). */
export const SLAVE_ENTITY = 'dns_slave_zone';

export interface RefreshPayload {
  domainId: number;
  accountId: number;
}

/** What the masters said: a new copy, the same serial as the copy, or why none answered. */
type Checked =
  | { kind: 'gone' }
  | { kind: 'current' }
  | { kind: 'transferred'; serial: number; records: ZoneRecord[] }
  | { kind: 'failed'; error: string };

/** The transfer settings of a process (STRATUS_DNS_TRANSFER_*). */
export function transferPolicy(ctx: {
  config:
    | { dns: { transferPort: number; transferNetworks: readonly string[] | undefined } }
    | undefined;
}): TransferPolicy {
  return new TransferPolicy(ctx.config?.dns.transferPort ?? 53, ctx.config?.dns.transferNetworks);
}

/**
 * Slave zones follow their masters (RFC 1034/1996), on the job clock: a recurring job per slave
 * zone asks each master in turn for the zone's SOA serial and transfers the zone (AXFR) when it is
 * newer than the copy (or there is none), then waits the SOA's refresh interval; after a failure
 * it waits the retry interval, and a copy not confirmed within the expire interval stops being
 * served (SERVFAIL), as a real slave does. The network exchange runs before the step's
 * transaction (`prepare`).
 */
export const refreshJob = defineJob<RefreshPayload, Checked>({
  name: 'domains.slave_refresh',
  version: 1,
  payload: Type.Object({ domainId: Type.Integer(), accountId: Type.Integer() }),
  maxAttempts: 5,
  recurring: true,
  async prepare(ctx, p) {
    const d = await ctx.db.db
      .selectFrom('domains')
      .select(['domain', 'type', 'master_ips'])
      .where('id', '=', p.domainId)
      .executeTakeFirst();
    if (d?.type !== 'slave') return { kind: 'gone' };
    const copy = await ctx.db.db
      .selectFrom('domain_slave_zones')
      .select(['serial', 'records'])
      .where('domain_id', '=', p.domainId)
      .executeTakeFirst();
    const policy = transferPolicy(ctx);
    const problems: string[] = [];
    for (const ip of parseJson<string[]>(d.master_ips, [])) {
      try {
        const serial = await soaSerial(policy, ip, d.domain);
        const have = copy?.records ? Number(copy.serial) : undefined;
        if (have !== undefined && !serialNewer(serial, have)) return { kind: 'current' };
        const records = await axfr(policy, ip, d.domain);
        const soa = records[0];
        if (
          soa?.type !== 'SOA' ||
          soa.name.toLowerCase() !== d.domain.toLowerCase().replace(/\.$/, '')
        )
          throw new Error(`${ip} sent a transfer of another zone`);
        return { kind: 'transferred', serial: (soa.data as SoaData).serial, records };
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    return {
      kind: 'failed',
      error: problems.length > 0 ? problems.join('; ') : 'The zone has no master to transfer from.',
    };
  },
  async handle(ctx, p, checked) {
    const d = await ctx.db.db
      .selectFrom('domains')
      .selectAll()
      .where('id', '=', p.domainId)
      .executeTakeFirst();
    if (d?.type !== 'slave' || !checked || checked.kind === 'gone') return undefined;
    const nowMs = ctx.clock.nowMs();
    const own = effectiveTimers(d);
    const copy = await ctx.db.db
      .selectFrom('domain_slave_zones')
      .selectAll()
      .where('domain_id', '=', d.id)
      .executeTakeFirst();
    const soa = parseJson<ZoneRecord[]>(copy?.records, [])[0]?.data as SoaData | undefined;
    const write = async (values: {
      serial?: number | null;
      records?: string | null;
      transferred?: string | null;
      checked_ms?: number | null;
      error: string;
    }) => {
      if (copy) {
        await ctx.db.db
          .updateTable('domain_slave_zones')
          .set(values)
          .where('domain_id', '=', d.id)
          .execute();
      } else {
        await ctx.db.db
          .insertInto('domain_slave_zones')
          .values({
            domain_id: d.id,
            serial: null,
            records: null,
            transferred: null,
            checked_ms: null,
            ...values,
          })
          .execute();
      }
    };
    const served = async () => {
      await ctx.db.db
        .updateTable('domains')
        .set({ version: newZoneVersion() })
        .where('id', '=', d.id)
        .execute();
    };
    if (checked.kind === 'transferred') {
      await write({
        serial: checked.serial,
        records: JSON.stringify(checked.records),
        transferred: isoSeconds(nowMs),
        checked_ms: nowMs,
        error: '',
      });
      await served();
      const refresh = (checked.records[0]?.data as SoaData | undefined)?.refresh || own.refresh;
      return { next: p, delayMs: refresh * 1000 };
    }
    if (checked.kind === 'current') {
      await write({ checked_ms: nowMs, error: '' });
      return { next: p, delayMs: (soa?.refresh || own.refresh) * 1000 };
    }
    // No master answered: keep serving the copy until it expires.
    const expireMs = (soa?.expire || own.expire) * 1000;
    const expired =
      copy?.records && copy.checked_ms !== null && nowMs - Number(copy.checked_ms) >= expireMs;
    await write({
      error: checked.error.slice(0, 1000),
      ...(expired ? { records: null, serial: null } : {}),
    });
    if (expired) await served();
    return { next: p, delayMs: (soa?.retry || own.retry) * 1000 };
  },
});

/** Starts (or brings forward to now) the refresh schedule of a slave zone. */
export async function scheduleRefresh(
  db: Database,
  queue: JobQueue,
  domainId: number,
  accountId: number,
  nowMs: number,
): Promise<void> {
  const moved = await db.db
    .updateTable('jobs')
    .set({ run_at: nowMs })
    .where('name', '=', refreshJob.name)
    .where('entity_type', '=', SLAVE_ENTITY)
    .where('entity_id', '=', domainId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) > 0) {
    db.onCommit(() => queue.onEnqueue?.());
    return;
  }
  if (await queue.hasActive(db, SLAVE_ENTITY, domainId)) return;
  await queue.enqueue(
    db,
    refreshJob,
    { domainId, accountId },
    { accountId, entity: { type: SLAVE_ENTITY, id: domainId } },
  );
}

/** Stops a zone's refresh schedule (the zone became a master or is deleted). */
export async function unscheduleRefresh(db: Database, domainId: number): Promise<void> {
  await db.db
    .deleteFrom('jobs')
    .where('name', '=', refreshJob.name)
    .where('entity_type', '=', SLAVE_ENTITY)
    .where('entity_id', '=', domainId)
    .where('status', '=', 'queued')
    .execute();
}

export const domainJobs = [refreshJob];
