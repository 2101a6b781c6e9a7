import type { BlobStores } from '../storage/index.js';
import type { EntityRegistry } from '../entities/entities.js';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { statement } from '../db/statement.js';
import { isRetryableTxError } from '../errors/db-errors.js';
import type { Clock } from '../lib/clock.js';
import { isoSeconds } from '../lib/time.js';
import type { ComputeDriver } from '../machines/driver.js';
import { SimulatedDriver } from '../machines/simulated.js';
import type { EventWriter } from '../modules/events/events.writer.js';
import { defaultBackoff, type JobContext, type JobDefinition, type StepResult } from './job.js';
import type { JobQueue } from './queue.js';
import type { Timing } from './timing.js';

const SIMULATED = new SimulatedDriver();

// biome-ignore lint/suspicious/noExplicitAny: the registry holds definitions of every payload type.
export type AnyJobDefinition = JobDefinition<any, any>;

export interface RunnerDeps {
  db: Database;
  /** The process's configuration, handed to job steps (jobs that reach out need settings). */
  config?: Config;
  clock: Clock;
  timing: Timing;
  events: EventWriter;
  queue: JobQueue;
  entities: EntityRegistry;
  log: Logger;
  /** The compute driver, which jobs' `perform` phases call (src/machines); default: simulated. */
  machines?: ComputeDriver;
  definitions: readonly AnyJobDefinition[];
  /** The areas' blob stores, handed to job steps. */
  blobs?: BlobStores;
  /** How long a claimed job stays locked to this worker. */
  leaseMs?: number;
  batchSize?: number;
  pollMs?: number;
  /**
   * How often (wall ms) the loop recovers the jobs of workers whose lease ended: at its start,
   * then at its first pass after each interval. `runDue` recovers at each call.
   */
  recoverEveryMs?: number;
}

interface ClaimedJob {
  id: number;
  name: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  /** When the step was due (job-clock epoch ms). */
  run_at: number;
}

/** What a batch's inline steps did, counted once the batch commits. */
interface Tally {
  steps: number;
  succeeded: number;
  failed: number;
  retried: number;
  dueAgain: boolean;
}

export interface RunnerStats {
  succeeded: number;
  failed: number;
  retried: number;
  steps: number;
}

const LOST_RUN = 'The worker running this job stopped before the step ended.';

// The runner's statements, built once per dialect (src/db/statement.ts): they run at every claim
// and every step.

/**
 * A job whose worker died keeps its lock only until the lease ends (see nextDueAt). The lost run
 * counts as an attempt, so a step that kills its worker every time ends `failed`.
 */
const recoverLeases = statement('jobs.recoverLeases', ({ db }, now: number) =>
  db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'queued',
      locked_by: null,
      locked_until: null,
      attempts: eb('attempts', '+', 1),
      last_error: LOST_RUN,
    }))
    .where('status', '=', 'running')
    .where('locked_until', '<=', now),
);
const claimDue = statement(
  'jobs.claimDue',
  ({ dialect }, now: number, limit: number) => sql<ClaimedJob>`
    select id, name, payload, attempts, max_attempts, run_at from jobs
    where status = 'queued' and run_at <= ${now}
    order by run_at, id limit ${limit}${dialect === 'postgres' ? sql` for update skip locked` : sql``}`,
);
/**
 * Whether a claim would find work: a queued job due now, or (`recover`: 1) a running job whose lease
 * has ended. A read, where a claim opens a write transaction (on SQLite `begin immediate`, which
 * takes the database's one write lock; on PostgreSQL three round trips): the loop of an idle
 * server asks this at each poll instead of claiming.
 */
