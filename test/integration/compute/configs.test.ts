import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';

describe('compute instance configuration profiles', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const configsUrl = (id: number) => `/v4/compute/instances/${id}/configs`;
  /** An offline instance with two empty disks. */
  const instanceWithDisks = async (type = 'g6-nanode-1') => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type });
    await t.settle();
    const id = r.body.id as number;
    const a = (await t.post(`/v4/compute/instances/${id}/disks`, { size: 1000, label: 'a' })).body
      .id as number;
    const b = (await t.post(`/v4/compute/instances/${id}/disks`, { size: 1000, label: 'b' })).body
      .id as number;
    await t.settle();
    return { id, a, b };
  };
  const addVolume = async (computeId: number | null, label: string) => {
    const row = await t.ctx.db.db
      .insertInto('volumes')
      .values({
        account_id: t.admin.accountId,
        label,
        region: 'us-east',
        size: 20,
        status: 'active',
        hardware_type: 'nvme',
        compute_id: computeId,
        persist_across_boots: 0,
        created: '2026-03-01T12:00:00',
        updated: '2026-03-01T12:00:00',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const lastBooted = async (id: number) =>
    (
      await t.ctx.db.db
        .selectFrom('instances')
        .select('last_booted_config_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).last_booted_config_id;

  it('addComputeConfig: the defaults of every field, and a compute_config_create notification', async () => {
    const { id, a } = await instanceWithDisks();
    const r = await t.post(configsUrl(id), { label: 'main', devices: { sda: { disk_id: a } } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: r.body.id,
      label: 'main',
      kernel: 'compute/latest-64bit',
      comments: '',
      memory_limit: 0,
      run_level: 'default',
      virt_mode: 'paravirt',
      root_device: '/dev/sda',
      helpers: {
        updatedb_disabled: true,
        distro: true,
        modules_dep: true,
        network: true,
        devtmpfs_automount: true,
      },
      devices: {
        sda: { disk_id: a, volume_id: null },
        sdb: null,
        sdc: null,
        sdd: null,
        sde: null,
        sdf: null,
        sdg: null,
        sdh: null,
      },
      interfaces: [],
      initrd: null,
      created: r.body.created,
      updated: r.body.updated,
    });
    expect(typeof r.body.created).toBe('string');
    const ev = await t.get('/v4/account/events', {
      filter: { 'entity.id': id, action: 'compute_config_create' },
    });
    expect(ev.body.data[0]).toMatchObject({
      status: 'notification',
      entity: { type: 'compute', id },
    });
    expect((await t.get(`${configsUrl(id)}/${r.body.id}`)).body).toEqual(r.body);
  });

  it('addComputeConfig: label and devices are required; an empty devices object is allowed', async () => {
    const { id } = await instanceWithDisks();
    const none = await t.post(configsUrl(id), {});
    expect(none.status).toBe(400);
    expect(none.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'devices',
      'label',
    ]);
    expect(
      (await t.post(configsUrl(id), { label: 'x'.repeat(49), devices: {} })).body.errors[0].field,
    ).toBe('label');
    expect((await t.post(configsUrl(id), { label: 'empty', devices: {} })).status).toBe(200);
  });

  it('addComputeConfig: every field as given', async () => {
    const { id, a, b } = await instanceWithDisks();
    const volume = await addVolume(id, 'vol');
    const r = await t.post(configsUrl(id), {
      label: 'custom',
      devices: { sda: { disk_id: a }, sdb: { disk_id: b }, sdc: { volume_id: volume }, sdd: null },
      kernel: 'compute/grub2',
      comments: 'notes',
      memory_limit: 512,
      root_device: '/dev/sdb',
      run_level: 'binbash',
      virt_mode: 'fullvirt',
      helpers: { network: false, distro: false },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      kernel: 'compute/grub2',
      comments: 'notes',
      memory_limit: 512,
      root_device: '/dev/sdb',
      run_level: 'binbash',
      virt_mode: 'fullvirt',
      helpers: {
        updatedb_disabled: true,
        distro: false,
        modules_dep: true,
        network: false,
        devtmpfs_automount: true,
      },
    });
    expect(r.body.devices.sdc).toEqual({ disk_id: null, volume_id: volume });
  });

  it('addComputeConfig: devices are disks of this instance or volumes attached to it, each used once', async () => {
    const { id, a } = await instanceWithDisks();
    const other = await instanceWithDisks();
    const loose = await addVolume(null, 'loose');
    const elsewhere = await addVolume(other.id, 'elsewhere');
    const r = await t.post(configsUrl(id), {
      label: 'bad',
      devices: {
        sda: { disk_id: other.a },
        sdb: { volume_id: loose },
        sdc: { volume_id: elsewhere },
        sdd: { disk_id: a },
        sde: { disk_id: a },
        sdf: { disk_id: a, volume_id: loose },
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'devices.sda.disk_id',
      'devices.sdb.volume_id',
      'devices.sdc.volume_id',
      'devices.sde',
      'devices.sdf',
    ]);
  });

  it('addComputeConfig: sde to sdh are unavailable in fullvirt', async () => {
    const { id, a } = await instanceWithDisks();
    const full = await t.post(configsUrl(id), {
      label: 'f',
      virt_mode: 'fullvirt',
      devices: { sdh: { disk_id: a } },
    });
    expect(full.body.errors).toEqual([
      { field: 'devices.sdh', reason: 'sde to sdh are unavailable with virt_mode fullvirt' },
    ]);
    const para = await t.post(configsUrl(id), { label: 'p', devices: { sdh: { disk_id: a } } });
    expect(para.status).toBe(200);
    // Switching that config to fullvirt is refused as well.
    const sw = await t.put(`${configsUrl(id)}/${para.body.id}`, { virt_mode: 'fullvirt' });
    expect(sw.body.errors).toEqual([
      { field: 'devices.sdh', reason: 'sde to sdh are unavailable with virt_mode fullvirt' },
    ]);
  });

  it('addComputeConfig: the kernel must exist, memory_limit at most the plan memory, enums checked', async () => {
    const { id } = await instanceWithDisks();
    const r = await t.post(configsUrl(id), {
      label: 'x',
      devices: {},
      kernel: 'compute/nope',
      memory_limit: 1025,
    });
    expect(r.body.errors).toEqual([
      { field: 'kernel', reason: 'kernel is not valid' },
      {
        field: 'memory_limit',
        reason: "memory_limit must be between 0 and 1024 (0: all of the plan's memory)",
      },
    ]);
    expect(
      (await t.post(configsUrl(id), { label: 'x', devices: {}, memory_limit: -1 })).body.errors[0]
        .field,
    ).toBe('memory_limit');
    expect(
      (await t.post(configsUrl(id), { label: 'x', devices: {}, run_level: 'multi' })).body.errors[0]
        .field,
    ).toBe('run_level');
    expect(
      (await t.post(configsUrl(id), { label: 'x', devices: {}, virt_mode: 'hvm' })).body.errors[0]
        .field,
    ).toBe('virt_mode');
    expect(
      (await t.post(configsUrl(id), { label: 'x', devices: {}, memory_limit: 1024 })).status,
    ).toBe(200);
  });

  it('addComputeConfig: a malformed root_device becomes /dev/sda', async () => {
    const { id } = await instanceWithDisks();
    const r = await t.post(configsUrl(id), {
      label: 'x',
      devices: {},
      root_device: '/dev/sda; rm -rf',
    });
    expect(r.body.root_device).toBe('/dev/sda');
    const ok = await t.post(configsUrl(id), {
      label: 'y',
      devices: {},
      root_device: '/dev/disk/by-label_root-1',
    });
    expect(ok.body.root_device).toBe('/dev/disk/by-label_root-1');
  });

  it('addComputeConfig: interfaces: [] gives one public interface; the purpose rules apply', async () => {
    const { id } = await instanceWithDisks();
    const pub = await t.post(configsUrl(id), { label: 'x', devices: {}, interfaces: [] });
    expect(pub.body.interfaces).toEqual([
      {
        id: pub.body.interfaces[0].id,
        purpose: 'public',
        label: null,
        ipam_address: null,
        active: false,
        primary: false,
        vpc_id: null,
        subnet_id: null,
        ipv4: null,
        ip_ranges: null,
        ipv6: null,
      },
    ]);
    const bad = await t.post(configsUrl(id), {
      label: 'x',
      devices: {},
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan' }, { purpose: 'vpc', subnet_id: 5 }],
    });
    expect(bad.body.errors).toEqual([
      { field: 'interfaces.1.label', reason: 'label is required for a vlan interface' },
      { field: 'interfaces.2.subnet_id', reason: 'Subnet not found' },
    ]);
    const twice = await t.post(configsUrl(id), {
      label: 'x',
      devices: {},
      interfaces: [
        { purpose: 'vlan', label: 'v1' },
        { purpose: 'vlan', label: 'v1' },
      ],
    });
    expect(twice.body.errors[0].field).toBe('interfaces.1.label');
  });

  it('addComputeConfig: a vlan ipam_address must be unique among the instance interfaces', async () => {
    const { id } = await instanceWithDisks();
    const vlan = (ipam: string) => ({ purpose: 'vlan', label: 'v1', ipam_address: ipam });
    const one = await t.post(configsUrl(id), {
      label: 'one',
      devices: {},
      interfaces: [vlan('10.0.0.1/24')],
    });
    expect(one.status).toBe(200);
    const two = await t.post(configsUrl(id), {
      label: 'two',
      devices: {},
      interfaces: [vlan('10.0.0.1/24')],
    });
    expect(two.body.errors).toEqual([
      {
        field: 'interfaces.0.ipam_address',
        reason: 'ipam_address must be unique among the instance\u2019s interfaces',
      },
    ]);
    // Re-sending a config's own address on update is no conflict.
    const same = await t.put(`${configsUrl(id)}/${one.body.id}`, {
      interfaces: [vlan('10.0.0.1/24')],
    });
    expect(same.status).toBe(200);
    // Another instance may use the same address.
    const other = await instanceWithDisks();
    expect(
      (
        await t.post(configsUrl(other.id), {
          label: 'o',
          devices: {},
          interfaces: [vlan('10.0.0.1/24')],
        })
      ).status,
    ).toBe(200);
  });

  it('updateComputeConfig: given fields change, helpers merge, devices and interfaces are replaced', async () => {
    const { id, a, b } = await instanceWithDisks();
    const c = await t.post(configsUrl(id), {
      label: 'c',
      devices: { sda: { disk_id: a }, sdb: { disk_id: b } },
      helpers: { network: false },
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'v1' }],
    });
    const r = await t.put(`${configsUrl(id)}/${c.body.id}`, {
      label: 'renamed',
      comments: null,
      helpers: { distro: false },
      devices: { sda: { disk_id: b } },
      run_level: 'single',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'renamed',
      run_level: 'single',
      kernel: 'compute/latest-64bit',
      helpers: { network: false, distro: false, modules_dep: true },
    });
    expect(r.body.devices.sda).toEqual({ disk_id: b, volume_id: null });
    expect(r.body.devices.sdb).toBeNull();
    // Omitted (or null) interfaces are left as they were.
    expect(r.body.interfaces.map((i: { purpose: string }) => i.purpose)).toEqual([
      'public',
      'vlan',
    ]);
    expect(
      (await t.put(`${configsUrl(id)}/${c.body.id}`, { interfaces: null })).body.interfaces,
    ).toHaveLength(2);
    const replaced = await t.put(`${configsUrl(id)}/${c.body.id}`, {
      interfaces: [{ purpose: 'vlan', label: 'v2' }],
    });
    expect(replaced.body.interfaces.map((i: { label: string }) => i.label)).toEqual(['v2']);
    const ev = await t.get('/v4/account/events', {
      filter: { 'entity.id': id, action: 'compute_config_update' },
    });
    expect(ev.body.results).toBe(3);
  });

  it('updateComputeConfig: interfaces: [] leaves the config without interfaces; one may then be added', async () => {
    const { id } = await instanceWithDisks();
    const c = await t.post(configsUrl(id), { label: 'c', devices: {}, interfaces: [] });
    expect(c.body.interfaces).toHaveLength(1);
    const emptied = await t.put(`${configsUrl(id)}/${c.body.id}`, { interfaces: [] });
    expect(emptied.status).toBe(200);
    expect(emptied.body.interfaces).toEqual([]);
    expect((await t.get(`${configsUrl(id)}/${c.body.id}/interfaces`)).body).toEqual([]);
    const pub = await t.post(`${configsUrl(id)}/${c.body.id}/interfaces`, {
      purpose: 'public',
      primary: true,
    });
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ purpose: 'public', primary: true });
  });

  it('updateComputeConfig: a config of another instance is not found', async () => {
    const one = await instanceWithDisks();
    const two = await instanceWithDisks();
    const c = await t.post(configsUrl(one.id), { label: 'c', devices: {} });
    expect((await t.put(`${configsUrl(two.id)}/${c.body.id}`, { label: 'x' })).status).toBe(404);
    expect((await t.get(`${configsUrl(two.id)}/${c.body.id}`)).status).toBe(404);
    expect((await t.del(`${configsUrl(two.id)}/${c.body.id}`)).status).toBe(404);
  });

  it('getComputeConfigs: the instance configs, paged, filterable on label', async () => {
    const { id } = await instanceWithDisks();
    await t.post(configsUrl(id), { label: 'one', devices: {} });
    await t.post(configsUrl(id), { label: 'two', devices: {}, interfaces: [] });
    const all = await t.get(configsUrl(id));
    expect(all.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(all.body.data.map((c: { label: string }) => c.label)).toEqual(['one', 'two']);
    expect(all.body.data[1].interfaces).toHaveLength(1);
    const two = await t.get(configsUrl(id), { filter: { label: 'two' } });
    expect(two.body.results).toBe(1);
  });

  it('deleteComputeConfig: refused while the instance runs with it; another config can go', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    await t.settle();
    const id = r.body.id as number;
    const booted = (await t.get(configsUrl(id))).body.data[0].id;
    const spare = await t.post(configsUrl(id), { label: 'spare', devices: {} });
    const refused = await t.del(`${configsUrl(id)}/${booted}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/running with this configuration profile/);
    expect((await t.del(`${configsUrl(id)}/${spare.body.id}`)).body).toEqual({});
    expect((await t.get(`${configsUrl(id)}/${spare.body.id}`)).status).toBe(404);
    const ev = await t.get('/v4/account/events', {
      filter: { 'entity.id': id, action: 'compute_config_delete' },
    });
    expect(ev.body.data[0].status).toBe('notification');
  });

  it('deleteComputeConfig: Compute busy while the instance boots', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
    });
    await t.settle();
    const config = (await t.get(configsUrl(r.body.id))).body.data[0].id;
    await t.post(`/v4/compute/instances/${r.body.id}/boot`);
    const busy = await t.del(`${configsUrl(r.body.id)}/${config}`);
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('deleteComputeConfig: deleting the last booted config forgets it', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    await t.settle();
    const id = r.body.id as number;
    const config = (await t.get(configsUrl(id))).body.data[0].id;
    expect(await lastBooted(id)).toBe(config);
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await t.settle();
    expect((await t.del(`${configsUrl(id)}/${config}`)).status).toBe(200);
    expect(await lastBooted(id)).toBeNull();
    const ifaces = await t.ctx.db.db
      .selectFrom('config_interfaces')
      .selectAll()
      .where('config_id', '=', config)
      .execute();
    expect(ifaces).toHaveLength(0);
  });
});
