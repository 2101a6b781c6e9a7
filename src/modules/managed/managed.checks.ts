import { connect } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import { DatabaseSlot } from '../../db/database.js';
import { defineJob, type JobContext } from '../../jobs/job.js';
import type { JobQueue } from '../../jobs/queue.js';
import { isoSeconds } from '../../lib/time.js';
import { openSupportTicket, supportAnswer } from '../support/support.service.js';
import type { ManagedServicesTable } from './managed.table.js';

type ServiceRow = Omit<ManagedServicesTable, 'id'> & { id: number };

/** Whether checks connect (STRATUS_MANAGED_CHECKS), kept per database connection. */
export const CHECKS_SLOT = new DatabaseSlot<{ network: boolean }>('managed-checks');

/** The longest a check waits, whatever the service's `timeout` (the job runner's lease is 60 s). */
export const CHECK_WAIT_CAP_MS = 30_000;
/** The most of an HTTP answer read to look for `body`. */
const BODY_READ_LIMIT = 1024 * 1024;

export interface CheckOutcome {
  up: boolean;
  /** Why the check failed (the issue's ticket says it). */
  reason?: string;
}

/** Seconds between two checks of a service, by timing profile. */
export function checkIntervalMs(profile: string): number {
  return profile === 'realistic' ? 60_000 : profile === 'fast' ? 5_000 : 1_000;
}

/** `host:port` of a tcp service (`tcp://` allowed), or undefined. */
export function tcpTarget(address: string): { host: string; port: number } | undefined {
  const a = address.replace(/^tcp:\/\//i, '');
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+)):(\d{1,5})$/.exec(a);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

async function checkUrl(s: ServiceRow, waitMs: number): Promise<CheckOutcome> {
  try {
    const res = await fetch(s.address, { signal: AbortSignal.timeout(waitMs), redirect: 'follow' });
    let text = '';
    if (s.body && res.body) {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let read = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        read += value.length;
        text += decoder.decode(value, { stream: true });
        if (text.includes(s.body) || read >= BODY_READ_LIMIT) break;
      }
      await reader.cancel().catch(() => undefined);
    } else {
      await res.body?.cancel().catch(() => undefined);
    }
    if (res.status >= 400) return { up: false, reason: `HTTP ${res.status} from ${s.address}` };
    if (s.body && !text.includes(s.body)) {
      return { up: false, reason: `The response did not contain the expected "${s.body}".` };
    }
    return { up: true };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const why =
      e.name === 'TimeoutError'
        ? `no answer within ${waitMs / 1000} s`
        : (e.cause?.code ?? e.message);
    return { up: false, reason: `${s.address}: ${why}` };
  }
}

function checkTcp(s: ServiceRow, waitMs: number): Promise<CheckOutcome> {
  const target = tcpTarget(s.address);
  if (!target) return Promise.resolve({ up: false, reason: `${s.address} is not host:port` });
  return new Promise((resolve) => {
    let seen = '';
    let settled = false;
    const socket = connect({ host: target.host, port: target.port });
    const finish = (o: CheckOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(
      () =>
        finish(
          s.body
            ? { up: false, reason: `The answer did not contain the expected "${s.body}".` }
            : { up: false, reason: `${s.address}: no connection within ${waitMs / 1000} s` },
        ),
      waitMs,
    );
    socket.on('connect', () => {
      if (!s.body) finish({ up: true });
    });
    socket.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-BODY_READ_LIMIT);
      if (s.body && seen.includes(s.body)) finish({ up: true });
    });
    socket.on('error', (err: Error & { code?: string }) =>
      finish({ up: false, reason: `${s.address}: ${err.code ?? err.message}` }),
    );
    socket.on('end', () =>
      finish({ up: false, reason: `The answer did not contain the expected "${s.body}".` }),
    );
  });
}

/** One check of a service: a real HTTP or TCP probe, or (checks off) a pass. */
export async function probe(s: ServiceRow, network: boolean): Promise<CheckOutcome> {
  if (!network) return { up: true };
  const waitMs = Math.min(s.timeout * 1000, CHECK_WAIT_CAP_MS);
  return s.service_type === 'url' ? checkUrl(s, waitMs) : checkTcp(s, waitMs);
}

interface CheckPayload {
  serviceId: number;
  accountId: number;
}