const anyDue = statement(
  'jobs.anyDue',
  (_q, now: number, recover: number) => sql<{ due: number }>`
    select 1 as due from jobs where status = 'queued' and run_at <= ${now}
    union all
    select 1 as due from jobs where ${recover} = 1 and status = 'running' and locked_until <= ${now}
    limit 1`,
);
const deleteJob = statement('jobs.delete', ({ db }, id: number) =>
  db.deleteFrom('jobs').where('id', '=', id),
);
/** The next step queued (attempts count the failures of the current step: it starts afresh). */
const queueNextStep = statement(
  'jobs.queueNextStep',
  ({ db }, id: number, payload: string, runAt: number, updated: string) =>
    db
      .updateTable('jobs')
      .set({
        status: 'queued',
        payload,
        run_at: runAt,
        attempts: 0,
        locked_by: null,
        locked_until: null,
        updated,
      })
      .where('id', '=', id),
);
/** The same step queued again (a `perform` that waits), if the job is still this worker's. */
const requeueStep = statement(
  'jobs.requeueStep',
  (
    { db },
    id: number,
    workerId: string,
    payload: string,
    runAt: number,
    attempts: number,
    updated: string,
  ) =>
    db
      .updateTable('jobs')
      .set({
        status: 'queued',
        payload,
        run_at: runAt,
        attempts,
        locked_by: null,
        locked_until: null,
        updated,
      })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running'),
);

/** The loop's pause after a pass that ran steps (see `run`). */
const COALESCE_MS = 10;

/**
 * Claims due jobs and runs them step by step. Several runners (processes) may share one
 * PostgreSQL: claims use FOR UPDATE SKIP LOCKED, and every step re-checks the lock in its own
 * transaction, so no job runs twice.
 */
export class JobRunner {
  readonly workerId = `w-${randomUUID().slice(0, 8)}`;
  readonly stats: RunnerStats = { succeeded: 0, failed: 0, retried: 0, steps: 0 };
  private readonly defs: Map<string, AnyJobDefinition>;
  /** Names of the recurring jobs, which `nextDueAt` leaves out. */
  private readonly recurring: string[];
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly recoverEveryMs: number;
  /** Wall ms when the loop next recovers expired leases (0: at its next pass). */
  private recoverAtMs = 0;
  /** A wake-up is asked for in this turn of the event loop (see `wake`). */
  private wakePending = false;
  /** Wall-clock epoch ms when the loop last went over the queue (the heartbeat reports it). */
  lastPassMs: number | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** A wake-up that came while the loop was busy: the loop claims again instead of sleeping. */
  private woken = false;
  /** A step of the pass left its job due at once (a delay of 0): the loop claims again now. */
  private dueAgain = false;

  constructor(private readonly deps: RunnerDeps) {
    this.defs = new Map(deps.definitions.map((d) => [d.name, d]));
    this.recurring = deps.definitions.filter((d) => d.recurring).map((d) => d.name);
    this.leaseMs = deps.leaseMs ?? 60_000;
    this.batchSize = deps.batchSize ?? 10;
    this.pollMs = deps.pollMs ?? 100;
    this.recoverEveryMs = deps.recoverEveryMs ?? 1000;
  }

  /**
   * Whether the loop's next claim recovers expired leases first. Not at every claim (an update over
   * the running jobs, a third of a claim's time under load, where there is about one claim per
   * create): the loop recovers at its start and then at its first pass after each `recoverEveryMs`
   * (`runDue` at its first pass). A dead worker's job waits that much longer than its lease.
   */
  private loopRecovers(): boolean {
    const wall = Date.now();
    if (wall < this.recoverAtMs) return false;
    this.recoverAtMs = wall + this.recoverEveryMs;
    return true;
  }

