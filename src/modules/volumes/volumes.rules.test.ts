import { describe, expect, it } from 'vitest';
import { attachLimit, attachLimitProblem, VOLUME_LABEL_PATTERN } from './volumes.rules.js';

const GB = 1024;

describe('volume rules', () => {
  it('attachLimit: equals the GB of RAM, up to 64', () => {
    expect(attachLimit(1 * GB)).toBe(1);
    expect(attachLimit(8 * GB)).toBe(8);
    expect(attachLimit(64 * GB)).toBe(64);
    expect(attachLimit(96 * GB)).toBe(64);
  });

  it('attachLimitProblem: at the GB-of-RAM bound and one past', () => {
    expect(attachLimitProblem(2 * GB, 1, true)).toBeUndefined();
    expect(attachLimitProblem(2 * GB, 2, true)).toBeDefined();
  });

  it('attachLimitProblem: a ninth volume needs 16 GB of RAM, even with persist_across_boots false', () => {
    // No catalogue type has 9..15 GB: only this unit test can tell the RAM rule from the GB limit.
    expect(attachLimitProblem(15 * GB, 8, false)?.reason).toMatch(/16 GB/);
    expect(attachLimitProblem(16 * GB, 8, false)).toBeUndefined();
  });

  it('attachLimitProblem: a ninth volume must not persist across boots', () => {
    expect(attachLimitProblem(16 * GB, 7, true)).toBeUndefined();
    expect(attachLimitProblem(16 * GB, 8, true)?.field).toBe('persist_across_boots');
  });

  it('attachLimitProblem: never more than 64', () => {
    expect(attachLimitProblem(128 * GB, 63, false)).toBeUndefined();
    expect(attachLimitProblem(128 * GB, 64, false)).toBeDefined();
  });

  it('label pattern: a letter first; letters, digits, - and _; no -- or __', () => {
    const re = new RegExp(VOLUME_LABEL_PATTERN, 'u');
    for (const ok of ['a', 'my-volume', 'a_-b', 'A1_2-3']) expect(re.test(ok), ok).toBe(true);
    for (const bad of ['', '1a', '-a', 'a--b', 'a__b', 'a b', 'a.b', 'ä'])
      expect(re.test(bad), bad).toBe(false);
  });
});
