import { describe, expect, it } from 'vitest';
import { catchUp, defaultBackoff } from './job.js';
import { Timing, type WorkKind } from './timing.js';

const KINDS: WorkKind[] = [
  'provision',
  'boot',
  'reboot',
  'shutdown',
  'delete',
  'disk_create',
  'disk_resize',
  'disk_clone',
  'config',
  'volume_create',
  'volume_resize',
  'volume_clone',
  'volume_attach',
  'resize',
  'migrate',
  'clone',
  'backup',
  'restore',
  'rebuild',
  'image_replicate',
  'firewall_apply',
];

describe('Timing', () => {
  it('durationMs: instant is 0 for every kind of work', () => {
    const t = new Timing('instant');
    for (const k of KINDS) {
      expect(t.durationMs(k)).toBe(0);
      expect(t.stepMs(k, 4)).toBe(0);
    }
  });

  it('durationMs: fast is more than 0 and at most 4 s, realistic is larger', () => {
    const fast = new Timing('fast');
    const real = new Timing('realistic');
    for (const k of KINDS) {
      expect(fast.durationMs(k)).toBeGreaterThan(0);
      expect(fast.durationMs(k)).toBeLessThanOrEqual(4000);
      expect(real.durationMs(k)).toBeGreaterThan(fast.durationMs(k));
    }
    expect(real.durationMs('provision')).toBe(45_000);
    expect(fast.durationMs('provision')).toBe(2250);
    // Long work is capped in the fast profile.
    expect(real.durationMs('migrate')).toBe(300_000);
    expect(fast.durationMs('migrate')).toBe(4000);
  });

  it('stepMs: splits the work into steps', () => {
    const t = new Timing('realistic');
    expect(t.stepMs('boot', 5)).toBe(5000);
    expect(t.stepMs('boot', 0)).toBe(25_000);
  });

  it('set: switches the profile at run time', () => {
    const t = new Timing('realistic');
    expect(t.current).toBe('realistic');
    t.set('instant');
    expect(t.current).toBe('instant');
    expect(t.durationMs('resize')).toBe(0);
  });

  it('defaultBackoff: doubles from 0.5 s and stops at 60 s', () => {
    expect([1, 2, 3, 4].map(defaultBackoff)).toEqual([500, 1000, 2000, 4000]);
    expect(defaultBackoff(20)).toBe(60_000);
  });
});

describe('catchUp', () => {
  it('catchUp: a step on time is itself, the next one a whole step after its due time', () => {
    expect(catchUp(0, 4, 250, 0)).toEqual({ step: 0, delayMs: 250 });
    expect(catchUp(3, 4, 250, 0)).toEqual({ step: 3, delayMs: 250 });
  });

  it('catchUp: a step late by less than a step keeps the pace (the next is due from its own due time)', () => {
    expect(catchUp(1, 4, 250, 100)).toEqual({ step: 1, delayMs: 150 });
  });

  it('catchUp: a step late by whole steps takes the steps whose time has passed with it', () => {
    expect(catchUp(0, 4, 250, 250)).toEqual({ step: 1, delayMs: 250 });
    expect(catchUp(0, 4, 250, 600)).toEqual({ step: 2, delayMs: 150 });
    expect(catchUp(1, 4, 250, 260)).toEqual({ step: 2, delayMs: 240 });
  });

  it('catchUp: never past the last step', () => {
    expect(catchUp(0, 4, 250, 60_000).step).toBe(4);
    expect(catchUp(2, 3, 250, 60_000).step).toBe(3);
    expect(catchUp(4, 3, 250, 60_000).step).toBe(4);
  });

  it('catchUp: with no delay (instant) every step is due at once: the last is taken', () => {
    expect(catchUp(0, 4, 0, 0)).toEqual({ step: 4, delayMs: 0 });
    expect(catchUp(5, 4, 0, 0)).toEqual({ step: 5, delayMs: 0 });
  });
});
