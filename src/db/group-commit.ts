import type { Kysely } from 'kysely';

/** How much one group may take before it commits: members, and milliseconds of their work. */
export interface GroupLimits {
  members: number;
  ms: number;
}

export const DEFAULT_GROUP_LIMITS: GroupLimits = { members: 64, ms: 4 };

interface Member<DB> {
  work: (conn: Kysely<DB>) => Promise<unknown>;
  /** Runs as the only member of its group (see `run`). */
  alone: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  out?: unknown;
}

/** Counters of the groups committed so far (tests and the bench read them). */
export interface GroupStats {
  groups: number;
  members: number;
  largest: number;
}

// Taken at load: a test that fakes timers must not stop the database.
const nextTurn: (fn: () => void) => void = setImmediate;

/**
 * Group commit on SQLite: the transactions asked for at about the same moment share one SQLite
 * transaction and one COMMIT.
 *
 * `run` queues a transaction's work; the first one queued while no group is under way starts a
 * group at the next turn of the event loop (`setImmediate`), so the requests that arrive in the
 * same poll of the sockets (under load, many) queue theirs first, after their own reads outside a
 * transaction, which the open group would otherwise make wait. The group holds the one
 * connection (Kysely's connection mutex: a read outside a transaction waits for the COMMIT and
 * never sees a group's uncommitted writes, as it waited for a transaction before), opens a
 * `begin immediate` transaction (the write lock is taken at once, so no statement or COMMIT of the
 * group meets SQLITE_BUSY when another process, the admin CLI, writes the same file:
 * `busy_timeout` covers the wait at BEGIN, where nothing has been done yet) and runs the queued
 * members one after another, each inside its own savepoint (`member_<n>`, but for the first:
 * see `group`; `Database.savepoint` names its own `sp_<n>`), until the queue is empty or the group reaches its limits
 * (`GroupLimits`: latency stays bounded), then commits once.
 *
 * - A member's promise settles only after the COMMIT that stored its work: durability is as
 *   before (an answered write survives a kill -9).
 * - A member whose work throws is rolled back to its savepoint alone and its promise rejects with
 *   its error at once (nothing of it will be stored); the others go on.
 * - A failed BEGIN or COMMIT (or savepoint statement) fails every member of the group with that
 *   error; nothing of the group is stored. Each member's own retry of retryable errors
 *   (`Database.transaction`) then applies.
 * - Nothing here waits for what it runs after the COMMIT (the members' on-commit hooks run in
 *   their callers): a hook may start a transaction, which joins the next group.
 */
export class GroupCommit<DB> {
  private readonly queue: Member<DB>[] = [];
  private active: Promise<void> | undefined;
  readonly stats: GroupStats = { groups: 0, members: 0, largest: 0 };

  /**
   * `exec` runs a statement of fixed text on the connection (SQLite: BEGIN, SAVEPOINT, COMMIT,
   * kept prepared), called only while the group holds the connection.
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly exec: (text: string) => void,
    private readonly limits: GroupLimits = DEFAULT_GROUP_LIMITS,
  ) {}

  /**
   * Runs work in the next group; resolves with its result once the group has committed.
   *
   * `alone`: the work is a group of its own, so it never runs in a savepoint. For work that
   * rewrites much of the database (a reset, a snapshot's import, a closed account's deletes):
   * SQLite keeps, for a savepoint, the first copy of every page changed under it (the statement
   * journal, in memory: `temp_store = MEMORY` in src/db/dialect.ts), so such work in a savepoint
   * would hold in memory as much of the database as it changes, until the COMMIT.
   */
  run<T>(work: (conn: Kysely<DB>) => Promise<T>, alone = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, alone, resolve: resolve as (value: unknown) => void, reject });
      this.active ??= new Promise<void>((r) => nextTurn(r)).then(() => this.drain());
    });
  }

  /** Resolves when no group is under way or queued (before the connection closes). */
  async idle(): Promise<void> {
    while (this.active) await this.active;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.group();
    } finally {
      this.active = undefined;
    }
  }

  /**
   * One group: BEGIN, the members, COMMIT; then the members settle. The first member runs
   * without a savepoint of its own: nothing precedes it in the transaction, so when it throws the
   * whole transaction is rolled back and begun again (two statements fewer for a group of one,
   * the common case when the server is not busy).
   */
  private async group(): Promise<void> {
    const { exec } = this;
    const done: Member<DB>[] = [];
    let begun = false;
    try {
      await this.db.connection().execute(async (conn) => {
        exec('begin immediate');
        begun = true;
        try {
          const start = performance.now();
          for (let n = 1; n <= this.limits.members; n++) {
            if (n > 1 && performance.now() - start >= this.limits.ms) break;
            // Work to run alone is the first of a transaction, and the last.
            if (done.length > 0 && (done[0]?.alone || this.queue[0]?.alone)) break;
            const member = this.queue.shift();
            if (!member) break;
            // The first of the transaction (none before it, or all before it failed).
            const first = done.length === 0;
            const name = `member_${n}`;
            if (!first) exec(`savepoint ${name}`);
            let failed = false;
            try {
              member.out = await member.work(conn);
            } catch (err) {
              failed = true;
              member.reject(err);
            }
            if (failed && first) {
              begun = false;
              rollback(exec);
              exec('begin immediate');
              begun = true;
            } else if (failed) {
              exec(`rollback to savepoint ${name}`);
              exec(`release savepoint ${name}`);
            } else {
              if (!first) exec(`release savepoint ${name}`);
              done.push(member);
            }
          }
          exec('commit');
        } catch (err) {
          // Nothing of the group may stay: end the transaction if SQLite has not already.
          if (begun) rollback(exec);
          throw err;
        }
      });
    } catch (err) {
      // Before BEGIN: the queued members were to be this group; they fail with it.
      const failed = begun ? done : [...done, ...this.queue.splice(0)];
      for (const m of failed) m.reject(err);
      return;
    }
    this.stats.groups++;
    this.stats.members += done.length;
    this.stats.largest = Math.max(this.stats.largest, done.length);
    for (const m of done) m.resolve(m.out);
  }
}

/** ROLLBACK, whatever SQLite has already rolled back by itself (then there is nothing to end). */
function rollback(exec: (text: string) => void): void {
  try {
    exec('rollback');
  } catch {
    // no transaction is active
  }
}
