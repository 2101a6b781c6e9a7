import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateHook } from '../../../src/platform/state-hook.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from './helpers.js';

/** State kept outside the database (object data on disk, later), as an owner would plug it in. */
function blobStore() {
  const blobs = new Map<string, string>([['bucket/key', 'hello']]);
  const calls: string[] = [];
  const hook: StateHook = {
    name: 'blobs',
    async onReset(tx, scope) {
      calls.push(`reset:${scope.accountId ?? 'all'}`);
      tx.onCommit(() => blobs.clear());
    },
    async exportData() {
      return Object.fromEntries(blobs);
    },
    async importData(tx, data) {
      tx.onCommit(() => {
        for (const [k, v] of Object.entries((data ?? {}) as Record<string, string>))
          blobs.set(k, v);
      });
    },
  };
  return { blobs, calls, hook };
}

describe('emulator controls: state kept outside the database', () => {
  let t: TestApp;
  let o: ReturnType<typeof op>;
  beforeEach(async () => {
    t = await buildTestApp();
    o = op(t, await operatorToken(t));
  });
  afterEach(async () => {
    await t.close();
  });

  it('StateHook: reset clears it at commit; snapshots carry it under extensions and bring it back', async () => {
    const store = blobStore();
    t.ctx.stateHooks.push(store.hook);
    const snap = (await o.get('/_stratus/snapshot?bytes=false')).body;
    expect(snap.extensions).toEqual({ blobs: { 'bucket/key': 'hello' } });

    expect((await o.post('/_stratus/reset')).status).toBe(200);
    expect(store.calls).toEqual(['reset:all']);
    expect(store.blobs.size).toBe(0);

    expect((await o.post('/_stratus/snapshot', snap)).status).toBe(200);
    expect(store.blobs.get('bucket/key')).toBe('hello');
  });

  it('StateHook: a reset that fails leaves the outside state alone (work happens at commit)', async () => {
    const store = blobStore();
    t.ctx.stateHooks.push(store.hook, {
      name: 'broken',
      async onReset() {
        throw new Error('disk full');
      },
    });
    expect((await o.post('/_stratus/reset')).status).toBe(500);
    expect(store.blobs.get('bucket/key')).toBe('hello');
    expect((await t.get('/v4/profile')).status).toBe(200);
  });
});