  /**
   * Claims the jobs due now (up to a batch) in one transaction, and runs in that same transaction
   * the steps that have no work outside the database (no `prepare`, no `perform` for this step:
   * `runsInline`), each in its own savepoint: a step's effects commit with its job's next step or
   * end, or not at all, and a step that throws rolls back alone (then counts as a failed attempt,
   * in the same transaction). One commit for the batch instead of a claim and one transaction per
   * step. The other jobs are marked running for this worker (leased) and returned, for `runStep`.
   * A crash before the commit leaves every job of the batch queued, as it was.
   */
  private async claimAndRun(
    recover = false,
  ): Promise<{ leased: ClaimedJob[]; inline: number; full: boolean }> {
    const { db, clock } = this.deps;
    const now = clock.nowMs();
    const out = await db.transaction(async (tx) => {
      const tally: Tally = { steps: 0, succeeded: 0, failed: 0, retried: 0, dueAgain: false };
      if (recover) await recoverLeases.run(tx, now);
      const due = await claimDue.run(tx, now, this.batchSize);
      const jobs = [...due.rows].sort((a, b) => a.id - b.id);
      const leased: ClaimedJob[] = [];
      const inline: { job: ClaimedJob; def: AnyJobDefinition; payload: Record<string, unknown> }[] =
        [];
      for (const job of jobs) {
        const step = this.runsInline(job);
        if (step) inline.push({ job, ...step });
        else leased.push(job);
      }
      if (leased.length > 0) {
        await tx.db
          .updateTable('jobs')
          .set({
            status: 'running',
            locked_by: this.workerId,
            locked_until: now + this.leaseMs,
            updated: isoSeconds(now),
          })
          .where(
            'id',
            'in',
            leased.map((j) => j.id),
          )
          .execute();
      }
      for (const { job, def, payload } of inline) {
        // Stopped meanwhile (the loop only): the steps not begun stay queued, as they were.
        if (this.stopping && this.loop) break;
        tally.steps++;
        try {
          await tx.savepoint(async (sp) => {
            const result = await def.handle(this.context(sp, job), payload);
            if (await this.complete(sp, job, def, result)) tally.succeeded++;
            if (result && result.delayMs <= 0) tally.dueAgain = true;
          });
          this.deps.log.debug({ jobId: job.id, job: job.name }, 'job step done');
        } catch (err) {
          // A deadlock or serialization failure is not the step's fault: the whole batch is
          // retried (Database.transaction), as a step in a transaction of its own was.
          if (isRetryableTxError(err)) throw err;
          const error = err instanceof Error ? err : new Error(String(err));
          const final = await this.failWithin(tx, job, def, payload, error);
          if (final) tally.failed++;
          else tally.retried++;
        }
      }
      return { leased, inline: tally.steps, full: jobs.length === this.batchSize, tally };
    });
    // Counted once the batch committed (a transaction retried after a serialization failure
    // runs its steps again).
    const { tally } = out;
    this.stats.steps += tally.steps;
    this.stats.succeeded += tally.succeeded;
    this.stats.failed += tally.failed;
    this.stats.retried += tally.retried;
    if (tally.dueAgain) this.dueAgain = true;
    return { leased: out.leased, inline: out.inline, full: out.full };
  }

