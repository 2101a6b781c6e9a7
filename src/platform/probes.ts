import { type Static, Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { SPEC_VERSION } from '../http/openapi.js';
import type { StratusApp } from '../http/stratus-app.js';
import { InitRunSchema } from '../modules/controls/controls.schemas.js';

const Worker = Type.Object({
  id: Type.String({ description: 'The runner id (`w-…`), new at each start of the process.' }),
  kind: Type.String({ description: '`serve` (in an API process) or `worker`.' }),
  host: Type.String(),
  pid: Type.Integer(),
  version: Type.String(),
  started: Type.String(),
  last_seen: Type.String({ description: 'When its runner last went over the queue.' }),
  seconds_since_seen: Type.Number(),
  steps: Type.Integer({ description: 'Job steps it has run.' }),
});

export const HealthReply = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
      description: '`degraded` when `problems` is not empty.',
    }),
    version: Type.String(),
    spec_version: Type.String({ description: 'The API reference revision served.' }),
    engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
    database: Type.Union([Type.Literal('up'), Type.Literal('down')]),
    process: Type.Object({
      role: Type.Union([Type.Literal('serve'), Type.Literal('serve --no-worker')]),
      pid: Type.Integer(),
      started: Type.String(),
      uptime_seconds: Type.Number(),
    }),
    timing: Type.String({ description: 'The timing profile: instant, fast or realistic.' }),
    clock: Type.Object({
      mode: Type.Union([Type.Literal('system'), Type.Literal('manual')]),
      now: Type.String(),
    }),
    areas: Type.Record(
      Type.String(),
      Type.Object({
        status: Type.Literal('served'),
        operations: Type.Integer({ description: 'API operations (operationIds) it serves.' }),
        routes: Type.Integer(),
      }),
      { description: 'Every area this server serves (src/areas.ts), by name.' },
    ),
    workers: Type.Array(Worker, {
      description: 'The job workers seen (heartbeats in the database), most recent first.',
    }),
    jobs: Type.Object({
      queued: Type.Integer(),
      running: Type.Integer(),
      failed: Type.Integer(),
      due: Type.Integer({ description: 'Queued jobs whose time has come (by the job clock).' }),
      lag_seconds: Type.Number({ description: 'How long the oldest due job has waited.' }),
    }),
    blobs: Type.Object({
      backend: Type.Union([Type.Literal('local'), Type.Literal('s3')]),
      bucket: Type.Optional(Type.String()),
      endpoint: Type.Optional(Type.String()),
    }),
    init: Type.Union([InitRunSchema, Type.Null()], {
      description: 'The last run of the init hooks in this process (STRATUS_INIT_DIR).',
    }),
    problems: Type.Array(Type.String()),
  },
  {
    examples: [
      {
        status: 'degraded',
        version: '0.1.0',
        spec_version: SPEC_VERSION,
        engine: 'postgres',
        database: 'up',
        process: {
          role: 'serve --no-worker',
          pid: 41,
          started: '2026-03-01T12:00:00.000Z',
          uptime_seconds: 95.2,
        },
        timing: 'fast',
        clock: { mode: 'system', now: '2026-03-01T12:01:35.000Z' },
        areas: { volumes: { status: 'served', operations: 12, routes: 12 } },
        workers: [],
        jobs: { queued: 3, running: 0, failed: 0, due: 3, lag_seconds: 41.5 },
        blobs: { backend: 's3', bucket: 'stratus', endpoint: 'http://minio:9000' },
        init: null,
        problems: [
          '3 job(s) wait and no job worker has been seen for 30 s (STRATUS_WORKER_TIMEOUT)',
        ],
      },
    ],
  },
);

export const ReadyReply = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  problems: Type.Optional(Type.Array(Type.String())),
});

type Health = Static<typeof HealthReply>;
type Jobs = Health['jobs'];

