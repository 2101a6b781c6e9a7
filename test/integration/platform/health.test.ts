import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { areaModules } from '../../../src/areas.js';
import { SPEC_VERSION } from '../../../src/http/openapi.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';

const VERSION = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
  .version as string;

/** A test app whose wall clock (heartbeats, readiness) the test moves. */
async function appWithWallClock(): Promise<{ t: TestApp; wall: { ms: number } }> {
  const wall = { ms: Date.parse('2026-03-01T12:00:00Z') };
  const t = await buildTestApp({ wallNow: () => wall.ms });
  return { t, wall };
}

/** Queues a job that is due now (a volume's creation, its clock moved past the first step). */
async function dueJob(t: TestApp): Promise<void> {
  const r = await t.post('/v4/volumes', { label: 'waits', region: 'us-east', size: 20 });
  expect(r.status, r.text).toBe(200);
  t.clock.set(t.clock.nowMs() + 3_600_000);
}

describe('health and readiness', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('health: version, engine, every area served with its operations, jobs, workers, blobs', async () => {
    t = await buildTestApp();
    const r = await t.get('/_stratus/health', { token: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'ok',
      version: VERSION,
      spec_version: SPEC_VERSION,
      engine: DIALECT,
      database: 'up',
      process: { role: 'serve', pid: process.pid },
      timing: 'fast',
      clock: { mode: 'manual' },
      workers: [],
      jobs: { queued: 0, running: 0, failed: 0, due: 0, lag_seconds: 0 },
      blobs: { backend: 'local' },
      init: null,
      problems: [],
    });
    expect(Object.keys(r.body.areas)).toEqual(areaModules.map((m) => m.name));
    for (const a of Object.values(r.body.areas) as { status: string; operations: number }[]) {
      expect(a.status).toBe('served');
    }
    expect(r.body.areas.volumes.operations).toBeGreaterThanOrEqual(10);
    expect(r.body.areas.compute.operations).toBeGreaterThanOrEqual(40);
    // Every operation of the API document is counted under an area (hidden ones too).
    const doc = (await t.get('/v4/openapi.json')).body;
    const ops = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce(
      (n, methods) => n + Object.keys(methods).length,
      0,
    );
    const counted = (Object.values(r.body.areas) as { operations: number }[]).reduce(
      (n, a) => n + a.operations,
      0,
    );
    expect(counted).toBeGreaterThanOrEqual(ops);
    expect(r.body.areas.controls.operations).toBe(0);
    expect(r.body.areas.controls.routes).toBeGreaterThan(5);
  });

  it('ready: 503 naming the cause while jobs wait and no worker was seen; health degraded', async () => {
    ({ t } = await appWithWallClock());
    // No job waits: no worker is needed.
    expect((await t.get('/_stratus/ready', { token: null })).status).toBe(200);
    await dueJob(t);
    const ready = await t.get('/_stratus/ready', { token: null });
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect(ready.body.problems[0]).toMatch(
      /^1 job\(s\) wait and no job worker has been seen for 30 s \(STRATUS_WORKER_TIMEOUT\)/,
    );
    const health = await t.get('/_stratus/health', { token: null });
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.jobs).toMatchObject({ due: 1 });
    expect(health.body.jobs.lag_seconds).toBeGreaterThan(3000);
    expect(health.body.problems).toEqual(ready.body.problems);
  });

  it('ready: a worker heartbeat makes it ready; a heartbeat older than STRATUS_WORKER_TIMEOUT does not', async () => {
    let wall: { ms: number };
    ({ t, wall } = await appWithWallClock());
    await dueJob(t);
    // The runner went over the queue (runDue) and its heartbeat says so.
    await t.ctx.runner.runDue();
    t.ctx.runner.lastPassMs = wall.ms;
    t.ctx.heartbeat.start('worker');
    await t.ctx.heartbeat.beat();
    await dueJob(t);
    expect((await t.get('/_stratus/ready', { token: null })).status).toBe(200);
    const health = await t.get('/_stratus/health', { token: null });
    expect(health.body.workers).toEqual([
      expect.objectContaining({
        id: t.ctx.runner.workerId,
        kind: 'worker',
        pid: process.pid,
        version: VERSION,
        last_seen: new Date(wall.ms).toISOString(),
        seconds_since_seen: 0,
      }),
    ]);
    expect(health.body.status).toBe('ok');

    wall.ms += 31_000;
    const stale = await t.get('/_stratus/ready', { token: null });
    expect(stale.status).toBe(503);
    expect(stale.body.problems[0]).toMatch(
      new RegExp(`the last one, ${t.ctx.runner.workerId}, 31 s ago`),
    );
    // A graceful stop removes the worker's row.
    await t.ctx.heartbeat.stop();
    expect((await t.get('/_stratus/health', { token: null })).body.workers).toEqual([]);
  });

  it('ready: STRATUS_WORKER_TIMEOUT sets how long a silent worker still counts', async () => {
    const wall = { ms: Date.parse('2026-03-01T12:00:00Z') };
    t = await buildTestApp({ wallNow: () => wall.ms, env: { STRATUS_WORKER_TIMEOUT: '120' } });
    await dueJob(t);
    t.ctx.runner.lastPassMs = wall.ms;
    await t.ctx.heartbeat.beat();
    wall.ms += 100_000;
    expect((await t.get('/_stratus/ready', { token: null })).status).toBe(200);
    wall.ms += 21_000;
    const r = await t.get('/_stratus/ready', { token: null });
    expect(r.status).toBe(503);
    expect(r.body.problems[0]).toMatch(/no job worker has been seen for 120 s/);
  });
});