  /**
   * The job's definition and payload when its step runs inside the batch's transaction: a known
   * job, attempts left, no `prepare`, and no `perform` work for this step.
   */
  private runsInline(
    job: ClaimedJob,
  ): { def: AnyJobDefinition; payload: Record<string, unknown> } | undefined {
    const def = this.defs.get(job.name);
    if (!def || def.prepare || job.attempts >= job.max_attempts) return undefined;
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(job.payload) as Record<string, unknown>;
    } catch {
      return undefined; // `runStep` fails it
    }
    if (def.perform && def.performs?.(this.deps.machines ?? SIMULATED, payload) !== false) {
      return undefined;
    }
    return { def, payload };
  }

  /**
   * Records a step's outcome in its transaction: the next step queued (attempts start afresh), or
   * the job deleted. True when the job ended.
   */
  private async complete(
    tx: Database,
    job: ClaimedJob,
    def: AnyJobDefinition,
    result: StepResult<unknown>,
  ): Promise<boolean> {
    const { clock } = this.deps;
    if (!result) {
      await deleteJob.run(tx, job.id);
      return true;
    }
    const next = { ...(result.next as object), $version: def.version };
    const now = clock.nowMs();
    await queueNextStep.run(
      tx,
      job.id,
      JSON.stringify(next),
      now + Math.max(0, result.delayMs),
      isoSeconds(now),
    );
    return false;
  }

  private context(db: Database, job: ClaimedJob): JobContext {
    const { clock, timing, events, queue, entities, log, blobs } = this.deps;
    const machines = this.deps.machines ?? SIMULATED;
    let child: Logger | undefined;
    // A literal without a spread, `blobs` added after: a spread before an accessor made V8 build
    // each context property by property, about ten times the cost (a step pays it at each call).
    const ctx: JobContext = {
      db,
      config: this.deps.config,
      clock,
      timing,
      events,
      queue,
      entities,
      machines,
      // Made at first use: most steps log nothing, and a pino child is not free.
      get log() {
        child ??= log.child({ jobId: job.id, job: job.name });
        return child;
      },
      jobId: job.id,
      attempt: job.attempts + 1,
      lateMs: Math.max(0, clock.nowMs() - Number(job.run_at)),
    };
    if (blobs) ctx.blobs = blobs;
    return ctx;
  }

  /** Runs one claimed job's current step. */
  private async runStep(job: ClaimedJob): Promise<void> {
    const { db, log } = this.deps;
    const def = this.defs.get(job.name);
    let payload: Record<string, unknown> = {};
    this.stats.steps++;
    try {
      if (!def) throw new Error(`no job definition named ${job.name}`);
      payload = JSON.parse(job.payload) as Record<string, unknown>;
      if (job.attempts >= job.max_attempts) {
        throw new Error(LOST_RUN);
      }
      if (def.perform) {
        const done = await this.withLease(job, () =>
          (def.perform as NonNullable<AnyJobDefinition['perform']>)(this.context(db, job), payload),
        );
        payload = done.payload as Record<string, unknown>;
        if (done.waitMs !== undefined) {
          await this.requeue(job, payload, def.version, done.waitMs, job.attempts);
          if (done.waitMs <= 0) this.dueAgain = true;
          return;
        }
      }
      const prepared = def.prepare ? await def.prepare(this.context(db, job), payload) : undefined;
      await db.transaction(async (tx) => {
        const own = await tx
          .forUpdate(
            tx.db.selectFrom('jobs').select(['status', 'locked_by']).where('id', '=', job.id),
          )
          .executeTakeFirst();
        if (own?.status !== 'running' || own.locked_by !== this.workerId) return;
        const result = await def.handle(this.context(tx, job), payload, prepared);
        if (await this.complete(tx, job, def, result)) this.stats.succeeded++;
        if (result && result.delayMs <= 0) this.dueAgain = true;
      });
      log.debug({ jobId: job.id, job: job.name }, 'job step done');
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      await this.fail(job, def, payload, error);
    }
  }

  /**
   * Runs a step's `perform` (outside any transaction) while renewing the job's lease, so a long
   * copy is not taken for a dead worker's. Renewal stops when the lease is no longer ours.
   */
  private async withLease<T>(job: ClaimedJob, fn: () => Promise<T>): Promise<T> {
    const { db, clock } = this.deps;
    const every = Math.max(1000, Math.floor(this.leaseMs / 3));
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = db.db
        .updateTable('jobs')
        .set({ locked_until: clock.nowMs() + this.leaseMs })
        .where('id', '=', job.id)
        .where('locked_by', '=', this.workerId)
        .where('status', '=', 'running')
        .execute()
        .catch((err) => this.deps.log.warn({ jobId: job.id, err }, 'job lease renewal failed'));
    }, every);
    try {
      return await fn();
    } finally {
      clearInterval(timer);
      await renewing;
    }
  }

  /** Puts the job back in the queue for the same step (a `perform` that waits), if still ours. */
  private async requeue(
    job: ClaimedJob,
    payload: Record<string, unknown>,
    version: number,
    delayMs: number,
    attempts: number,
  ): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.nowMs();
    await requeueStep.run(
      db,
      job.id,
      this.workerId,
      JSON.stringify({ ...payload, $version: version }),
      now + Math.max(0, delayMs),
      attempts,
      isoSeconds(now),
    );
  }

  /** A failed attempt's columns: queued again after the back-off, or failed for good. */
  private failedRow(
    def: AnyJobDefinition | undefined,
    error: Error,
    attempts: number,
    final: boolean,
  ) {
    const now = this.deps.clock.nowMs();
    return {
      status: final ? 'failed' : 'queued',
      attempts,
      last_error: error.message.slice(0, 2000),
      run_at: final ? now : now + (def?.backoffMs ?? defaultBackoff)(attempts),
      locked_by: null,
      locked_until: null,
      updated: isoSeconds(now),
    } as const;
  }

  /** Whether this failed attempt ends the job, and logs it. */
  private isFinal(job: ClaimedJob, def: AnyJobDefinition | undefined, error: Error): boolean {
    const attempts = job.attempts + 1;
    // An error that says retrying cannot help (`final`: a full host, an image missing) ends the job.
    const final =
      !def || attempts >= job.max_attempts || (error as { final?: unknown }).final === true;
    this.deps.log.warn(
      { jobId: job.id, job: job.name, attempt: attempts, final, err: error.message },
      'job step failed',
    );
    return final;
  }

  private async fail(
    job: ClaimedJob,
    def: AnyJobDefinition | undefined,
    payload: Record<string, unknown>,
    error: Error,
  ): Promise<void> {
    const { db, log } = this.deps;
    const final = this.isFinal(job, def, error);
    // Only while the job is still ours: a runner that lost its lease leaves the job alone.
    const mark = async (tx: Database): Promise<boolean> => {
      const res = await tx.db
        .updateTable('jobs')
        .set(this.failedRow(def, error, job.attempts + 1, final))
        .where('id', '=', job.id)
        .where('locked_by', '=', this.workerId)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    };
    let marked: boolean;
    try {
      marked = await db.transaction(async (tx) => {
        if (!(await mark(tx))) return false;
        if (final && def?.onFailure) await def.onFailure(this.context(tx, job), payload, error);
        return true;
      });
    } catch (hookError) {
      // A failing onFailure must not leave the job running: it fails without the hook.
      log.error({ jobId: job.id, job: job.name, err: hookError }, 'job onFailure failed');
      marked = await db.transaction(mark);
    }
    if (!marked) return;
    if (final) this.stats.failed++;
    else this.stats.retried++;
  }

  /**
   * `fail` for a step run inside the batch's transaction (its own savepoint already rolled back):
   * the job's row and, when the job has failed for good, its `onFailure`, in a savepoint of their
   * own; an `onFailure` that throws is rolled back and the job fails without it. True when final.
   */
  private async failWithin(
    tx: Database,
    job: ClaimedJob,
    def: AnyJobDefinition,
    payload: Record<string, unknown>,
    error: Error,
  ): Promise<boolean> {
    const final = this.isFinal(job, def, error);
    const mark = (d: Database) =>
      d.db
        .updateTable('jobs')
        .set(this.failedRow(def, error, job.attempts + 1, final))
        .where('id', '=', job.id)
        .execute();
    try {
      await tx.savepoint(async (sp) => {
        await mark(sp);
        if (final && def.onFailure) await def.onFailure(this.context(sp, job), payload, error);
      });
    } catch (hookError) {
      this.deps.log.error({ jobId: job.id, job: job.name, err: hookError }, 'job onFailure failed');
      await mark(tx);
    }
    return final;
  }

  /** Claims and runs every job due now, once. Returns how many steps ran. */
  async runDue(): Promise<number> {
    let ran = 0;
    for (let first = true; !(this.stopping && this.loop); first = false) {
      const pass = await this.pass(first);
      ran += pass.ran;
      if (pass.ran === 0) break;
    }
    return ran;
  }

  /** Gives claimed jobs back to the queue (on shutdown). */
  private async release(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deps.db.db
      .updateTable('jobs')
      .set({ status: 'queued', locked_by: null, locked_until: null })
      .where('id', 'in', ids)
      .where('locked_by', '=', this.workerId)
      .execute();
  }

  /**
   * Epoch ms when there is next something to do: the earliest queued job's due time, or the end
   * of a running job's lease (when it can be recovered from a worker that died). Recurring
   * schedules are left out: they never finish.
   */
  async nextDueAt(): Promise<number | undefined> {
    const row = await this.deps.db.db
      .selectFrom('jobs')
      .select(
        sql<
          number | string | null
        >`min(case when status = 'queued' then run_at else coalesce(locked_until, run_at) end)`.as(
          'next',
        ),
      )
      .where('status', 'in', ['queued', 'running'])
      .$if(this.recurring.length > 0, (qb) => qb.where('name', 'not in', this.recurring))
      .executeTakeFirst();
    return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
  }

  /**
   * One pass of the loop: claims once (running the batch's inline steps in the claim's
   * transaction) and runs the leased steps. `more` when the queue may hold jobs due now: the
   * batch was full, or a step left its job due at once.
   */
  private async pass(recover: boolean, probe = false): Promise<{ ran: number; more: boolean }> {
    this.dueAgain = false;
    // Wall time, not the job clock: the heartbeat says whether this process works the queue.
    this.lastPassMs = Date.now();
    if (probe) {
      const now = this.deps.clock.nowMs();
      const due = await anyDue.rows(this.deps.db, now, recover ? 1 : 0);
      if (due.length === 0) return { ran: 0, more: false };
    }
    const { leased, inline, full } = await this.claimAndRun(recover);
    for (const [i, job] of leased.entries()) {
      // Only the loop gives jobs back when stopped: `runDue` called by a test or the clock runs on.
      if (this.stopping && this.loop) {
        await this.release(leased.slice(i).map((j) => j.id));
        return { ran: inline + i, more: false };
      }
      await this.runStep(job);
    }
    return { ran: inline + leased.length, more: full || this.dueAgain };
  }

  /**
   * Wakes the loop (after an enqueue in this process, a change of the clock): at the end of this
   * turn of the event loop, so that the commits of one turn (under load, several creates' enqueues)
   * share one claim instead of one each.
   */
  wake(): void {
    if (this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.wakeNow();
    });
  }

  private wakeNow(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.recoverAtMs = 0;
    this.loop = this.run();
  }

  /**
   * The loop: a pass, then at once another while jobs are due now (a full batch, a step due
   * again at once, an enqueue meanwhile); otherwise a sleep until the poll or a wake-up. After a
   * pass that ran steps the sleep is short (COALESCE_MS): under load, the steps falling due one by
   * one are claimed a few at a time, not each with its own claim (a transaction of two statements)
   * and an empty one after it. A step is at most that much later than its due time, as it could be
   * a poll late before.
   */
  private async run(): Promise<void> {
    // The pass follows a sleep that no wake-up ended (the poll, or the short pause after a pass
    // that ran steps): it reads whether anything is due before it claims. An idle server's loop
    // then takes no write lock, ten times a second by default, nor does the pass after each
    // create's first step in a series of creates made one after another.
    let polled = false;
    while (!this.stopping) {
      let pass = { ran: 0, more: false };
      this.woken = false;
      try {
        pass = await this.pass(this.loopRecovers(), polled);
      } catch (err) {
        this.deps.log.error({ err }, 'job runner loop error');
      }
      polled = false;
      if (this.stopping || pass.more || this.woken) continue;
      const ms = pass.ran > 0 ? Math.min(COALESCE_MS, this.pollMs) : this.pollMs;
      polled = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(true), ms);
        this.wakeUp = () => {
          clearTimeout(t);
          resolve(false);
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Finishes the step under way, gives back what was claimed, and stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeNow();
    await this.loop;
    this.loop = undefined;
  }
}
