import type { CascadeContext } from '../entities/entities.js';
import type { TSchema } from '@sinclair/typebox';

/** What a job step sees. `db` is the step's transaction. */
export interface JobContext extends CascadeContext {
  jobId: number;
  attempt: number;
}

/**
 * A step either ends the job (return nothing) or schedules the next step of the same job with a
 * new payload after a delay. Each step runs in its own transaction with the job's bookkeeping.
 */
export type StepResult<P> = undefined | { next: P; delayMs: number };

export interface JobDefinition<P> {
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
   * Work of a step outside its transaction (network I/O that must not hold the database), run
   * before it with `ctx.db` the process's database; what it returns is `handle`'s third argument.
   * A retried step runs it again. It must end well within the runner's lease (60 s).
   */
  prepare?(ctx: JobContext, payload: P): Promise<unknown>;
  handle(ctx: JobContext, payload: P, prepared?: unknown): Promise<StepResult<P>>;
  /** Runs (in its own transaction) when the job has failed for good: write the failed event, release the entity. */
  onFailure?(ctx: JobContext, payload: P, error: Error): Promise<void>;
}

export function defineJob<P>(def: JobDefinition<P>): JobDefinition<P> {
  return def;
}

export const defaultBackoff = (attempt: number): number =>
  Math.min(60_000, 500 * 2 ** (attempt - 1));
