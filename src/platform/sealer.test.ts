import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import { Sealer } from './sealer.js';

const noDb = {} as Database;

describe('Sealer', () => {
  it('seal/open: STRATUS_ENCRYPTION_KEY round-trips; the sealed form hides the secret', async () => {
    const s = new Sealer(noDb, 'operator key');
    const sealed = await s.seal('top secret');
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('top secret');
    expect(await s.open(sealed)).toBe('top secret');
    expect(await s.seal('top secret')).not.toBe(sealed);
  });

  it('open: another key or a tampered value is refused', async () => {
    const sealed = await new Sealer(noDb, 'key one').seal('x');
    await expect(new Sealer(noDb, 'key two').open(sealed)).rejects.toThrow();
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    await expect(
      new Sealer(noDb, 'key one').open(`v1:${raw.toString('base64')}`),
    ).rejects.toThrow();
  });
});
