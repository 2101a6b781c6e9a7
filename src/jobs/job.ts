import type { Config } from '../config/config.js';
import type { CascadeContext } from '../entities/entities.js';
import type { BlobStores } from '../storage/index.js';
import type { TSchema } from '@sinclair/typebox';
import type { ComputeDriver } from '../machines/driver.js';

/** What a job step sees. `db` is the step's transaction. */
export interface JobContext extends CascadeContext {
  /** The process's configuration (undefined for runners built without one, in tests). */
  config: Config | undefined;
  jobId: number;
  attempt: number;
  /**
   * How long after its due time this step runs (job-clock ms, 0 when on time): a worker behind a
   * burst of work takes a step late, and progress steps catch up with it (`catchUp`).
   */
  lateMs: number;
  /** What runs compute instances (src/machines): the simulated driver or QEMU. */
  machines: ComputeDriver;
  /** The areas' blob stores (jobs that free bytes: object storage lifecycle rules). */
  blobs?: BlobStores;
}

/** What `perform` sees: the same, but `db` is the database itself, with no transaction open. */
export type WorkContext = JobContext;

/**
 * What `perform` decided: go on to `handle` with this payload, or come back to the same step
 * after `waitMs` (a machine still shutting down) without running `handle`.
 */
export type PerformResult<P> = { payload: P; waitMs?: number };

/**
 * A step either ends the job (return nothing) or schedules the next step of the same job with a
 * new payload after a delay. Each step runs in its own transaction with the job's bookkeeping.
 */
export type StepResult<P> = undefined | { next: P; delayMs: number };

/** What a job's `prepare` sees: the job's context outside any transaction. */
export type PrepareContext = JobContext;

export interface JobDefinition<P, R = unknown> {
  name: string;
  version: number;
  payload: TSchema;
  maxAttempts: number;
  /**
   * A schedule that re-enqueues itself for ever (automatic backups). `nextDueAt` — what a caller
   * waiting for work to finish (tests' `settle`) follows — leaves it out; `runDue` runs it when due.
   */
  recurring?: boolean;
  /** Back-off before retry number `attempt` (1-based). */
  backoffMs?: (attempt: number) => number;
  /**
   * Work outside the database that a step needs (a network exchange), run before the step's
   * transaction so that no transaction waits on it; its result is `handle`'s third argument. The
   * job is claimed (leased) meanwhile; a throw counts as a failed attempt, like one of `handle`.
   */
  prepare?(ctx: PrepareContext, payload: P): Promise<R>;
  handle(ctx: JobContext, payload: P, prepared?: R): Promise<StepResult<P>>;
  /**
   * Work outside the database before a step: a compute driver's copies of disks and its machines'
   * starts and stops (src/machines). It runs with no transaction open, so a long copy holds no
   * lock, while the runner renews the job's lease; it must be idempotent (a step whose worker died
   * runs it again) and returns the payload `handle` then sees, or asks to be called again later.
   * A throw fails the step like one in `handle` (retried with back-off, then `onFailure`).
   */
  perform?(ctx: WorkContext, payload: P): Promise<PerformResult<P>>;
  /**
   * Whether `perform` has work for this step (default: always, when there is a `perform`). A step
   * without work outside the database runs within the runner's batch transaction, with the steps of
   * other jobs due at the same time, each in its own savepoint (see runner.ts).
   */
  performs?(machines: ComputeDriver, payload: P): boolean;
  /** Runs (in its own transaction) when the job has failed for good: write the failed event, release the entity. */
  onFailure?(ctx: JobContext, payload: P, error: Error): Promise<void>;
}

export function defineJob<P, R = unknown>(def: JobDefinition<P, R>): JobDefinition<P, R> {
  return def;
}

/**
 * Progress steps at a fixed rate, as work on the job clock runs: step `step` of `last` was due
 * `lateMs` ago, and the steps after it whose own time has also passed are taken with it (each
 * would have written a progress report superseded at once, unseen), so that a worker behind a
 * burst does the work once and the job still takes the time its profile gives. The next step is
 * due when it would have been had every step run on time. On time (`lateMs` below `delayMs`) this
 * is `step` itself, its next one `delayMs` after its due time; with no delay at all (`instant`)
 * every step is due at once, and this is the last.
 */
export function catchUp(
  step: number,
  last: number,
  delayMs: number,
  lateMs: number,
): { step: number; delayMs: number } {
  // No delay (`instant`): every later step is due now too.
  if (delayMs <= 0) return { step: Math.max(step, last), delayMs: 0 };
  const late = Math.max(0, lateMs);
  const passed = Math.min(Math.max(0, last - step), Math.floor(late / delayMs));
  return { step: step + passed, delayMs: Math.max(0, (passed + 1) * delayMs - late) };
}

export const defaultBackoff = (attempt: number): number =>
  Math.min(60_000, 500 * 2 ** (attempt - 1));