async function activeService(db: Database, p: CheckPayload): Promise<ServiceRow | undefined> {
  const row = await db.db
    .selectFrom('managed_services as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .selectAll('s')
    .where('s.id', '=', p.serviceId)
    .where('s.account_id', '=', p.accountId)
    .where('a.managed', '=', 1)
    .where('s.status', '!=', 'disabled')
    .executeTakeFirst();
  return row as ServiceRow | undefined;
}

/**
 * A service's outcome written down: `ok` or `problem`; a move to `problem` opens a Managed issue
 * with its support ticket, a move back to `ok` resolves it (support answers and closes the
 * ticket). Inside the step's transaction.
 */
export async function recordOutcome(
  ctx: Pick<JobContext, 'db' | 'clock' | 'events'>,
  s: ServiceRow,
  o: CheckOutcome,
): Promise<void> {
  const { db, clock } = ctx;
  const now = isoSeconds(clock.nowMs());
  await db.db
    .updateTable('managed_services')
    .set({
      status: o.up ? 'ok' : 'problem',
      last_error: o.up ? null : (o.reason ?? 'The check failed.'),
      checked_ms: clock.nowMs(),
    })
    .where('id', '=', s.id)
    .execute();
  const open = await db.db
    .selectFrom('managed_issues')
    .selectAll()
    .where('service_id', '=', s.id)
    .where('resolved', 'is', null)
    .executeTakeFirst();
  if (!o.up && !open) {
    const summary = `Managed service ${s.label} is not responding`.slice(0, 64);
    const ticket = await openSupportTicket(ctx, db, {
      accountId: s.account_id,
      summary,
      description: `Our monitoring detected a problem with the ${s.service_type} service "${s.label}" (${s.address}): ${o.reason ?? 'the check failed'}. We are looking into it.`,
      managedIssue: true,
    });
    await db.db
      .insertInto('managed_issues')
      .values({
        account_id: s.account_id,
        service_id: s.id,
        services: JSON.stringify([s.id]),
        ticket_id: ticket.id,
        ticket_summary: summary,
        created: now,
        resolved: null,
      })
      .execute();
  } else if (o.up && open) {
    await db.db
      .updateTable('managed_issues')
      .set({ resolved: now })
      .where('id', '=', open.id)
      .execute();
    if (open.ticket_id !== null) {
      const t = await db.db
        .selectFrom('support_tickets')
        .select('status')
        .where('id', '=', open.ticket_id)
        .executeTakeFirst();
      if (t && t.status !== 'closed') {
        await supportAnswer(
          ctx,
          db,
          open.ticket_id,
          `The service "${s.label}" is responding again.`,
          {
            close: true,
          },
        );
      }
    }
  }
}

/**
 * The checks of one service, every `checkIntervalMs` (a recurring job, one per service): the
 * probe runs outside the step's transaction; the job ends when the service is deleted or
 * disabled, or Managed is turned off.
 */
export const managedCheckJob = defineJob<CheckPayload>({
  name: 'managed.check',
  version: 1,
  recurring: true,
  maxAttempts: 3,
  payload: Type.Object({ serviceId: Type.Integer(), accountId: Type.Integer() }),
  async prepare(ctx, p) {
    const s = await activeService(ctx.db, p);
    if (!s) return undefined;
    const network = ctx.db.slot(CHECKS_SLOT, () => ({ network: true })).network;
    return { outcome: await probe(s, network), updated: s.updated };
  },
  async handle(ctx, p, prepared) {
    const s = await activeService(ctx.db, p);
    if (!s) return undefined;
    const r = prepared as { outcome: CheckOutcome; updated: string } | undefined;
    // A service changed while its check ran is checked again at once, as it now is.
    if (r && r.updated === s.updated) await recordOutcome(ctx, s, r.outcome);
    else return { next: p, delayMs: 0 };
    return { next: p, delayMs: checkIntervalMs(ctx.timing.current) };
  },
});

/** Starts (or restarts at once) the checks of a service, inside the caller's transaction. */
export async function scheduleChecks(
  db: Database,
  queue: JobQueue,
  serviceId: number,
  accountId: number,
  nowMs: number,
): Promise<void> {
  const running = await db.db
    .selectFrom('jobs')
    .select('id')
    .where('name', '=', managedCheckJob.name)
    .where('entity_type', '=', 'managed_service')
    .where('entity_id', '=', serviceId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  if (running) {
    await db.db
      .updateTable('jobs')
      .set({ run_at: nowMs })
      .where('id', '=', running.id)
      .where('status', '=', 'queued')
      .execute();
    return;
  }
  await queue.enqueue(
    db,
    managedCheckJob,
    { serviceId, accountId },
    { accountId, entity: { type: 'managed_service', id: serviceId } },
  );
}
