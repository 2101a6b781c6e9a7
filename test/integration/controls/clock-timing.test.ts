import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Timing } from '../../../src/jobs/timing.js';
import { EmulatorClock } from '../../../src/lib/clock.js';
import { ControlsService } from '../../../src/modules/controls/controls.service.js';
import { FaultSet } from '../../../src/modules/controls/faults.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from './helpers.js';

const STRONG = 's3cr3t-P4ssw0rd!';

describe('emulator controls: timing and clock', () => {
  let t: TestApp;
  let o: ReturnType<typeof op>;
  beforeEach(async () => {
    t = await buildTestApp();
    o = op(t, await operatorToken(t));
  });
  afterEach(async () => {
    await t.close();
  });

  const status = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body.status;

  it('putTiming: the profile changes at run time and the durations follow', async () => {
    const before = await o.get('/_stratus/timing');
    expect(before.body.profile).toBe('fast');
    const r = await o.put('/_stratus/timing', { profile: 'realistic', overrides: { boot: 1000 } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.durations_ms.provision).toBe(45_000);
    expect(r.body.durations_ms.boot).toBe(1000);
    expect(t.ctx.timing.durationMs('provision')).toBe(45_000);
    const bad = await o.put('/_stratus/timing', { overrides: { teleport: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('overrides.teleport');
    expect((await o.put('/_stratus/timing', { profile: 'slow' })).status).toBe(400);
    expect((await o.get('/_stratus/timing')).body.durations_ms.boot).toBe(1000);
  });

  it('advanceClock: a manual clock steps an instance through provisioning, booting and running', async () => {
    expect((await o.put('/_stratus/timing', { profile: 'realistic' })).status).toBe(200);
    expect((await o.put('/_stratus/clock', { mode: 'manual' })).body.mode).toBe('manual');
    const start = (await o.get('/_stratus/clock')).body.now_ms as number;
    const c = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    expect(c.status, c.text).toBe(200);
    const id = c.body.id as number;
    expect(await status(id)).toBe('provisioning');

    const a = await o.post('/_stratus/clock/advance', { seconds: 44 });
    expect(a.status, a.text).toBe(200);
    expect(a.body.now_ms).toBe(start + 44_000);
    expect(a.body.steps).toBeGreaterThan(0);
    expect(await status(id)).toBe('provisioning');

    await o.post('/_stratus/clock/advance', { seconds: 1 });
    expect(await status(id)).toBe('booting');
    await o.post('/_stratus/clock/advance', { seconds: 24 });
    expect(await status(id)).toBe('booting');
    await o.post('/_stratus/clock/advance', { ms: 1000 });
    expect(await status(id)).toBe('running');
    const events = (await t.get('/v4/account/events')).body.data;
    expect(events.map((e: { status: string }) => e.status)).toEqual(['finished', 'finished']);
    // The clock never went back and is where the advances put it.
    expect((await o.get('/_stratus/clock')).body.now_ms).toBe(start + 70_000);
  });

  it('advanceClock: needs exactly one of seconds and ms, never negative', async () => {
    expect((await o.post('/_stratus/clock/advance', {})).status).toBe(400);
    expect((await o.post('/_stratus/clock/advance', { seconds: 1, ms: 1 })).status).toBe(400);
    const neg = await o.post('/_stratus/clock/advance', { seconds: -1 });
    expect(neg.status).toBe(400);
  });

  it('putClock: system time continues from the manual instant, and advancing moves it forward', async () => {
    await o.put('/_stratus/clock', { mode: 'manual' });
    const frozen = (await o.get('/_stratus/clock')).body.now_ms as number;
    const sys = await o.put('/_stratus/clock', { mode: 'system' });
    expect(sys.body.mode).toBe('system');
    expect(sys.body.now_ms).toBeGreaterThanOrEqual(frozen);
    expect(sys.body.now_ms).toBeLessThan(frozen + 5_000);
    const adv = await o.post('/_stratus/clock/advance', { seconds: 3600 });
    expect(adv.body.now_ms).toBeGreaterThanOrEqual(frozen + 3_600_000);
  });

  it('refresh: another process on the database takes the clock, timing and faults set here', async () => {
    await o.put('/_stratus/timing', { profile: 'instant' });
    await o.post('/_stratus/clock/advance', { seconds: 90 });
    await o.put('/_stratus/faults', { rules: [{ path: '/volumes', response: 'busy' }] });
    const clock = new EmulatorClock();
    const timing = new Timing('realistic');
    const faults = new FaultSet();
    const peer = new ControlsService({ db: t.ctx.db, clock, timing, faults, runner: t.ctx.runner });
    await peer.refresh();
    expect(clock.mode).toBe('manual');
    expect(clock.nowMs()).toBe(t.clock.nowMs());
    expect(timing.current).toBe('instant');
    expect(faults.rules).toHaveLength(1);
  });
});
