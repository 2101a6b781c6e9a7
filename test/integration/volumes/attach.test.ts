import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addConfig, attach, configs, instance, volume, volumeEvents, volumes } from './fixtures.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field).sort();

/** Attaches each volume in turn; returns the statuses. */
async function attachAll(
  t: TestApp,
  ids: number[],
  computeId: number,
  persist: boolean,
): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids)
    out.push(
      (await attach(t, id, { compute_id: computeId, persist_across_boots: persist })).status,
    );
  return out;
}

const attachedCount = async (t: TestApp, computeId: number) =>
  (
    await t.ctx.db.db
      .selectFrom('volumes')
      .select('id')
      .where('compute_id', '=', computeId)
      .execute()
  ).length;

describe('volume attach and detach', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getVolume: io_ready only while active, attached and its instance running; not-used encryption and locks', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    const detached = (await t.get(`/v4/volumes/${v}`)).body;
    expect(detached).toMatchObject({ io_ready: false, encryption: 'disabled', locks: [] });
    await attach(t, v as number, { compute_id: inst.id });
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.status).toBe('running');
    expect((await t.get(`/v4/volumes/${v}`)).body.io_ready).toBe(true);
    await t.post(`/v4/compute/instances/${inst.id}/shutdown`);
    await t.settle();
    expect((await t.get(`/v4/volumes/${v}`)).body.io_ready).toBe(false);
  });

  it('attachVolume: puts the volume into the first free slot of the config, with a volume_attach event', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    const r = await attach(t, v as number, { compute_id: inst.id });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: v,
      compute_id: inst.id,
      compute_label: inst.label,
      status: 'active',
    });
    const [cfg] = await configs(t, inst.id);
    expect(cfg?.devices).toMatchObject({ sdc: { volume_id: v }, sdd: null });
    const [ev] = await volumeEvents(t, v as number, 'volume_attach');
    expect(ev).toMatchObject({
      status: 'finished',
      entity: { type: 'volume', id: v },
      secondary_entity: { type: 'compute', id: inst.id, label: inst.label },
    });
  });

  it('attachVolume: rejects a volume in another region', async () => {
    const inst = await instance(t, 'g6-standard-1', { region: 'us-east' });
    const [v] = await volumes(t, 1, 'us-west');
    const r = await attach(t, v as number, { compute_id: inst.id });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['compute_id']);
    expect(await attachedCount(t, inst.id)).toBe(0);
  });

  it('attachVolume: config_id must belong to the instance', async () => {
    const a = await instance(t, 'g6-standard-1');
    const b = await instance(t, 'g6-standard-1');
    const [cfgB] = await configs(t, b.id);
    const [v] = await volumes(t, 1);
    const r = await attach(t, v as number, { compute_id: a.id, config_id: cfgB?.id });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['config_id']);
    const r2 = await attach(t, v as number, {
      compute_id: a.id,
      config_id: cfgB?.id,
      persist_across_boots: false,
    });
    expect(fieldsOf(r2)).toEqual(['config_id']);
  });

  it('attachVolume: config_id picks the config; without it the last booted config is used', async () => {
    const inst = await instance(t, 'g6-standard-2');
    const [booted] = await configs(t, inst.id);
    const extra = await addConfig(t, inst.id);
    const [v1, v2] = await volumes(t, 2);
    expect((await attach(t, v1 as number, { compute_id: inst.id, config_id: extra })).status).toBe(
      200,
    );
    expect((await attach(t, v2 as number, { compute_id: inst.id })).status).toBe(200);
    const byId = new Map((await configs(t, inst.id)).map((c) => [c.id, c.devices]));
    expect(byId.get(extra)?.sda).toEqual({ volume_id: v1 });
    expect(byId.get(booted?.id as number)?.sdc).toEqual({ volume_id: v2 });
  });

  it('attachVolume: with no config to choose, a persistent attach fails; a non-persistent one needs none', async () => {
    const empty = await instance(t, 'g6-standard-1', { empty: true });
    const [v] = await volumes(t, 1);
    const r = await attach(t, v as number, { compute_id: empty.id });
    expect(r.status).toBe(400);
    expect((await t.get(`/v4/volumes/${v}`)).body.compute_id).toBeNull();
    expect(
      (await attach(t, v as number, { compute_id: empty.id, persist_across_boots: false })).status,
    ).toBe(200);
  });

  it('attachVolume: persist_across_boots false leaves the config untouched', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const before = await configs(t, inst.id);
    const [v] = await volumes(t, 1);
    const r = await attach(t, v as number, { compute_id: inst.id, persist_across_boots: false });
    expect(r.status).toBe(200);
    expect(r.body.compute_id).toBe(inst.id);
    expect(await configs(t, inst.id)).toEqual(before);
  });

  it('attachVolume: a config with no free device slot is refused', async () => {
    const inst = await instance(t, 'g6-standard-4');
    const ids = await volumes(t, 7);
    // sda and sdb hold the disks: six slots are free.
    expect(await attachAll(t, ids.slice(0, 6), inst.id, true)).toEqual([
      200, 200, 200, 200, 200, 200,
    ]);
    const r = await attach(t, ids[6] as number, { compute_id: inst.id });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['config_id']);
    expect(
      (await attach(t, ids[6] as number, { compute_id: inst.id, persist_across_boots: false }))
        .status,
    ).toBe(200);
  });

  it('attachVolume: a volume attached elsewhere (or here) cannot be attached again', async () => {
    const a = await instance(t, 'g6-standard-1');
    const b = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    expect((await attach(t, v as number, { compute_id: a.id })).status).toBe(200);
    expect((await attach(t, v as number, { compute_id: b.id })).status).toBe(400);
    expect((await attach(t, v as number, { compute_id: a.id })).status).toBe(400);
    expect((await t.get(`/v4/volumes/${v}`)).body.compute_id).toBe(a.id);
  });

  it('attachVolume: refused while the volume is being created', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const v = await volume(t);
    const r = await attach(t, v.id, { compute_id: inst.id });
    expect(r.body).toEqual({ errors: [{ reason: 'Volume busy.' }] });
  });

  it('attachVolume: refused on an instance being deleted', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
    const r = await attach(t, v as number, { compute_id: inst.id });
    expect(r.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('attachVolume: an unknown instance is a compute_id error', async () => {
    const [v] = await volumes(t, 1);
    expect(fieldsOf(await attach(t, v as number, { compute_id: 999_999 }))).toEqual(['compute_id']);
    expect(fieldsOf(await attach(t, v as number, {}))).toEqual(['compute_id']);
  });

  it('attachVolume: needs volumes:read_write and computes:read_write scopes', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    const volOnly = await createTestUser(t, {
      restricted: false,
      scopes: 'volumes:read_write computes:read_only',
    });
    expect((await attach(t, v as number, { compute_id: inst.id }, volOnly.token)).status).toBe(401);
    const both = await createTestUser(t, {
      restricted: false,
      scopes: 'volumes:read_write computes:read_write',
    });
    expect((await attach(t, v as number, { compute_id: inst.id }, both.token)).status).toBe(200);
    expect(
      (await t.post(`/v4/volumes/${v}/detach`, undefined, { token: volOnly.token })).status,
    ).toBe(401);
  });

  it('attachVolume: a restricted user needs read_write on the volume and on the instance', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    const vol = { type: 'volume', id: v as number };
    const comp = { type: 'compute', id: inst.id };
    const roInst = await createTestUser(t, {
      grants: [
        { ...vol, permissions: 'read_write' },
        { ...comp, permissions: 'read_only' },
      ],
    });
    expect((await attach(t, v as number, { compute_id: inst.id }, roInst.token)).status).toBe(403);
    const roVol = await createTestUser(t, {
      grants: [
        { ...vol, permissions: 'read_only' },
        { ...comp, permissions: 'read_write' },
      ],
    });
    expect((await attach(t, v as number, { compute_id: inst.id }, roVol.token)).status).toBe(403);
    const noInst = await createTestUser(t, { grants: [{ ...vol, permissions: 'read_write' }] });
    expect(fieldsOf(await attach(t, v as number, { compute_id: inst.id }, noInst.token))).toEqual([
      'compute_id',
    ]);
    const rw = await createTestUser(t, {
      grants: [
        { ...vol, permissions: 'read_write' },
        { ...comp, permissions: 'read_write' },
      ],
    });
    expect((await attach(t, v as number, { compute_id: inst.id }, rw.token)).status).toBe(200);
    expect(
      (await t.post(`/v4/volumes/${v}/detach`, undefined, { token: roInst.token })).status,
    ).toBe(403);
    expect((await t.post(`/v4/volumes/${v}/detach`, undefined, { token: rw.token })).status).toBe(
      200,
    );
  });

  it('attachVolume: a 1 GB instance takes one volume, not two', async () => {
    const inst = await instance(t, 'g6-nanode-1');
    const ids = await volumes(t, 2);
    expect(await attachAll(t, ids, inst.id, false)).toEqual([200, 400]);
  });

  it('attachVolume: an 8 GB instance takes eight volumes, not nine (even with persist_across_boots false)', async () => {
    const inst = await instance(t, 'g6-standard-4');
    const ids = await volumes(t, 9);
    expect(await attachAll(t, ids.slice(0, 6), inst.id, true)).toEqual(Array(6).fill(200));
    expect(await attachAll(t, ids.slice(6), inst.id, false)).toEqual([200, 200, 400]);
    expect(await attachedCount(t, inst.id)).toBe(8);
  });

  it('attachVolume: past eight volumes only with persist_across_boots false on 16 GB; sixteen at most', async () => {
    const inst = await instance(t, 'g6-standard-6');
    const ids = await volumes(t, 17);
    // Eight persistent ones: the boot config's six free slots and a second config's two.
    const extra = await addConfig(t, inst.id);
    expect(await attachAll(t, ids.slice(0, 6), inst.id, true)).toEqual(Array(6).fill(200));
    for (const id of ids.slice(6, 8))
      expect((await attach(t, id, { compute_id: inst.id, config_id: extra })).status).toBe(200);
    const ninth = await attach(t, ids[8] as number, { compute_id: inst.id, config_id: extra });
    expect(ninth.status).toBe(400);
    expect(fieldsOf(ninth)).toEqual(['persist_across_boots']);
    expect(await attachAll(t, ids.slice(8), inst.id, false)).toEqual([...Array(8).fill(200), 400]);
    expect(await attachedCount(t, inst.id)).toBe(16);
  });

  it('attachVolume: never more than 64 volumes, whatever the RAM', async () => {
    const inst = await instance(t, 'g6-standard-20'); // 96 GB
    const ids = await volumes(t, 65);
    const statuses = await attachAll(t, ids, inst.id, false);
    expect(statuses.slice(0, 64).every((s) => s === 200)).toBe(true);
    expect(statuses[64]).toBe(400);
    expect(await attachedCount(t, inst.id)).toBe(64);
  }, 120_000); // 65 volumes through the API and their jobs: slow on a loaded machine

  it('attachVolume: concurrent attaches of one volume to two instances: exactly one succeeds', async () => {
    const a = await instance(t, 'g6-standard-1');
    const b = await instance(t, 'g6-standard-1');
    for (let round = 0; round < 3; round++) {
      const [v] = await volumes(t, 1);
      const results = await Promise.all([
        attach(t, v as number, { compute_id: a.id }),
        attach(t, v as number, { compute_id: b.id }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      const winner = results.find((r) => r.status === 200)?.body.compute_id;
      expect((await t.get(`/v4/volumes/${v}`)).body.compute_id).toBe(winner);
      const slots = (await configs(t, a.id))
        .concat(await configs(t, b.id))
        .flatMap((c) => Object.values(c.devices));
      expect(
        slots.filter((d) => JSON.stringify(d) === JSON.stringify({ volume_id: v })),
      ).toHaveLength(1);
      await t.post(`/v4/volumes/${v}/detach`);
    }
  });

  it('attachVolume: concurrent attaches of many volumes to one instance never exceed its limit', async () => {
    const inst = await instance(t, 'g6-standard-2'); // 4 GB: four volumes
    const ids = await volumes(t, 10);
    const results = await Promise.all(
      ids.map((id) => attach(t, id, { compute_id: inst.id, persist_across_boots: id % 2 === 0 })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(await attachedCount(t, inst.id)).toBe(4);
  });

  it('detachVolume: removes the volume from the instance and its config devices, with an event', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v] = await volumes(t, 1);
    await attach(t, v as number, { compute_id: inst.id });
    const r = await t.post(`/v4/volumes/${v}/detach`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(`/v4/volumes/${v}`)).body).toMatchObject({
      compute_id: null,
      compute_label: null,
    });
    const [cfg] = await configs(t, inst.id);
    expect(cfg?.devices.sdc).toBeNull();
    const [ev] = await volumeEvents(t, v as number, 'volume_detach');
    expect(ev).toMatchObject({
      status: 'finished',
      secondary_entity: { type: 'compute', id: inst.id },
    });
    // Detached, it can go elsewhere; detaching again is refused.
    expect((await t.post(`/v4/volumes/${v}/detach`)).status).toBe(400);
    expect((await attach(t, v as number, { compute_id: inst.id })).status).toBe(200);
  });

  it('deleteComputeInstance: detaches its volumes, which remain', async () => {
    const inst = await instance(t, 'g6-standard-1');
    const [v1, v2] = await volumes(t, 2);
    await attach(t, v1 as number, { compute_id: inst.id });
    await attach(t, v2 as number, { compute_id: inst.id, persist_across_boots: false });
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
    await t.settle();
    for (const v of [v1, v2]) {
      expect((await t.get(`/v4/volumes/${v}`)).body).toMatchObject({
        compute_id: null,
        compute_label: null,
        status: 'active',
      });
      const [ev] = await volumeEvents(t, v as number, 'volume_detach');
      expect(ev?.secondary_entity).toMatchObject({ type: 'compute', id: inst.id });
    }
  });

  it('getComputeVolumes: lists the volumes attached to the instance, as the caller may see them', async () => {
    const inst = await instance(t, 'g6-standard-2');
    const other = await instance(t, 'g6-standard-1');
    const [v1, v2, v3] = await volumes(t, 3);
    await attach(t, v1 as number, { compute_id: inst.id });
    await attach(t, v2 as number, { compute_id: inst.id, persist_across_boots: false });
    await attach(t, v3 as number, { compute_id: other.id });
    const r = await t.get(`/v4/compute/instances/${inst.id}/volumes`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(r.body.data.map((v: { id: number }) => v.id)).toEqual([v1, v2]);
    expect(
      (await t.get(`/v4/compute/instances/${inst.id}/volumes`, { filter: { label: 'v1' } })).body
        .results,
    ).toBe(1);
    const u = await createTestUser(t, {
      grants: [
        { type: 'compute', id: inst.id, permissions: 'read_only' },
        { type: 'volume', id: v2 as number, permissions: 'read_only' },
      ],
    });
    expect(
      (await t.get(`/v4/compute/instances/${inst.id}/volumes`, { token: u.token })).body.data.map(
        (v: { id: number }) => v.id,
      ),
    ).toEqual([v2]);
    expect(
      (await t.get(`/v4/compute/instances/${other.id}/volumes`, { token: u.token })).status,
    ).toBe(404);
    expect((await t.get('/v4/compute/instances/999999/volumes')).status).toBe(404);
  });
});
