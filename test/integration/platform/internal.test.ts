import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/lib/time.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';

describe('internal endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('health: answers ok without a token, as JSON', async () => {
    const r = await t.get('/_stratus/health', { token: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', engine: DIALECT, database: 'up', problems: [] });
  });

  it('ready: answers ready with the database engine', async () => {
    const r = await t.get('/_stratus/ready', { token: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', database: DIALECT });
  });

  it('ready: answers 503 when the database does not answer', async () => {
    const down = await buildTestApp();
    try {
      await down.ctx.db.close();
      const r = await down.get('/_stratus/ready', { token: null });
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'unavailable', database: DIALECT });
    } finally {
      await down.close().catch(() => undefined);
    }
  });

  it('metrics: counts requests by operation, method and status', async () => {
    await t.get('/v4/profile');
    await t.get('/v4/profile');
    await t.get('/v4/account/events/999999');
    await t.get('/v4/nowhere');
    const r = await t.get('/_stratus/metrics', {
      token: await t.ctx.areas.controls.operator.rotate(),
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    const lines = r.text.split('\n');
    expect(lines).toContain('# TYPE stratus_http_requests_total counter');
    expect(lines).toContain(
      'stratus_http_requests_total{operation="getProfile",method="GET",status="200"} 2',
    );
    expect(lines).toContain(
      'stratus_http_requests_total{operation="getEvent",method="GET",status="404"} 1',
    );
    expect(lines).toContain(
      'stratus_http_requests_total{operation="not_found",method="GET",status="404"} 1',
    );
    expect(lines).toContain(
      'stratus_http_request_duration_seconds_count{operation="getProfile",method="GET"} 2',
    );
  });

  it('metrics: reports job gauges by status and the lag of due jobs', async () => {
    const empty = (
      await t.get('/_stratus/metrics', { token: await t.ctx.areas.controls.operator.rotate() })
    ).text.split('\n');
    expect(empty).toContain('# TYPE stratus_jobs gauge');
    expect(empty).toContain('stratus_jobs{status="queued"} 0');
    expect(empty).toContain('stratus_jobs{status="running"} 0');
    expect(empty).toContain('stratus_jobs{status="failed"} 0');
    expect(empty).toContain('stratus_job_lag_seconds 0');

    const now = t.clock.nowMs();
    await t.ctx.db.db
      .insertInto('jobs')
      .values({
        name: 'metrics_probe',
        payload: '{}',
        status: 'queued',
        run_at: now,
        attempts: 0,
        max_attempts: 1,
        locked_by: null,
        locked_until: null,
        last_error: null,
        account_id: null,
        entity_type: null,
        entity_id: null,
        created: isoSeconds(now),
        updated: isoSeconds(now),
      })
      .execute();
    t.clock.advance(30_000);
    const lines = (
      await t.get('/_stratus/metrics', { token: await t.ctx.areas.controls.operator.rotate() })
    ).text.split('\n');
    expect(lines).toContain('stratus_jobs{status="queued"} 1');
    expect(lines).toContain('stratus_job_lag_seconds 30');
  });
});
