import { verify } from 'unixcrypt';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ComputeDriver,
  type DiskRef,
  type DiskSource,
  type MachineFirewall,
  type MachineSpec,
  type MachineState,
  CapacityError,
} from '../../../src/machines/driver.js';
import { SimulatedDriver } from '../../../src/machines/simulated.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from '../controls/helpers.js';

const KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGKHck9CC/fD5oKjZnykW3hR1/0Jhe7zXaw6pPXrvkt7 test@example';
const PASS = 'Correct-Horse-Battery-9';

/**
 * A driver that records what the compute jobs ask of it, with machines that go on and off as a
 * real host's would (a power button takes effect at once unless `ignoreButton`).
 */
class RecordingDriver extends SimulatedDriver implements ComputeDriver {
  override readonly real: boolean = true;
  override readonly shutdownGraceMs: number = 5000;
  override readonly firewalls: boolean = true;
  /** What applyFirewall was last given, per instance. */
  applied = new Map<number, MachineFirewall[]>();
  calls: { op: string; args: unknown[] }[] = [];
  states = new Map<number, MachineState>();
  disks = new Map<string, DiskSource>();
  specs: MachineSpec[] = [];
  ignoreButton = false;
  full = false;
  missingImages = new Set<string>();

  private rec(op: string, ...args: unknown[]) {
    this.calls.push({ op, args });
  }
  override imageProblem(image: string) {
    return this.missingImages.has(image)
      ? `The image ${image} is not available on this host.`
      : undefined;
  }
  override capacity() {
    return { vcpus: 2, memoryMb: 4096 };
  }
  override async listDisks(i: { instanceId: number; region: string }) {
    return [...this.disks.keys()]
      .filter((k) => k.startsWith(`${i.instanceId}/`))
      .map((k) => Number(k.split('/')[1]));
  }
  override async createDisk(
    d: DiskRef,
    o: { sizeMb: number; filesystem: string; source: DiskSource },
  ) {
    this.rec('createDisk', d, o);
    this.disks.set(`${d.instanceId}/${d.diskId}`, o.source);
  }
  override async deleteDisk(d: DiskRef) {
    this.rec('deleteDisk', d);
    this.disks.delete(`${d.instanceId}/${d.diskId}`);
  }
  override async resizeDisk(d: DiskRef, o: { sizeMb: number }) {
    this.rec('resizeDisk', d, o);
  }
  override async destroy(i: { instanceId: number; region: string }) {
    this.rec('destroy', i);
    this.states.delete(i.instanceId);
    for (const k of [...this.disks.keys()])
      if (k.startsWith(`${i.instanceId}/`)) this.disks.delete(k);
  }
  override async captureBackup(id: number, disks: DiskRef[]) {
    this.rec('captureBackup', id, disks);
  }
  override async start(spec: MachineSpec) {
    this.rec('start', spec.instanceId);
    if (this.full) throw new CapacityError('The host has no room for this instance now.');
    this.specs.push(spec);
    this.states.set(spec.instanceId, 'running');
  }
  override async powerButton(id: number) {
    this.rec('powerButton', id);
    if (!this.ignoreButton) this.states.set(id, 'stopped');
  }
  override async stop(id: number) {
    this.rec('stop', id);
    this.states.set(id, 'stopped');
  }
  override async status(id: number) {
    return { state: this.states.get(id) ?? ('stopped' as const) };
  }
  override async applyFirewall(id: number, firewalls: MachineFirewall[]) {
    this.rec('applyFirewall', id);
    const changed = JSON.stringify(this.applied.get(id)) !== JSON.stringify(firewalls);
    this.applied.set(id, firewalls);
    return changed;
  }
  ops(): string[] {
    return this.calls.map((c) => c.op);
  }
}

let t: TestApp;
let driver: RecordingDriver;

afterEach(async () => {
  await t?.close();
});

async function app(): Promise<TestApp> {
  driver = new RecordingDriver();
  t = await buildTestApp({ timing: 'instant', machines: driver });
  return t;
}

async function create(body: Record<string, unknown> = {}) {
  const r = await t.post('/v4/compute/instances', {
    region: 'us-east',
    type: 'g6-nanode-1',
    image: 'compute/debian12',
    label: 'real-one',
    root_pass: PASS,
    authorized_keys: [KEY],
    ...body,
  });
  expect(r.status).toBe(200);
  await t.settle();
  return r.body.id as number;
}