/** The job queue's counts and the workers' heartbeats, read together. */
async function queueView(ctx: AppContext): Promise<{ jobs: Jobs; workers: Health['workers'] }> {
  const { db, clock } = ctx;
  const now = clock.nowMs();
  const counts = await db.db
    .selectFrom('jobs')
    .select((eb) => [
      sql<number>`sum(case when status = 'queued' then 1 else 0 end)`.as('queued'),
      sql<number>`sum(case when status = 'running' then 1 else 0 end)`.as('running'),
      sql<number>`sum(case when status = 'failed' then 1 else 0 end)`.as('failed'),
      sql<number>`sum(case when status = 'queued' and run_at <= ${now} then 1 else 0 end)`.as(
        'due',
      ),
      eb.fn
        .min(sql<number>`case when status = 'queued' and run_at <= ${now} then run_at end`)
        .as('oldest'),
    ])
    .executeTakeFirst();
  const oldest = counts?.oldest == null ? undefined : Number(counts.oldest);
  const wall = ctx.heartbeat.now();
  const rows = await db.db
    .selectFrom('job_workers')
    .selectAll()
    .orderBy('last_seen_ms', 'desc')
    .execute();
  return {
    jobs: {
      queued: Number(counts?.queued ?? 0),
      running: Number(counts?.running ?? 0),
      failed: Number(counts?.failed ?? 0),
      due: Number(counts?.due ?? 0),
      lag_seconds: oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000),
    },
    workers: rows.map((w) => ({
      id: w.id,
      kind: w.kind,
      host: w.host,
      pid: Number(w.pid),
      version: w.version,
      started: w.started,
      last_seen: new Date(Number(w.last_seen_ms)).toISOString(),
      seconds_since_seen: Math.max(0, (wall - Number(w.last_seen_ms)) / 1000),
      steps: Number(w.steps),
    })),
  };
}

/**
 * What keeps this server from doing its work: jobs wait and no worker has been seen within
 * STRATUS_WORKER_TIMEOUT (instances would stay `provisioning`), or the init hooks have not
 * finished (or failed). Empty when all is well.
 */
function problemsOf(ctx: AppContext, view: { jobs: Jobs; workers: Health['workers'] }): string[] {
  const out: string[] = [];
  const timeout = ctx.config.workerTimeoutSeconds;
  const alive = view.workers.some((w) => w.seconds_since_seen <= timeout);
  if (view.jobs.due > 0 && !alive) {
    const last = view.workers[0];
    out.push(
      `${view.jobs.due} job(s) wait and no job worker has been seen for ${timeout} s ` +
        `(STRATUS_WORKER_TIMEOUT)${last ? `; the last one, ${last.id}, ${Math.round(last.seconds_since_seen)} s ago` : ''}: ` +
        'start `stratus worker`, or `stratus serve` without --no-worker',
    );
  }
  const init = ctx.areas.controls.init.lastRun;
  if (init?.status === 'running') out.push('the init hooks (STRATUS_INIT_DIR) are running');
  if (init?.status === 'failed') {
    const f = init.files.find((x) => x.status === 'failed');
    out.push(`init hook ${f?.file ?? '?'} failed: ${f?.error ?? 'failed'}`);
  }
  return out;
}

/**
 * `/_stratus/*` probes: `health` (liveness, always 200 while the process answers, with the
 * whole picture as JSON, as LocalStack's), `ready` (503 unless the database answers, a job
 * worker is alive when jobs wait, and the init hooks are done), `metrics` (operator token).
 * `served` counts each area's routes (filled when the areas register).
 */
