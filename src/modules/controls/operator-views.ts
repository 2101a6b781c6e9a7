import { type Static, Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import { PageOf, PageQuery } from '../../http/schemas/common.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, pageOf, paginate } from '../../lib/pagination.js';

/**
 * What the operator sees of the whole server (`GET /_stratus/accounts`, `GET /_stratus/jobs`):
 * read-only views across accounts, for the console's operator panel and scripts. They read the
 * tables the way the `stratus admin users` command does; no account's API shows them.
 */
export const OperatorAccountSchema = Type.Object({
  id: Type.Integer(),
  euuid: Type.String(),
  email: Type.String(),
  company: Type.String(),
  /** US dollars (negative: a credit). */
  balance: Type.Number(),
  active_since: Type.String(),
  users: Type.Array(
    Type.Object({ username: Type.String(), email: Type.String(), restricted: Type.Boolean() }),
  ),
});
export const OperatorAccountPage = PageOf(OperatorAccountSchema);
export type OperatorAccount = Static<typeof OperatorAccountSchema>;

const JobStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);
export const JobsQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(JobStatus) }),
]);

export const OperatorJobSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: JobStatus,
  /** When it (or its next step) is due, by the server's clock. */
  run_at: Type.String(),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  locked_by: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  entity: Type.Union([Type.Object({ type: Type.String(), id: Type.Integer() }), Type.Null()]),
  created: Type.String(),
  updated: Type.String(),
});
export const OperatorJobsSchema = Type.Composite([
  PageOf(OperatorJobSchema),
  Type.Object({
    counts: Type.Record(Type.String(), Type.Integer()),
    /** Seconds the oldest due job has waited (0: none waits). */
    lag_seconds: Type.Number(),
    /** This process's job runner (when it runs jobs), and the workers running jobs now. */
    runner: Type.Object({
      in_process: Type.Boolean(),
      worker_id: Type.String(),
      succeeded: Type.Integer(),
      failed: Type.Integer(),
      retried: Type.Integer(),
      steps: Type.Integer(),
    }),
    workers: Type.Array(Type.Object({ id: Type.String(), running: Type.Integer() })),
  }),
]);
export type OperatorJobs = Static<typeof OperatorJobsSchema>;

export class OperatorViews {
  constructor(
    private readonly d: { db: Database; clock: Clock; runner: JobRunner; inProcess: boolean },
  ) {}

  /** Every account, oldest first, with its users. */
  async accounts(params: PageParams): Promise<Page<OperatorAccount>> {
    const { db } = this.d;
    const page = await paginate(
      db.db.selectFrom('accounts'),
      (qb) => qb.select(['id', 'euuid', 'email', 'company', 'balance_cents', 'active_since']),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'id' },
      (r: {
        id: number;
        euuid: string;
        email: string;
        company: string;
        balance_cents: number;
        active_since: string;
      }) => ({
        id: r.id,
        euuid: r.euuid,
        email: r.email,
        company: r.company,
        balance: Number(r.balance_cents) / 100,
        active_since: r.active_since,
        users: [] as OperatorAccount['users'],
      }),
    );
    const ids = page.data.map((a) => a.id);
    if (ids.length > 0) {
      const users = await db.db
        .selectFrom('users')
        .select(['account_id', 'username', 'email', 'restricted'])
        .where('account_id', 'in', ids)
        .orderBy('id')
        .execute();
      const byId = new Map(page.data.map((a) => [a.id, a]));
      for (const u of users)
        byId.get(u.account_id)?.users.push({
          username: u.username,
          email: u.email,
          restricted: Boolean(u.restricted),
        });
    }
    return page;
  }

  /** The job queue: counts by status, the oldest due job's wait, the workers, the jobs. */
  async jobs(params: PageParams & { status?: OperatorJobs['data'][number]['status'] }) {
    const { db, clock, runner } = this.d;
    const now = clock.nowMs();
    const counts = await db.db
      .selectFrom('jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const due = await db.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('run_at').as('due'))
      .where('status', '=', 'queued')
      .where('run_at', '<=', now)
      .executeTakeFirst();
    const workers = await db.db
      .selectFrom('jobs')
      .select(['locked_by', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'running')
      .where('locked_by', 'is not', null)
      .groupBy('locked_by')
      .execute();
    let base = db.db.selectFrom('jobs');
    if (params.status) base = base.where('status', '=', params.status);
    const page = await pageOf(
      params,
      (limit, offset) =>
        base.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      async () =>
        Number(
          (await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0,
        ),
    );
    const dueMs = due?.due === null || due?.due === undefined ? undefined : Number(due.due);
    return {
      ...page,
      data: page.data.map((j) => ({
        id: j.id,
        name: j.name,
        status: j.status,
        run_at: new Date(Number(j.run_at)).toISOString(),
        attempts: j.attempts,
        max_attempts: j.max_attempts,
        locked_by: j.locked_by,
        last_error: j.last_error,
        entity:
          j.entity_type !== null && j.entity_id !== null
            ? { type: j.entity_type, id: j.entity_id }
            : null,
        created: j.created,
        updated: j.updated,
      })),
      counts: Object.fromEntries(counts.map((c) => [c.status, Number(c.n)])),
      lag_seconds: dueMs === undefined ? 0 : Math.max(0, (now - dueMs) / 1000),
      runner: { in_process: this.d.inProcess, worker_id: runner.workerId, ...runner.stats },
      workers: workers.map((w) => ({ id: w.locked_by ?? '', running: Number(w.n) })),
    };
  }
}
