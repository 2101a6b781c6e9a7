import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { isoSeconds } from '../../lib/time.js';
import { type InstanceType, isDistributedPlan, type Region } from '../catalogue/catalogue.data.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { closeRun } from './compute.jobs.js';
import type { InstanceRow } from './compute.repository.js';
import { type OpKind, type OpStartPayload, opStartJob, opStatus } from './ops.jobs.js';
import { awaitingRead, HOLD_MS } from './status-hold.js';

export interface OpDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  /** The compute driver (src/machines): seeds, disk sources and capacity at the seam. */
  machines: ComputeDriver;
}

export interface StartOp {
  op: OpKind;
  /** The event followed by pollers (percent_complete), recorded when the work starts. */
  action: string;
  /** Recorded first, as a notification (e.g. `compute_resize_create`). */
  createAction?: string;
  /** Warm: a running instance keeps running; cold: it is shut down and booted afterwards. */
  warm?: boolean;
  /** Rebuild: boot afterwards whatever the instance was doing. */
  boot?: boolean;
  configId?: number | null;
  type?: string;
  allowAutoDiskResize?: boolean;
  sourceId?: number;
  /** The main event's entity when it is not the instance worked on (clone: the source). */
  entity?: { id: number; label: string };
  secondary?: { id: number; label: string };
}

/**
 * Starts a long operation on an instance, in the caller's transaction: its `…_create`
 * notification when the operation has one, its status, and its start job. The operation's own
 * event (`compute_resize`…) is recorded `started` by that job when the work starts, not with
 * the request (see `opStartJob`).
 */
export async function startOp(
  d: OpDeps,
  tx: Database,
  p: Principal,
  inst: InstanceRow,
  o: StartOp,
): Promise<void> {
  const nowMs = d.clock.nowMs();
  const wasRunning = inst.status === 'running';
  if (o.createAction) {
    await d.events.record(tx, {
      accountId: p.accountId,
      action: o.createAction,
      entity: entityRefs.compute(inst.id, inst.label),
      status: 'notification',
      username: p.username,
    });
  }
  const keepsRunning = wasRunning && o.warm === true && o.boot === undefined;
  if (wasRunning && !keepsRunning) await closeRun(tx, inst.id, nowMs);
  const status = opStatus(o.op, keepsRunning);
  await tx.db
    .updateTable('instances')
    // The start job waits for a read (status-hold.ts): a read of the instance wakes it.
    .set({ status, seen_status: awaitingRead(status), updated: isoSeconds(nowMs) })
    .where('id', '=', inst.id)
    .execute();
  const payload: OpStartPayload = {
    op: o.op,
    instanceId: inst.id,
    accountId: p.accountId,
    step: 0,
    username: p.username,
    bootAfter: o.boot ?? (wasRunning && !keepsRunning),
    configId: o.configId ?? null,
    endStatus: keepsRunning ? 'running' : 'offline',
    action: o.action,
    eventEntity: o.entity ?? null,
    eventSecondary: o.secondary ?? null,
    holdFrom: nowMs,
    ...(o.type !== undefined ? { type: o.type } : {}),
    ...(o.allowAutoDiskResize !== undefined ? { allowAutoDiskResize: o.allowAutoDiskResize } : {}),
    ...(o.sourceId !== undefined ? { sourceId: o.sourceId } : {}),
  };
  await d.queue.enqueue(tx, opStartJob, payload, {
    accountId: p.accountId,
    entity: { type: 'compute', id: inst.id },
    delayMs: HOLD_MS,
  });
}

/**
 * Whether a region offers a type: premium and GPU plans need the region's capability; a
 * distributed site (`Distributed Plans`) offers its own plans and only them.
 */
export function typeAvailableIn(region: Region, type: InstanceType): boolean {
  if (!region.capabilities.includes('Computes')) return false;
  const distributedSite = region.capabilities.includes('Distributed Plans');
  if (isDistributedPlan(type) !== distributedSite) return false;
  if (type.class === 'premium') return region.capabilities.includes('Premium Plans');
  if (type.class === 'gpu') return region.capabilities.includes('GPU Computes');
  return true;
}

/** Refusals shared by resize, and rebuild with a type (spec). */
export async function outstandingBalance(db: Database, accountId: number): Promise<boolean> {
  const acc = await db.db
    .selectFrom('accounts')
    .select('balance_cents')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return (acc?.balance_cents ?? 0) > 0;
}

/** The region capability that lets an instance have the Backup service. */
export const BACKUPS = 'Backups';
const NO_BACKUPS = 'Backups are not available in this region';
const NO_PRIVATE_IP = 'Private IPv4 addresses are not available at distributed sites';

/** Whether a region lets its instances have a private IPv4 address (not a distributed site). */
function privateIpsIn(region: Region): boolean {
  return region.site_type !== 'distributed';
}

/**
 * What a new instance (create, clone to a new instance) asks of its region that the region's
 * capabilities refuse: the Backup service where the region has no `Backups`, a private IPv4
 * address at a distributed site. Each as [field, reason].
 */
export function regionRefusals(
  region: Region,
  b: { backups_enabled?: boolean | null; private_ip?: boolean | null },
): [string, string][] {
  const out: [string, string][] = [];
  if (b.backups_enabled === true && !region.capabilities.includes(BACKUPS))
    out.push(['backups_enabled', NO_BACKUPS]);
  if (b.private_ip === true && !privateIpsIn(region)) out.push(['private_ip', NO_PRIVATE_IP]);
  return out;
}

/** The refusal of enabling backups on an instance whose region has no `Backups`. */
export function backupsRefusal(region: Region | undefined): string | undefined {
  return region && !region.capabilities.includes(BACKUPS) ? NO_BACKUPS : undefined;
}