const status = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body.status;

describe('compute jobs through the driver seam', () => {
  it('createInstance: the disks get their bytes from the image (and swap empty), then the machine starts with the seed', async () => {
    await app();
    const id = await create();
    expect(await status(id)).toBe('running');
    const creates = driver.calls.filter((c) => c.op === 'createDisk');
    expect(creates.map((c) => (c.args[1] as { source: DiskSource }).source)).toEqual([
      { kind: 'image', image: 'compute/debian12' },
      { kind: 'empty' },
    ]);
    expect(driver.ops().indexOf('start')).toBeGreaterThan(driver.ops().lastIndexOf('createDisk'));
    const spec = driver.specs[0] as MachineSpec;
    expect(spec).toMatchObject({
      instanceId: id,
      hostname: 'real-one',
      vcpus: 1,
      memoryMb: 1024,
      rescue: false,
    });
    expect(Object.keys(spec.devices)).toEqual(['sda', 'sdb']);
    expect(spec.seed.authorizedKeys).toEqual([KEY]);
    // Only the password's crypt(3) SHA-512 hash reaches the driver, or the database.
    expect(spec.seed.rootPassHash).toMatch(/^\$6\$/);
    expect(verify(PASS, spec.seed.rootPassHash as string)).toBe(true);
    const rows = await t.ctx.db.db.selectFrom('instance_seeds').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(PASS);
  });

  it('createInstance: an image the host has no bytes for is a 400 on image', async () => {
    await app();
    driver.missingImages.add('compute/debian12');
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: PASS,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toContainEqual({
      field: 'image',
      reason: 'The image compute/debian12 is not available on this host.',
    });
  });

  it('bootInstance: a host without room answers 400 and boots nothing', async () => {
    await app();
    const a = await create({ type: 'g6-standard-2', label: 'big-one' });
    expect(await status(a)).toBe('running');
    const b = await create({ type: 'g6-standard-1', label: 'second', booted: false });
    const r = await t.post(`/v4/compute/instances/${b}/boot`, {});
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/no capacity/);
    expect(await status(b)).toBe('offline');
  });

  it('bootInstance: the driver refusing at start (a full host) fails the boot at once with its reason', async () => {
    await app();
    const id = await create({ booted: false });
    driver.full = true;
    expect((await t.post(`/v4/compute/instances/${id}/boot`, {})).status).toBe(200);
    await t.settle();
    expect(await status(id)).toBe('offline');
    expect(driver.ops().filter((o) => o === 'start')).toHaveLength(1);
    const ev = (await t.get('/v4/account/events')).body.data.find(
      (e: { action: string }) => e.action === 'compute_boot',
    );
    expect(ev).toMatchObject({
      status: 'failed',
      message: 'The host has no room for this instance now.',
    });
  });

  it('shutdownInstance: the power button first, forced off only after the grace period', async () => {
    await app();
    const id = await create();
    driver.ignoreButton = true;
    expect((await t.post(`/v4/compute/instances/${id}/shutdown`)).status).toBe(200);
    await t.settle();
    expect(await status(id)).toBe('offline');
    const seq = driver.ops().slice(driver.ops().indexOf('powerButton'));
    expect(seq).toEqual(['powerButton', 'stop']);
  });

  it('shutdownInstance: a guest that obeys the button is never forced', async () => {
    await app();
    const id = await create();
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await t.settle();
    expect(await status(id)).toBe('offline');
    expect(driver.ops()).toContain('powerButton');
    expect(driver.ops()).not.toContain('stop');
  });

  it('deleteInstance: the machine and every file of the instance go', async () => {
    await app();
    const id = await create();
    expect((await t.del(`/v4/compute/instances/${id}`)).status).toBe(200);
    await t.settle();
    expect(driver.calls.find((c) => c.op === 'destroy')?.args[0]).toEqual({
      instanceId: id,
      region: 'us-east',
    });
    expect(await driver.listDisks({ instanceId: id, region: 'us-east' })).toEqual([]);
    // The driver's rows of the instance go with it.
    expect(await t.ctx.db.db.selectFrom('instance_seeds').selectAll().execute()).toEqual([]);
  });

  it('rebuildInstance: old disks lose their bytes, new ones come from the image, the seed is new', async () => {
    await app();
    const id = await create();
    const before = await driver.listDisks({ instanceId: id, region: 'us-east' });
    const r = await t.post(`/v4/compute/instances/${id}/rebuild`, {
      image: 'compute/debian12',
      root_pass: `${PASS}x`,
    });
    expect(r.status).toBe(200);
    await t.settle();
    const after = await driver.listDisks({ instanceId: id, region: 'us-east' });
    expect(after.some((d) => before.includes(d))).toBe(false);
    expect(after).toHaveLength(2);
    const last = driver.specs.at(-1) as MachineSpec;
    expect(last.seed.instanceId).not.toBe(driver.specs[0]?.seed.instanceId);
    expect(verify(`${PASS}x`, last.seed.rootPassHash as string)).toBe(true);
    // A rebuild without keys leaves none.
    expect(last.seed.authorizedKeys).toEqual([]);
  });

  it('cloneDisk: the copy gets the bytes of the disk it copies', async () => {
    await app();
    const id = await create({ booted: false, swap_size: 0, type: 'g6-standard-1' });
    const disks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const src = disks[0].id as number;
    // The plan has room for the copy: the boot disk shrinks first.
    expect(
      (await t.post(`/v4/compute/instances/${id}/disks/${src}/resize`, { size: 2000 })).status,
    ).toBe(200);
    await t.settle();
    const r = await t.post(`/v4/compute/instances/${id}/disks/${src}/clone`);
    expect(r.status).toBe(200);
    await t.settle();
    expect(driver.disks.get(`${id}/${r.body.id}`)).toEqual({
      kind: 'disk',
      from: { instanceId: id, region: 'us-east', diskId: src },
    });
    expect(await t.ctx.db.db.selectFrom('disk_sources').selectAll().execute()).toEqual([]);
  });

  it('snapshot and restore: the backup copies the disks, a new instance from it gets the backup disks', async () => {
    await app();
    const id = await create();
    await t.post(`/v4/compute/instances/${id}/backups/enable`);
    const snap = await t.post(`/v4/compute/instances/${id}/backups`, { label: 'snap' });
    expect(snap.status).toBe(200);
    await t.settle();
    const captured = driver.calls.find((c) => c.op === 'captureBackup');
    expect(captured?.args[0]).toBe(snap.body.id);
    expect(((captured?.args[1] ?? []) as DiskRef[]).map((d) => d.diskId)).toEqual(
      await driver.listDisks({ instanceId: id, region: 'us-east' }),
    );
    const copy = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      backup_id: snap.body.id,
      label: 'from-backup',
    });
    expect(copy.status).toBe(200);
    await t.settle();
    const sources = [...driver.disks.entries()]
      .filter(([k]) => k.startsWith(`${copy.body.id}/`))
      .map(([, s]) => s);
    expect(sources).toEqual([
      { kind: 'backup', backupId: snap.body.id, key: expect.any(Number) },
      { kind: 'backup', backupId: snap.body.id, key: expect.any(Number) },
    ]);
  });

  it('rescueInstance: the rescue system boots with the devices asked for', async () => {
    await app();
    const id = await create();
    const disks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const r = await t.post(`/v4/compute/instances/${id}/rescue`, {
      devices: { sda: { disk_id: disks[0].id } },
    });
    expect(r.status).toBe(200);
    await t.settle();
    const spec = driver.specs.at(-1) as MachineSpec;
    expect(spec.rescue).toBe(true);
    expect(spec.devices).toEqual({ sda: { disk: disks[0].id } });
  });
});

