import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { nodebalancer } from '../nodebalancers/fixtures.js';
import { instance, volume } from '../volumes/fixtures.js';

const lock = (t: TestApp, entity_type: string, entity_id: number, lock_type?: string) =>
  t.post('/v4beta/locks', { entity_type, entity_id, ...(lock_type ? { lock_type } : {}) });

describe('resource locks', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('postResourceLock: locks an instance; the lock is listed, viewed and shown on the instance', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const r = await lock(t, 'compute', inst.id, 'cannot_delete');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(Number),
      lock_type: 'cannot_delete',
      entity: {
        id: inst.id,
        type: 'compute',
        label: inst.label,
        url: `/v4/compute/instances/${inst.id}`,
      },
    });
    expect((await t.get(`/v4beta/locks/${r.body.id}`)).body).toEqual(r.body);
    const list = await t.get('/v4beta/locks');
    expect(list.body).toEqual({ data: [r.body], page: 1, pages: 1, results: 1 });
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.locks).toEqual(['cannot_delete']);
    const filtered = await t.get('/v4beta/locks', {
      filter: { lock_type: 'cannot_delete_with_subresources' },
    });
    expect(filtered.body.results).toBe(0);
  });

  it('postResourceLock: lock_type defaults to cannot_delete', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const r = await lock(t, 'compute', inst.id);
    expect(r.status, r.text).toBe(200);
    expect(r.body.lock_type).toBe('cannot_delete');
  });

  it('postResourceLock: refuses an entity that is not the account’s (the recorded wording)', async () => {
    const r = await lock(t, 'compute', -99999876, 'cannot_delete_with_subresources');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ field: 'entity_id', reason: 'entity_id is not valid' }] });
    const bad = await t.post('/v4beta/locks', {
      entity_type: 'lkecluster',
      entity_id: 1,
      lock_type: 'sometimes',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'entity_type',
      'lock_type',
    ]);
  });

  it('postResourceLock: one lock per entity; a second names the lock to remove (the recorded wording)', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const first = await lock(t, 'compute', inst.id, 'cannot_delete');
    const second = await lock(t, 'compute', inst.id, 'cannot_delete_with_subresources');
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      errors: [
        {
          field: 'lock_type',
          reason: `The cannot_delete lock (Lock ID: ${first.body.id}) needs to be removed to add cannot_delete_with_subresources lock. Can only have one of: cannot_delete, cannot_delete_with_subresources locks`,
        },
      ],
    });
  });

  it('deleteCompute: refused while locked, allowed once the lock is deleted', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const l = await lock(t, 'compute', inst.id, 'cannot_delete');
    const refused = await t.del(`/v4/compute/instances/${inst.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toBe(
      `The cannot_delete lock (Lock ID: ${l.body.id}) needs to be removed to delete this Compute.`,
    );
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.status).not.toBe('deleting');
    expect((await t.del(`/v4beta/locks/${l.body.id}`)).status).toBe(200);
    expect((await t.get(`/v4beta/locks/${l.body.id}`)).status).toBe(404);
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
  });

  it('rebuildCompute: refused under either lock', async () => {
    const inst = await instance(t);
    await lock(t, 'compute', inst.id, 'cannot_delete');
    const r = await t.post(`/v4/compute/instances/${inst.id}/rebuild`, {
      image: 'compute/debian12',
      root_pass: 's3cr3t-P4ssw0rd!',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/needs to be removed to rebuild this Compute/);
  });

  it('deleteDisk: free under cannot_delete, refused under cannot_delete_with_subresources (configs, interfaces and IPs too)', async () => {
    const inst = await instance(t, 'g6-nanode-1', { booted: false });
    const disks = (await t.get(`/v4/compute/instances/${inst.id}/disks`)).body.data;
    const configs = (await t.get(`/v4/compute/instances/${inst.id}/configs`)).body.data;
    const l = await lock(t, 'compute', inst.id, 'cannot_delete');
    const swap = disks.find((d: { filesystem: string }) => d.filesystem === 'swap');
    expect((await t.del(`/v4/compute/instances/${inst.id}/disks/${swap.id}`)).status).toBe(200);
    await t.settle();
    await t.del(`/v4beta/locks/${l.body.id}`);
    await lock(t, 'compute', inst.id, 'cannot_delete_with_subresources');
    const other = disks.find((d: { filesystem: string }) => d.filesystem !== 'swap');
    const refused = await t.del(`/v4/compute/instances/${inst.id}/disks/${other.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(
      /cannot_delete_with_subresources lock \(Lock ID: \d+\) needs to be removed to delete the disks of this Compute/,
    );
    const cfg = await t.del(`/v4/compute/instances/${inst.id}/configs/${configs[0].id}`);
    expect(cfg.status).toBe(400);
    const added = await t.post(`/v4/compute/instances/${inst.id}/ips`, {
      type: 'ipv4',
      public: true,
    });
    expect(added.status, added.text).toBe(200);
    const ip = await t.del(`/v4/compute/instances/${inst.id}/ips/${added.body.address}`);
    expect(ip.status).toBe(400);
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(400);
  });

  it('deleteVolume and deleteNodeBalancer: refused while locked; NodeBalancer configs and nodes under cannot_delete_with_subresources', async () => {
    const vol = await volume(t);
    await t.settle();
    await lock(t, 'volume', vol.id, 'cannot_delete');
    expect((await t.get(`/v4/volumes/${vol.id}`)).body.locks).toEqual(['cannot_delete']);
    const rv = await t.del(`/v4/volumes/${vol.id}`);
    expect(rv.status).toBe(400);
    expect(rv.body.errors[0].reason).toMatch(/delete this Volume\.$/);

    const nb = await nodebalancer(t);
    const cfg = await t.post(`/v4/nodebalancers/${nb.id}/configs`, { port: 80 });
    expect(cfg.status, cfg.text).toBe(200);
    await lock(t, 'nodebalancer', nb.id, 'cannot_delete_with_subresources');
    expect((await t.get(`/v4/nodebalancers/${nb.id}`)).body.locks).toEqual([
      'cannot_delete_with_subresources',
    ]);
    expect((await t.del(`/v4/nodebalancers/${nb.id}/configs/${cfg.body.id}`)).status).toBe(400);
    const rebuild = await t.post(`/v4/nodebalancers/${nb.id}/configs/${cfg.body.id}/rebuild`, {
      port: 80,
      nodes: [],
    });
    expect(rebuild.status).toBe(400);
    const rn = await t.del(`/v4/nodebalancers/${nb.id}`);
    expect(rn.status).toBe(400);
    expect(rn.body.errors[0].reason).toMatch(/delete this NodeBalancer\.$/);
  });

  it('createServiceTransfer: a locked instance cannot be transferred', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    await lock(t, 'compute', inst.id, 'cannot_delete');
    const r = await t.post('/v4/account/service-transfers', { entities: { computes: [inst.id] } });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/needs to be removed to transfer this Compute/);
  });

  it('getResourceLocks: only unrestricted users read or manage locks, and only their account’s', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const l = await lock(t, 'compute', inst.id);
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_write' }],
    });
    expect((await t.get('/v4beta/locks', { token: u.token })).status).toBe(403);
    expect((await t.del(`/v4beta/locks/${l.body.id}`, { token: u.token })).status).toBe(403);
    const other = await secondAccount(t);
    const theirs = await t.get(`/v4beta/locks/${l.body.id}`, { token: other.token });
    expect(theirs.status).toBe(404);
    expect((await t.get('/v4beta/locks', { token: other.token })).body.results).toBe(0);
    const steal = await t.post(
      '/v4beta/locks',
      { entity_type: 'compute', entity_id: inst.id },
      { token: other.token },
    );
    expect(steal.body).toEqual({
      errors: [{ field: 'entity_id', reason: 'entity_id is not valid' }],
    });
  });
});
