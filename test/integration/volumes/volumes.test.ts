import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addConfig, configs, instance, volume, volumeEvents } from './fixtures.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field).sort();
const BUSY = { errors: [{ reason: 'Volume busy.' }] };

describe('volumes', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createVolume: creates an unattached volume that goes from creating to active, with its events', async () => {
    const r = await t.post('/v4/volumes', { label: 'data-1', region: 'us-east', tags: ['prod'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'data-1',
      filesystem_path: '/dev/disk/by-id/scsi-0Compute_Volume_data-1',
      hardware_type: 'nvme',
      compute_id: null,
      compute_label: null,
      region: 'us-east',
      size: 20,
      status: 'creating',
      tags: ['prod'],
      created: '2026-03-01T12:00:00',
    });
    expect((await volumeEvents(t, r.body.id)).map((e) => [e.action, e.status])).toEqual([
      ['volume_create', 'scheduled'],
    ]);
    await t.runDue();
    expect((await volumeEvents(t, r.body.id))[0]?.status).toBe('started');
    expect((await t.get(`/v4/volumes/${r.body.id}`)).body.status).toBe('creating');
    await t.settle();
    expect((await t.get(`/v4/volumes/${r.body.id}`)).body.status).toBe('active');
    const [ev] = await volumeEvents(t, r.body.id);
    expect(ev).toMatchObject({
      action: 'volume_create',
      status: 'finished',
      percent_complete: 100,
      secondary_entity: null,
    });
  });

  it('createVolume: hardware_type follows the region', async () => {
    expect((await volume(t, { region: 'us-west' })).hardware_type).toBe('hdd');
    expect((await volume(t, { region: 'us-east' })).hardware_type).toBe('nvme');
  });

  it('createVolume: label is 1..32 characters, a letter first, letters, digits, - and _, no -- or __', async () => {
    for (const bad of ['', 'x'.repeat(33), '1abc', '-abc', 'a--b', 'a__b', 'a b', 'a.b']) {
      const r = await t.post('/v4/volumes', { label: bad, region: 'us-east' });
      expect(r.status, bad).toBe(400);
      expect(fieldsOf(r), bad).toEqual(['label']);
    }
    for (const good of ['a', 'x'.repeat(32), 'a-_b9', 'Data_1-x']) {
      expect((await t.post('/v4/volumes', { label: good, region: 'us-east' })).status, good).toBe(
        200,
      );
    }
    expect(fieldsOf(await t.post('/v4/volumes', { region: 'us-east' }))).toEqual(['label']);
  });

  it('createVolume: size defaults to 20 and is 10..10240 GiB', async () => {
    for (const bad of [9, 10241, 0, -1]) {
      const r = await t.post('/v4/volumes', { label: 'v', region: 'us-east', size: bad });
      expect(r.status, String(bad)).toBe(400);
      expect(fieldsOf(r)).toEqual(['size']);
    }
    expect((await volume(t, { size: 10 })).size).toBe(10);
    expect((await volume(t, { size: 10240 })).size).toBe(10240);
    expect((await volume(t, { size: undefined })).size).toBe(20);
  });

  it('createVolume: region is required without compute_id and must offer block storage', async () => {
    expect(fieldsOf(await t.post('/v4/volumes', { label: 'v' }))).toEqual(['region']);
    expect(fieldsOf(await t.post('/v4/volumes', { label: 'v', region: 'nowhere' }))).toEqual([
      'region',
    ]);
    // eu-south has object storage only; ap-southeast has instances but no block storage.
    expect(fieldsOf(await t.post('/v4/volumes', { label: 'v', region: 'eu-south' }))).toEqual([
      'region',
    ]);
    expect(fieldsOf(await t.post('/v4/volumes', { label: 'v', region: 'ap-southeast' }))).toEqual([
      'region',
    ]);
  });

  it('createVolume: an instance in a region without block storage cannot have volumes', async () => {
    const inst = await instance(t, 'g6-nanode-1', { region: 'ap-southeast' });
    const r = await t.post('/v4/volumes', { label: 'v', compute_id: inst.id });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['compute_id']);
  });

  it('createVolume: config_id without compute_id is refused', async () => {
    const r = await t.post('/v4/volumes', { label: 'v', region: 'us-east', config_id: 1 });
    expect(fieldsOf(r)).toEqual(['config_id']);
  });

  it('createVolume: compute_id attaches at creation into a free slot of the config, in the instance region', async () => {
    const inst = await instance(t, 'g6-standard-1', { region: 'us-west' });
    const r = await t.post('/v4/volumes', { label: 'att', compute_id: inst.id });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      compute_id: inst.id,
      compute_label: inst.label,
      region: 'us-west',
      hardware_type: 'hdd',
      status: 'creating',
    });
    const [cfg] = await configs(t, inst.id);
    expect(cfg?.devices.sdc).toEqual({ volume_id: r.body.id });
    const [ev] = await volumeEvents(t, r.body.id);
    expect(ev?.secondary_entity).toMatchObject({ type: 'compute', id: inst.id, label: inst.label });
    await t.settle();
    expect((await t.get(`/v4/volumes/${r.body.id}`)).body).toMatchObject({
      status: 'active',
      compute_id: inst.id,
    });
  });

  it('createVolume: a region other than the instance region is refused', async () => {
    const inst = await instance(t);
    const r = await t.post('/v4/volumes', { label: 'v', compute_id: inst.id, region: 'us-west' });
    expect(fieldsOf(r)).toEqual(['region']);
  });

  it('createVolume: config_id must belong to that instance', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const [cfgB] = await configs(t, b.id);
    const r = await t.post('/v4/volumes', { label: 'v', compute_id: a.id, config_id: cfgB?.id });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['config_id']);
    const [cfgA] = await configs(t, a.id);
    expect(
      (await t.post('/v4/volumes', { label: 'v', compute_id: a.id, config_id: cfgA?.id })).status,
    ).toBe(200);
  });

  it('createVolume: with no config to choose, fails and creates nothing', async () => {
    const empty = await instance(t, 'g6-nanode-1', { empty: true });
    const r1 = await t.post('/v4/volumes', { label: 'v', compute_id: empty.id });
    expect(r1.status).toBe(400);
    // Two configs and none booted yet: no choice either.
    const off = await instance(t, 'g6-nanode-1', { booted: false });
    await addConfig(t, off.id);
    const r2 = await t.post('/v4/volumes', { label: 'v', compute_id: off.id });
    expect(r2.status).toBe(400);
    expect(fieldsOf(r2)).toEqual(['config_id']);
    expect(await t.ctx.db.db.selectFrom('volumes').selectAll().execute()).toEqual([]);
    expect(
      (await t.get('/v4/account/events', { filter: { action: 'volume_create' } })).body.results,
    ).toBe(0);
  });

  it('createVolume: without config_id, uses the last booted config when there are several', async () => {
    const inst = await instance(t);
    const [booted] = await configs(t, inst.id);
    await addConfig(t, inst.id);
    const r = await t.post('/v4/volumes', { label: 'v', compute_id: inst.id });
    expect(r.status).toBe(200);
    const all = await configs(t, inst.id);
    expect(all.find((c) => c.id === booted?.id)?.devices.sdc).toEqual({ volume_id: r.body.id });
  });

  it('createVolume: the attach limit applies (a 1 GB instance has at most one volume)', async () => {
    const inst = await instance(t, 'g6-nanode-1');
    expect((await t.post('/v4/volumes', { label: 'one', compute_id: inst.id })).status).toBe(200);
    const r = await t.post('/v4/volumes', { label: 'two', compute_id: inst.id });
    expect(r.status).toBe(400);
    expect(await t.ctx.db.db.selectFrom('volumes').selectAll().execute()).toHaveLength(1);
  });

  it('createVolume: tags are 3..50 characters', async () => {
    expect(
      fieldsOf(await t.post('/v4/volumes', { label: 'v', region: 'us-east', tags: ['ab'] })),
    ).toEqual(['tags.0']);
    expect(
      fieldsOf(
        await t.post('/v4/volumes', { label: 'v', region: 'us-east', tags: ['x'.repeat(51)] }),
      ),
    ).toEqual(['tags.0']);
    expect(
      (
        await t.post('/v4/volumes', {
          label: 'v',
          region: 'us-east',
          tags: ['abc', 'x'.repeat(50)],
        })
      ).status,
    ).toBe(200);
  });

  it('createVolume: needs the add_volumes grant; the creator gets read_write', async () => {
    const no = await createTestUser(t, { restricted: true });
    expect(
      (await t.post('/v4/volumes', { label: 'v', region: 'us-east' }, { token: no.token })).status,
    ).toBe(403);
    const yes = await createTestUser(t, { restricted: true, global: { add_volumes: true } });
    const r = await t.post('/v4/volumes', { label: 'v', region: 'us-east' }, { token: yes.token });
    expect(r.status).toBe(200);
    await t.settle();
    expect(
      (await t.put(`/v4/volumes/${r.body.id}`, { label: 'mine' }, { token: yes.token })).status,
    ).toBe(200);
  });

  it('createVolume: attaching at creation needs read_write on the instance and the computes:read_write scope', async () => {
    const inst = await instance(t);
    const ro = await createTestUser(t, {
      global: { add_volumes: true },
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    expect(
      (await t.post('/v4/volumes', { label: 'v', compute_id: inst.id }, { token: ro.token }))
        .status,
    ).toBe(403);
    const none = await createTestUser(t, { global: { add_volumes: true } });
    const hidden = await t.post(
      '/v4/volumes',
      { label: 'v', compute_id: inst.id },
      { token: none.token },
    );
    expect(fieldsOf(hidden)).toEqual(['compute_id']);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'volumes:read_write' });
    expect(
      (await t.post('/v4/volumes', { label: 'v', compute_id: inst.id }, { token: scoped.token }))
        .status,
    ).toBe(401);
    expect(
      (await t.post('/v4/volumes', { label: 'v', region: 'us-east' }, { token: scoped.token }))
        .status,
    ).toBe(200);
  });

  it('getVolumes: a restricted user sees only the volumes it has a grant on; get is 404 without one', async () => {
    const a = await volume(t, { label: 'a' });
    const b = await volume(t, { label: 'b' });
    const u = await createTestUser(t, {
      grants: [{ type: 'volume', id: a.id, permissions: 'read_only' }],
    });
    const list = await t.get('/v4/volumes', { token: u.token });
    expect(list.body.data.map((v: { id: number }) => v.id)).toEqual([a.id]);
    expect((await t.get(`/v4/volumes/${a.id}`, { token: u.token })).status).toBe(200);
    expect((await t.get(`/v4/volumes/${b.id}`, { token: u.token })).status).toBe(404);
    expect((await t.get('/v4/volumes')).body.results).toBe(2);
  });

  it('getVolumes: filters on label and tags, and refuses other fields', async () => {
    await volume(t, { label: 'alpha', tags: ['dbs'] });
    await volume(t, { label: 'beta', tags: ['web'] });
    expect(
      (await t.get('/v4/volumes', { filter: { label: 'alpha' } })).body.data.map(
        (v: { label: string }) => v.label,
      ),
    ).toEqual(['alpha']);
    expect(
      (await t.get('/v4/volumes', { filter: { tags: 'web' } })).body.data.map(
        (v: { label: string }) => v.label,
      ),
    ).toEqual(['beta']);
    expect((await t.get('/v4/volumes', { filter: { size: 20 } })).status).toBe(400);
  });

  it('getVolume: a volume of another account is not found', async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    const theirs = await volume(t, {}, other.token);
    expect((await t.get(`/v4/volumes/${theirs.id}`)).status).toBe(404);
    expect((await t.get('/v4/volumes')).body.results).toBe(0);
    expect((await t.get(`/v4/volumes/${theirs.id}`, { token: other.token })).status).toBe(200);
  });

  it('updateVolume: changes label and tags only, with a volume_update event', async () => {
    const v = await volume(t, { label: 'old', size: 30 });
    await t.settle();
    const r = await t.put(`/v4/volumes/${v.id}`, {
      label: 'new',
      tags: ['abc'],
      size: 99,
      compute_id: 5,
      region: 'us-west',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'new',
      tags: ['abc'],
      size: 30,
      compute_id: null,
      region: 'us-east',
      filesystem_path: '/dev/disk/by-id/scsi-0Compute_Volume_new',
    });
    expect(fieldsOf(await t.put(`/v4/volumes/${v.id}`, { label: 'a--b' }))).toEqual(['label']);
    const ev = await volumeEvents(t, v.id, 'volume_update');
    expect(ev.map((e) => [e.status, e.entity.label])).toEqual([['notification', 'new']]);
  });

  it('updateVolume: a read_only grant cannot write (403); no grant is 404', async () => {
    const v = await volume(t);
    const ro = await createTestUser(t, {
      grants: [{ type: 'volume', id: v.id, permissions: 'read_only' }],
    });
    expect((await t.put(`/v4/volumes/${v.id}`, { label: 'x' }, { token: ro.token })).status).toBe(
      403,
    );
    const none = await createTestUser(t);
    expect((await t.put(`/v4/volumes/${v.id}`, { label: 'x' }, { token: none.token })).status).toBe(
      404,
    );
    expect((await t.del(`/v4/volumes/${v.id}`, { token: ro.token })).status).toBe(403);
  });

  it('deleteVolume: removes the volume, its tags and grants, with a volume_delete event', async () => {
    const u = await createTestUser(t, { global: { add_volumes: true } });
    const v = await volume(t, { tags: ['abc'] }, u.token);
    await t.settle();
    expect((await t.del(`/v4/volumes/${v.id}`, { token: u.token })).body).toEqual({});
    expect((await t.get(`/v4/volumes/${v.id}`)).status).toBe(404);
    expect(
      await t.ctx.db.db
        .selectFrom('entity_tags')
        .selectAll()
        .where('entity_type', '=', 'volume')
        .execute(),
    ).toEqual([]);
    expect(
      await t.ctx.db.db
        .selectFrom('entity_grants')
        .selectAll()
        .where('entity_type', '=', 'volume')
        .execute(),
    ).toEqual([]);
    expect((await volumeEvents(t, v.id, 'volume_delete')).map((e) => e.status)).toEqual([
      'notification',
    ]);
  });

  it('deleteVolume: an attached volume leaves the config devices; the event names the instance', async () => {
    const inst = await instance(t);
    const v = await volume(t, { compute_id: inst.id, region: undefined });
    await t.settle();
    expect((await t.del(`/v4/volumes/${v.id}`)).status).toBe(200);
    const [cfg] = await configs(t, inst.id);
    expect(cfg?.devices.sdc).toBeNull();
    const [ev] = await volumeEvents(t, v.id, 'volume_delete');
    expect(ev?.secondary_entity).toMatchObject({ type: 'compute', id: inst.id });
  });

  it('deleteVolume: refused while the volume is migrating (with its instance)', async () => {
    const inst = await instance(t);
    const v = await volume(t, { compute_id: inst.id, region: undefined });
    await t.settle();
    await t.ctx.db.db
      .updateTable('instances')
      .set({ status: 'migrating' })
      .where('id', '=', inst.id)
      .execute();
    const r = await t.del(`/v4/volumes/${v.id}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/migrating/);
    await t.ctx.db.db
      .updateTable('instances')
      .set({ status: 'running' })
      .where('id', '=', inst.id)
      .execute();
    expect((await t.del(`/v4/volumes/${v.id}`)).status).toBe(200);
  });

  it('deleteVolume: refused while work is under way', async () => {
    const v = await volume(t);
    const r = await t.del(`/v4/volumes/${v.id}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(BUSY);
  });

  it('resizeVolume: only upwards, at most 10240; resizing then active, with a volume_resize event', async () => {
    const v = await volume(t, { size: 20 });
    await t.settle();
    expect(fieldsOf(await t.post(`/v4/volumes/${v.id}/resize`, { size: 20 }))).toEqual(['size']);
    expect(fieldsOf(await t.post(`/v4/volumes/${v.id}/resize`, { size: 15 }))).toEqual(['size']);
    expect(fieldsOf(await t.post(`/v4/volumes/${v.id}/resize`, { size: 10241 }))).toEqual(['size']);
    expect(fieldsOf(await t.post(`/v4/volumes/${v.id}/resize`, {}))).toEqual(['size']);
    const r = await t.post(`/v4/volumes/${v.id}/resize`, { size: 21 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ size: 21, status: 'resizing' });
    expect(await t.post(`/v4/volumes/${v.id}/resize`, { size: 30 })).toMatchObject({
      status: 400,
      body: BUSY,
    });
    await t.settle();
    expect((await t.get(`/v4/volumes/${v.id}`)).body).toMatchObject({ size: 21, status: 'active' });
    expect((await t.post(`/v4/volumes/${v.id}/resize`, { size: 10240 })).status).toBe(200);
    const ev = await volumeEvents(t, v.id, 'volume_resize');
    expect(ev.map((e) => e.status)).toEqual(['finished', 'scheduled']);
  });

  it('resizeVolume: only when active (refused while creating)', async () => {
    const v = await volume(t);
    expect(await t.post(`/v4/volumes/${v.id}/resize`, { size: 30 })).toMatchObject({
      status: 400,
      body: BUSY,
    });
  });

  it('resizeVolume: needs read_write on the volume', async () => {
    const v = await volume(t);
    await t.settle();
    const ro = await createTestUser(t, {
      grants: [{ type: 'volume', id: v.id, permissions: 'read_only' }],
    });
    expect(
      (await t.post(`/v4/volumes/${v.id}/resize`, { size: 30 }, { token: ro.token })).status,
    ).toBe(403);
  });

  it('cloneVolume: same size and region, creating until done, the source busy meanwhile', async () => {
    const src = await volume(t, { label: 'src', size: 35, region: 'us-west' });
    await t.settle();
    const r = await t.post(`/v4/volumes/${src.id}/clone`, { label: 'copy' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'copy',
      size: 35,
      region: 'us-west',
      hardware_type: 'hdd',
      status: 'creating',
      compute_id: null,
    });
    expect(r.body.id).not.toBe(src.id);
    expect(await t.post(`/v4/volumes/${src.id}/resize`, { size: 40 })).toMatchObject({
      status: 400,
      body: BUSY,
    });
    expect(await t.post(`/v4/volumes/${src.id}/clone`, { label: 'again' })).toMatchObject({
      status: 400,
      body: BUSY,
    });
    // The clone itself is not active yet: it cannot be resized or cloned.
    expect(await t.post(`/v4/volumes/${r.body.id}/resize`, { size: 40 })).toMatchObject({
      status: 400,
      body: BUSY,
    });
    await t.settle();
    expect((await t.get(`/v4/volumes/${r.body.id}`)).body.status).toBe('active');
    expect((await t.post(`/v4/volumes/${src.id}/resize`, { size: 40 })).status).toBe(200);
    const [ev] = await volumeEvents(t, src.id, 'volume_clone');
    expect(ev).toMatchObject({
      status: 'finished',
      entity: { id: src.id },
      secondary_entity: { type: 'volume', id: r.body.id },
    });
  });

  it('cloneVolume: the source must be active', async () => {
    const src = await volume(t);
    expect(await t.post(`/v4/volumes/${src.id}/clone`, { label: 'copy' })).toMatchObject({
      status: 400,
      body: BUSY,
    });
  });

  it('cloneVolume: label follows the volume label rules', async () => {
    const src = await volume(t);
    await t.settle();
    expect(fieldsOf(await t.post(`/v4/volumes/${src.id}/clone`, {}))).toEqual(['label']);
    expect(
      fieldsOf(await t.post(`/v4/volumes/${src.id}/clone`, { label: 'x'.repeat(33) })),
    ).toEqual(['label']);
    expect((await t.post(`/v4/volumes/${src.id}/clone`, { label: 'x'.repeat(32) })).status).toBe(
      200,
    );
  });

  it('cloneVolume: needs the add_volumes grant and a grant on the source', async () => {
    const src = await volume(t);
    await t.settle();
    const noAdd = await createTestUser(t, {
      grants: [{ type: 'volume', id: src.id, permissions: 'read_write' }],
    });
    expect(
      (await t.post(`/v4/volumes/${src.id}/clone`, { label: 'c' }, { token: noAdd.token })).status,
    ).toBe(403);
    const noGrant = await createTestUser(t, { global: { add_volumes: true } });
    expect(
      (await t.post(`/v4/volumes/${src.id}/clone`, { label: 'c' }, { token: noGrant.token }))
        .status,
    ).toBe(404);
    const ok = await createTestUser(t, {
      global: { add_volumes: true },
      grants: [{ type: 'volume', id: src.id, permissions: 'read_only' }],
    });
    const r = await t.post(`/v4/volumes/${src.id}/clone`, { label: 'c' }, { token: ok.token });
    expect(r.status).toBe(200);
    expect((await t.get(`/v4/volumes/${r.body.id}`, { token: ok.token })).status).toBe(200);
  });
});

describe('volumes with rate limits on', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ rateLimits: true });
  });
  afterEach(async () => {
    await t.close();
  });

  it('createVolume: 25 creates a minute per token; the 26th is 429', async () => {
    for (let i = 0; i < 25; i++) {
      const r = await t.post('/v4/volumes', { label: `v${i}`, region: 'us-east' });
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe('25');
    }
    const r = await t.post('/v4/volumes', { label: 'v26', region: 'us-east' });
    expect(r.status).toBe(429);
    t.clock.advance(60_000);
    expect((await t.post('/v4/volumes', { label: 'v27', region: 'us-east' })).status).toBe(200);
  });
});
