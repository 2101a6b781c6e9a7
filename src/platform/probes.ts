import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { StratusApp } from '../http/stratus-app.js';

/** `/_stratus/*`: liveness and readiness (open), metrics (operator token). */
export function registerProbes(app: StratusApp, ctx: AppContext): void {
  const probe = { schema: { hide: true }, config: { operatorToken: false as const } };
  app.get('/_stratus/health', probe, async () => ({ status: 'ok' }));
  app.get('/_stratus/ready', probe, async (_req, reply) => {
    try {
      await sql`select 1`.execute(ctx.db.db);
      return { status: 'ready', database: ctx.db.dialect };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: ctx.db.dialect });
    }
  });
  app.get('/_stratus/metrics', { schema: { hide: true } }, async (_req, reply) => {
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
    const due = oldest?.due === null || oldest?.due === undefined ? undefined : Number(oldest.due);
    const text = ctx.metrics.render(
      {
        byStatus: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
        lagSeconds: due === undefined ? 0 : Math.max(0, (ctx.clock.nowMs() - due) / 1000),
        runner: ctx.runner.stats,
      },
      ctx.modules.flatMap((m) => m.metrics?.(ctx.areas[m.name as keyof typeof ctx.areas]) ?? []),
    );
    return reply.type('text/plain; version=0.0.4').send(text);
  });
}