export function registerProbes(
  app: StratusApp,
  ctx: AppContext,
  served: ReadonlyMap<string, { operations: number; routes: number }>,
): void {
  const tags = ['Probes'];
  const probe = { config: { operatorToken: false as const } };
  const startedMs = Date.now();
  app.get(
    '/_stratus/health',
    {
      ...probe,
      schema: {
        tags,
        summary: 'Health: version, engine, areas, workers, jobs, blobs, init hooks',
        description:
          'Liveness: 200 while the process answers. `status` is `degraded` (with `problems`) ' +
          'when jobs wait and no job worker has been seen within STRATUS_WORKER_TIMEOUT, or the ' +
          'init hooks are running or failed. No token needed.',
        response: { 200: HealthReply },
      },
    },
    async () => {
      const { config, db, clock } = ctx;
      let view: { jobs: Jobs; workers: Health['workers'] } | undefined;
      try {
        view = await queueView(ctx);
      } catch {
        view = undefined;
      }
      const problems = view ? problemsOf(ctx, view) : ['the database does not answer'];
      const wall = ctx.heartbeat.now();
      const blob = config.blob;
      return {
        status: problems.length === 0 ? ('ok' as const) : ('degraded' as const),
        version: ctx.heartbeat.version,
        spec_version: SPEC_VERSION,
        engine: db.dialect,
        database: view ? ('up' as const) : ('down' as const),
        process: {
          role: config.inProcessWorker ? ('serve' as const) : ('serve --no-worker' as const),
          pid: process.pid,
          started: new Date(startedMs).toISOString(),
          uptime_seconds: Math.max(0, (wall - startedMs) / 1000),
        },
        timing: ctx.timing.state().profile,
        clock: { mode: clock.mode, now: new Date(clock.nowMs()).toISOString() },
        areas: Object.fromEntries(
          ctx.modules.map((m) => {
            const n = served.get(m.name) ?? { operations: 0, routes: 0 };
            return [m.name, { status: 'served' as const, ...n }];
          }),
        ),
        workers: view?.workers ?? [],
        jobs: view?.jobs ?? { queued: 0, running: 0, failed: 0, due: 0, lag_seconds: 0 },
        blobs:
          blob.backend === 's3'
            ? {
                backend: 's3' as const,
                bucket: blob.bucket,
                ...(blob.endpoint ? { endpoint: blob.endpoint } : {}),
              }
            : { backend: 'local' as const },
        init: ctx.areas.controls.init.lastRun ?? null,
        problems,
      };
    },
  );
  app.get(
    '/_stratus/ready',
    {
      ...probe,
      schema: {
        tags,
        summary: 'Readiness',
        description:
          '200 when the database answers, a job worker has been seen within ' +
          'STRATUS_WORKER_TIMEOUT whenever jobs wait, and the init hooks are done; 503 with ' +
          '`problems` otherwise. For load balancers and `docker compose` health checks. No token.',
        response: { 200: ReadyReply, 503: ReadyReply },
      },
    },
    async (_req, reply) => {
      const database = ctx.db.dialect;
      let problems: string[];
      try {
        await sql`select 1`.execute(ctx.db.db);
        problems = problemsOf(ctx, await queueView(ctx));
      } catch {
        return reply.status(503).send({ status: 'unavailable', database });
      }
      if (problems.length > 0) {
        return reply.status(503).send({ status: 'unavailable', database, problems });
      }
      return { status: 'ready' as const, database };
    },
  );
  app.get(
    '/_stratus/metrics',
    {
      schema: {
        tags,
        summary: 'Prometheus metrics',
        description:
          'Requests and latency by operation, job gauges, the areas\u2019 own lines (Prometheus ' +
          'text format 0.0.4). Operator token.',
        produces: ['text/plain'],
      },
    },
    async (_req, reply) => {
      const rows = await ctx.db.db
        .selectFrom('jobs')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      const oldest = await ctx.db.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.min('run_at').as('due'))
        .where('status', '=', 'queued')
        .where('run_at', '<=', ctx.clock.nowMs())
        .executeTakeFirst();
      const due =
        oldest?.due === null || oldest?.due === undefined ? undefined : Number(oldest.due);
      const text = ctx.metrics.render(
        {
          byStatus: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
          lagSeconds: due === undefined ? 0 : Math.max(0, (ctx.clock.nowMs() - due) / 1000),
          runner: ctx.runner.stats,
        },
        ctx.modules.flatMap((m) => m.metrics?.(ctx.areas[m.name as keyof typeof ctx.areas]) ?? []),
      );
      return reply.type('text/plain; version=0.0.4').send(text);
    },
  );
}
