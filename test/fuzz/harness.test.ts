import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorToken } from '../integration/controls/helpers.js';
import { Harness, isApiError } from './harness.js';

/** The fuzzer's checks themselves: each one catches what it is there to catch. */
describe('fuzz harness', () => {
  const h = new Harness();
  beforeAll(async () => {
    await h.fresh();
  });
  afterAll(async () => {
    await h.close();
  });

  it('isApiError: accepts {errors:[{reason, field?}]} and nothing else', () => {
    expect(isApiError({ errors: [{ reason: 'Not found' }] })).toBe(true);
    expect(isApiError({ errors: [{ reason: 'Bad', field: 'label' }] })).toBe(true);
    expect(isApiError({ errors: [] })).toBe(false);
    expect(isApiError({ errors: [{ reason: '' }] })).toBe(false);
    expect(isApiError({ errors: [{ reason: 'x', field: 1 }] })).toBe(false);
    expect(isApiError({ errors: [{ reason: 'x', code: 'y' }] })).toBe(false);
    expect(isApiError({ errors: [{ reason: 'x' }], statusCode: 400 })).toBe(false);
    expect(isApiError({ message: 'x' })).toBe(false);
    expect(isApiError('Bad Request')).toBe(false);
  });

  it('check: a refused request passes; a 5xx, or state changed around a refusal, fails', async () => {
    const [op] = (await h.operations()).filter((o) => o.id === 'getVolume');
    if (!op) throw new Error('no getVolume');
    const bad = { url: '/v4/volumes/abc', who: 'admin' as const, filter: undefined };
    await h.check(op, { ...bad, body: { kind: 'none' } });
    // State changed while a request was refused: the check names the table.
    await h.t.ctx.db.db
      .updateTable('volumes')
      .set({ label: 'changed-behind' })
      .where('label', '=', 'fuzz-vol')
      .execute();
    await expect(h.check(op, { ...bad, body: { kind: 'none' } })).rejects.toThrow(/volumes/);
    // A 500 (a fault rule of the emulator controls): the check fails.
    const token = await operatorToken(h.t);
    const set = await h.t.put(
      '/_stratus/faults',
      { rules: [{ operationId: 'getVolume', response: 'error' }] },
      { token },
    );
    expect(set.status, set.text).toBe(200);
    await expect(h.check(op, { ...bad, body: { kind: 'none' } })).rejects.toThrow(/500/);
  });
});