describe('the host agent', () => {
  it('machine agent: a guest power-off with the watchdog boots the instance again (lassie_reboot)', async () => {
    await app();
    const id = await create();
    driver.states.set(id, 'shutdown');
    await t.ctx.areas.compute.machines.agent.tick();
    expect(await status(id)).toBe('booting');
    await t.settle();
    expect(await status(id)).toBe('running');
    const ev = (await t.get('/v4/account/events')).body.data.find(
      (e: { action: string }) => e.action === 'lassie_reboot',
    );
    expect(ev).toMatchObject({
      status: 'finished',
      username: null,
      entity: { id, type: 'compute' },
    });
  });

  it('machine agent: without the watchdog the instance is offline with a compute_shutdown event', async () => {
    await app();
    const id = await create();
    await t.put(`/v4/compute/instances/${id}`, { watchdog_enabled: false });
    driver.states.set(id, 'stopped');
    await t.ctx.areas.compute.machines.agent.tick();
    expect(await status(id)).toBe('offline');
    const ev = (await t.get('/v4/account/events')).body.data.find(
      (e: { action: string; username: string | null }) => e.action === 'compute_shutdown',
    );
    expect(ev).toMatchObject({ status: 'finished', username: null });
  });

  it('machine agent: the watchdog gives up after more than 5 boots in 15 minutes', async () => {
    await app();
    const id = await create();
    for (let i = 0; i < 5; i++) {
      driver.states.set(id, 'stopped');
      await t.ctx.areas.compute.machines.agent.tick();
      await t.settle();
      expect(await status(id)).toBe('running');
    }
    driver.states.set(id, 'stopped');
    await t.ctx.areas.compute.machines.agent.tick();
    expect(await status(id)).toBe('offline');
  });

  it('machine agent: an instance with work under way is left to its job', async () => {
    await app();
    const id = await create();
    await t.post(`/v4/compute/instances/${id}/reboot`);
    driver.states.set(id, 'stopped');
    await t.ctx.areas.compute.machines.agent.tick();
    expect(await status(id)).toBe('rebooting');
    const lassie = (await t.get('/v4/account/events')).body.data.filter(
      (e: { action: string }) => e.action === 'lassie_reboot',
    );
    expect(lassie).toEqual([]);
  });
});

