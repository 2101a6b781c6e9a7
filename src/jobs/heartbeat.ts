import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { JobRunner } from './runner.js';

/** How often a worker writes its heartbeat. */
export const HEARTBEAT_EVERY_MS = 5_000;
/** Rows of workers silent for longer than this are removed (processes that died long ago). */
const FORGET_AFTER_MS = 86_400_000;

export interface HeartbeatDeps {
  db: Database;
  runner: JobRunner;
  log: Logger;
  version: string;
  /**
   * Wall-clock time. Heartbeats are about processes, not about the cloud's state, so they do not
   * follow the emulator's clock (which may stand still in manual mode).
   */
  wallNow?: () => number;
  everyMs?: number;
}

/**
 * A job worker's heartbeat in `job_workers`: every few seconds, the time its runner last went
 * over the queue (not merely that the process lives: a runner stuck in a step stops beating).
 * `/_stratus/health` lists the rows; `/_stratus/ready` fails while jobs wait and no worker was
 * seen lately. A graceful stop removes the row.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private kind = 'serve';
  private started = '';
  private beating: Promise<void> | undefined;

  constructor(private readonly deps: HeartbeatDeps) {}

  /** Wall-clock epoch ms (what heartbeats are written and read in). */
  now(): number {
    return (this.deps.wallNow ?? Date.now)();
  }

  get version(): string {
    return this.deps.version;
  }

  /**
   * Starts beating (`serve`: the worker inside an API process; `worker`: a worker process).
   * Resolves once the first heartbeat is written (or failed, which is logged): a process that
   * awaits it before starting its runner is listed before it runs any job.
   */
  start(kind: 'serve' | 'worker'): Promise<void> {
    if (this.timer) return this.beating ?? Promise.resolve();
    this.kind = kind;
    this.started = new Date(this.now()).toISOString();
    const tick = () => {
      this.beating = this.beat().catch((err: unknown) =>
        this.deps.log.warn({ err }, 'job worker heartbeat not written'),
      );
    };
    tick();
    this.timer = setInterval(tick, this.deps.everyMs ?? HEARTBEAT_EVERY_MS);
    this.timer.unref();
    return this.beating ?? Promise.resolve();
  }

  /** Writes the heartbeat now. */
  async beat(): Promise<void> {
    const { db, runner, version } = this.deps;
    const now = this.now();
    const row = {
      kind: this.kind,
      host: hostname(),
      pid: process.pid,
      version,
      started: this.started || new Date(now).toISOString(),
      last_seen_ms: runner.lastPassMs ?? now,
      steps: runner.stats.steps,
    };
    await db.db
      .insertInto('job_workers')
      .values({ id: runner.workerId, ...row })
      .onConflict((oc) => oc.column('id').doUpdateSet(row))
      .execute();
    await db.db
      .deleteFrom('job_workers')
      .where('last_seen_ms', '<', now - FORGET_AFTER_MS)
      .execute();
  }

  /** Stops beating and removes this worker's row. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.deps.db.db
      .deleteFrom('job_workers')
      .where('id', '=', this.deps.runner.workerId)
      .execute()
      .catch(() => undefined);
  }
}
