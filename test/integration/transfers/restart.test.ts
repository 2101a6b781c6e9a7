import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, type StratusApp } from '../../../src/app.js';
import { envToConfig } from '../../../src/config/config.js';
import { type AppContext, createContext } from '../../../src/context.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { maintenanceCommand } from '../../../src/modules/account-notices/maintenance.cli.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { sharedDatabase } from '../../helpers/shared-database.js';
import { STRONG } from './fixtures.js';

const START = Date.parse('2026-03-01T12:00:00Z');

/** A server process on the shared database: its context, app and a way to run its jobs. */
async function boot(url: string, nowMs: number) {
  const clock = new FakeClock(new Date(nowMs).toISOString());
  const ctx: AppContext = await createContext(
    envToConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', STRATUS_TIMING: 'fast' }),
    { clock },
  );
  const app: StratusApp = await buildApp(ctx);
  await app.ready();
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const r = await app.inject({
      method: method as 'GET',
      url: path,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: r.statusCode, body: r.body ? JSON.parse(r.body) : undefined };
  };
  const settle = async () => {
    for (let i = 0; i < 1000; i++) {
      await ctx.runner.runDue();
      const next = await ctx.runner.nextDueAt();
      if (next === undefined || next > clock.nowMs() + 3600_000) return;
      if (next > clock.nowMs()) clock.set(next);
    }
  };
  const close = async () => {
    await app.close();
    await ctx.runner.stop();
    await ctx.db.close();
  };
  return { ctx, clock, call, settle, close };
}

describe('transfers and maintenance across restarts', () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of drops) await d();
  });

  it('service transfers: a transfer created before a restart goes stale after it; maintenance from the stratus command shows in the server', async () => {
    const db = await sharedDatabase('transfers');
    drops.push(db.drop);
    const first = await boot(db.url, START);
    const owner = await bootstrapAccount(first.ctx.db, first.clock, {
      email: 'a@example.com',
      username: 'sender',
    });
    const created = await first.call('POST', '/v4/compute/instances', owner.token, {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    expect(created.status).toBe(200);
    await first.settle();
    const tr = await first.call('POST', '/v4/account/service-transfers', owner.token, {
      entities: { computes: [created.body.id] },
    });
    expect(tr.status).toBe(200);
    const later = first.clock.nowMs();
    await first.close();

    // The operator schedules maintenance with the command while no server runs.
    const out: string[] = [];
    const code = await maintenanceCommand(
      envToConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }),
      [
        'create',
        '--compute',
        String(created.body.id),
        '--emergency',
        '--until',
        '2099-01-01T00:00:00',
      ],
      { out: (s) => out.push(s), err: (s) => out.push(s) },
    );
    expect(code, out.join('\n')).toBe(0);

    // The command ran on the host's clock: the server comes back after both that and the expiry.
    const second = await boot(db.url, Math.max(later + 24 * 3600_000, Date.now() + 60_000));
    try {
      await second.ctx.runner.runDue();
      const view = await second.call(
        'GET',
        `/v4/account/service-transfers/${tr.body.token}`,
        owner.token,
      );
      expect(view.body.status).toBe('stale');
      const maint = await second.call('GET', '/v4/account/maintenance', owner.token);
      expect(maint.body.data.map((m: { status: string }) => m.status)).toEqual(['started']);
      const inst = await second.call(
        'GET',
        `/v4/compute/instances/${created.body.id}`,
        owner.token,
      );
      // Under its (default) migrate policy the instance is being moved live.
      expect(inst.body.status).toBe('migrating');
    } finally {
      await second.close();
    }
  });
});
