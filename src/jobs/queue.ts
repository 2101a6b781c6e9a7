import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { statement } from '../db/statement.js';
import { errors } from '../errors/errors.js';
import type { Clock } from '../lib/clock.js';
import { isoSeconds } from '../lib/time.js';

/**
 * What enqueueing reads of a job definition (jobs/job.ts); `P` is its payload. Declared here so
 * the queue does not import the definitions, whose context holds the queue.
 */
export interface Enqueueable<P> {
  name: string;
  version: number;
  maxAttempts: number;
  handle(ctx: never, payload: P): Promise<unknown>;
}

export interface EnqueueOptions {
  delayMs?: number;
  accountId?: number | null;
  /** The entity the job works on: it is busy until the job ends. */
  entity?: { type: string; id: number } | null;
}

/** A new job's row (built once per dialect: every create that has work runs it). */
const insertJob = statement(
  'jobs.enqueue',
  (
    { db },
    name: string,
    payload: string,
    runAt: number,
    maxAttempts: number,
    accountId: number | null,
    entityType: string | null,
    entityId: number | null,
    now: string,
  ) =>
    db
      .insertInto('jobs')
      .values({
        name,
        payload,
        status: 'queued',
        run_at: runAt,
        attempts: 0,
        max_attempts: maxAttempts,
        locked_by: null,
        locked_until: null,
        last_error: null,
        account_id: accountId,
        entity_type: entityType,
        entity_id: entityId,
        created: now,
        updated: now,
      })
      .returning('id'),
);

/** Enqueues jobs inside the caller's transaction and answers "is this entity busy?". */
export class JobQueue {
  /** Called after a transaction that enqueued a job commits (wakes the in-process runner). */
  onEnqueue: (() => void) | undefined;

  constructor(private readonly clock: Clock) {}

  async enqueue<P>(
    db: Database,
    def: Enqueueable<P>,
    payload: P,
    opts: EnqueueOptions = {},
  ): Promise<number> {
    const now = this.clock.nowMs();
    const [row] = await insertJob.rows(
      db,
      def.name,
      JSON.stringify({ $version: def.version, ...(payload as object) }),
      now + (opts.delayMs ?? 0),
      def.maxAttempts,
      opts.accountId ?? null,
      opts.entity?.type ?? null,
      opts.entity?.id ?? null,
      isoSeconds(now),
    );
    if (!row) throw new Error('enqueue: the insert returned no id');
    db.onCommit(() => this.onEnqueue?.());
    return row.id;
  }

  /** Whether the entity has a queued or running job. */
  async hasActive(db: Database, entityType: string, entityId: number): Promise<boolean> {
    const row = await db.db
      .selectFrom('jobs')
      .select(sql<number>`1`.as('one'))
      .where('entity_type', '=', entityType)
      .where('entity_id', '=', entityId)
      .where('status', 'in', ['queued', 'running'])
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Throws 400 `<Label> busy.` while the entity has work under way. */
  async assertIdle(
    db: Database,
    entityType: string,
    entityId: number,
    label: string,
  ): Promise<void> {
    if (await this.hasActive(db, entityType, entityId)) throw errors.busy(label);
  }
}
