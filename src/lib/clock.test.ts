import { describe, expect, it } from 'vitest';
import { EmulatorClock, FakeClock } from './clock.js';

describe('EmulatorClock', () => {
  it('setMode: manual time stands still; system time continues from the manual instant', () => {
    let host = 1_000_000;
    const c = new EmulatorClock(() => host);
    expect(c.nowMs()).toBe(1_000_000);
    c.setMode('manual');
    host += 60_000;
    expect(c.nowMs()).toBe(1_000_000);
    c.advance(5_000);
    expect(c.nowMs()).toBe(1_005_000);
    c.setMode('system');
    expect(c.nowMs()).toBe(1_005_000);
    host += 1_000;
    expect(c.nowMs()).toBe(1_006_000);
  });

  it('advance: never backwards; advanceTo an earlier instant changes nothing', () => {
    const c = new EmulatorClock(() => 0, { mode: 'manual', nowMs: 100 });
    expect(() => c.advance(-1)).toThrow();
    c.advanceTo(50);
    expect(c.nowMs()).toBe(100);
    c.advanceTo(150);
    expect(c.nowMs()).toBe(150);
  });

  it('load: takes another process setting as stored by state()', () => {
    const a = new EmulatorClock(() => 10, { mode: 'system', offsetMs: 0 });
    a.advance(90);
    const b = new EmulatorClock(() => 10);
    b.load(a.state());
    expect(b.nowMs()).toBe(100);
  });

  it('FakeClock: a manual clock that tests may also set backwards', () => {
    const f = new FakeClock('2026-01-01T00:00:00Z');
    expect(f.mode).toBe('manual');
    f.set('2025-01-01T00:00:00Z');
    expect(f.now().toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });
});
