import { describe, expect, it } from 'vitest';
import { defaultBackoff } from './job.js';
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