describe('firewalls on the machines', () => {
  const SSH = {
    protocol: 'TCP',
    ports: '22',
    addresses: { ipv4: ['0.0.0.0/0'] },
    action: 'ACCEPT',
  };
  const firewall = async (body: Record<string, unknown> = {}) => {
    const r = await t.post('/v4/networking/firewalls', {
      label: `fw-${Math.floor(Math.random() * 1e9)}`,
      rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [SSH] },
      ...body,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.id as number;
  };
  const tick = () => t.ctx.areas.compute.machines.agent.tick();
  const applied = (id: number) =>
    (driver.applied.get(id) ?? []).map((f) => ({
      id: f.id,
      inbound: f.rules.inbound.map((r) => r.ports ?? r.protocol),
      inboundPolicy: f.inboundPolicy,
      outboundPolicy: f.outboundPolicy,
    }));

  it('createInstance: the machine starts with its enabled firewalls, their rule sets expanded', async () => {
    await app();
    const rs = await t.post('/v4/networking/firewalls/rulesets', {
      label: 'web',
      type: 'inbound',
      rules: [
        { protocol: 'TCP', ports: '80,443', addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT' },
      ],
    });
    expect(rs.status, JSON.stringify(rs.body)).toBe(200);
    const fw = await firewall({
      rules: {
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
        inbound: [SSH, { ruleset: rs.body.id }],
      },
    });
    const id = await create({ firewall_id: fw });
    const spec = driver.specs.at(-1) as MachineSpec;
    expect(spec.instanceId).toBe(id);
    expect(spec.firewalls).toEqual([
      {
        id: fw,
        inboundPolicy: 'DROP',
        outboundPolicy: 'ACCEPT',
        rules: {
          inbound: [
            expect.objectContaining({ protocol: 'TCP', ports: '22' }),
            expect.objectContaining({ protocol: 'TCP', ports: '80,443' }),
          ],
          outbound: [],
        },
      },
    ]);
  });

  it('machine agent: firewall changes reach the running machine (devices, rules, status), an interface device included', async () => {
    await app();
    const id = await create({
      interface_generation: 'compute',
      interfaces: [{ default_route: { ipv4: true }, public: {} }],
    });
    await tick();
    expect(driver.applied.get(id)).toEqual([]);
    // A firewall with the instance as a device.
    const a = await firewall({ devices: { computes: [id] } });
    await tick();
    expect(applied(id)).toEqual([
      { id: a, inbound: ['22'], inboundPolicy: 'DROP', outboundPolicy: 'ACCEPT' },
    ]);
    // Its rules change.
    expect(
      (
        await t.put(`/v4/networking/firewalls/${a}/rules`, {
          inbound: [{ ...SSH, ports: '2222' }],
          inbound_policy: 'DROP',
          outbound_policy: 'DROP',
        })
      ).status,
    ).toBe(200);
    await tick();
    expect(applied(id)).toEqual([
      { id: a, inbound: ['2222'], inboundPolicy: 'DROP', outboundPolicy: 'DROP' },
    ]);
    // A second firewall on one of the instance's interfaces.
    const iface = (await t.get(`/v4/compute/instances/${id}/interfaces`)).body.interfaces[0];
    const b = await firewall();
    const dev = await t.post(`/v4/networking/firewalls/${b}/devices`, {
      type: 'compute_interface',
      id: iface.id,
    });
    expect(dev.status, JSON.stringify(dev.body)).toBe(200);
    await tick();
    expect(applied(id).map((f) => f.id)).toEqual([a, b]);
    // Disabled, a firewall protects nothing; deleted neither.
    expect((await t.put(`/v4/networking/firewalls/${a}`, { status: 'disabled' })).status).toBe(200);
    await tick();
    expect(applied(id).map((f) => f.id)).toEqual([b]);
    expect((await t.del(`/v4/networking/firewalls/${b}`)).status).toBe(200);
    await tick();
    expect(driver.applied.get(id)).toEqual([]);
  });

  it('machine agent: an instance that is not running gets no firewall pass', async () => {
    await app();
    const id = await create({ firewall_id: await firewall() });
    expect((await t.post(`/v4/compute/instances/${id}/shutdown`)).status).toBe(200);
    await t.settle();
    driver.calls = [];
    await tick();
    expect(driver.ops()).not.toContain('applyFirewall');
  });
});

describe('the simulated driver', () => {
  it('createInstance: with the simulated driver no seed, no disk source and no machine work', async () => {
    t = await buildTestApp({ timing: 'instant' });
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: PASS,
      authorized_keys: [KEY],
    });
    expect(r.status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('running');
    expect(await t.ctx.db.db.selectFrom('instance_seeds').selectAll().execute()).toEqual([]);
    expect(await t.ctx.db.db.selectFrom('disk_sources').selectAll().execute()).toEqual([]);
  });
});

describe('statistics of real machines', () => {
  it('getComputeStats: the sampled counters of the machine, as 5-minute averages', async () => {
    await app();
    const id = await create();
    const now = t.clock.nowMs();
    const base = Math.floor(now / 300_000) * 300_000 - 600_000;
    const sample = (tMs: number, cpuMs: number, ops: number) =>
      t.ctx.db.db
        .insertInto('machine_samples')
        .values({
          instance_id: id,
          account_id: 1,
          t_ms: tMs,
          cpu_ms: cpuMs,
          disk_read_ops: ops,
          disk_write_ops: 0,
          disk_read_bytes: 0,
          disk_write_bytes: 0,
          net_rx_bytes: null,
          net_tx_bytes: null,
        })
        .execute();
    // 150 s of CPU over the 300 s bucket that starts at `base`: 50 %; 600 disk operations: 2/s.
    await sample(base - 1, 1000, 100);
    await sample(base + 299_000, 151_000, 700);
    const body = (await t.get(`/v4/compute/instances/${id}/stats`)).body;
    const cpu = new Map(body.data.cpu as [number, number][]);
    expect(cpu.get(base)).toBe(50);
    expect(new Map(body.data.io.io as [number, number][]).get(base)).toBe(2);
    // Buckets without samples are zero (the formula is not used).
    expect(cpu.get(base - 300_000)).toBe(0);
  });
});

describe('operator endpoints of the machines', () => {
  it('getMachines: the driver, its capacity and the machines, behind the operator token', async () => {
    await app();
    const o = op(t, await operatorToken(t));
    expect((await t.get('/_stratus/machines', { token: null })).status).toBe(401);
    const r = await o.get('/_stratus/machines');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      driver: 'simulated',
      capacity: { vcpus: 2, memory_mb: 4096 },
      data: [],
    });
    // A machine of no instance, and an id that is not one, are 404 (as the API's own paths).
    expect((await o.get('/_stratus/machines/999/console')).status).toBe(404);
    expect((await o.get('/_stratus/machines/abc/console')).status).toBe(404);
    const id = await create();
    const typed = await o.post(`/_stratus/machines/${id}/console`, { data: 'root\n' });
    // The recording driver runs no console: the request reaches it only while the machine runs.
    expect(typed.status).toBe(200);
    expect((await o.post(`/_stratus/machines/${id}/console`, {})).status).toBe(400);
  });
});
