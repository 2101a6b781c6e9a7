import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx9Qd5bnJcLQ4Vz9kq3pJx9sKx1lmn0pQ2rS3tU4vW5 user@host';
const base = { region: 'us-east', type: 'g6-nanode-1' };
const fromImage = { ...base, image: 'compute/debian12', root_pass: STRONG };

describe('compute instances', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
    r.body.errors.map((e) => e.field).sort();

  it('createComputeInstance: region and type are required and named', async () => {
    const r = await t.post('/v4/compute/instances', {});
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['region', 'type']);
  });

  it('createComputeInstance: reports every failing field at once', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'nowhere',
      type: 'g0-none',
      label: 'a--b',
      image: 'compute/nope',
      root_pass: STRONG,
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['image', 'label', 'region', 'type']);
  });

  it('createComputeInstance: an unknown type and region are answered type first, in the real service order', async () => {
    const r = await t.post('/v4/compute/instances', { type: 'g6-fake-plan', region: 'us-fake' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'type', reason: 'A valid plan type by that ID was not found' },
      { field: 'region', reason: 'region is not valid' },
    ]);
  });

  it('createComputeInstance: a region without compute instances is refused', async () => {
    const r = await t.post('/v4/compute/instances', { region: 'eu-south', type: 'g6-nanode-1' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('region');
  });

  it('createComputeInstance: label rules (length, ends, doubled separators) at and past their bounds', async () => {
    for (const bad of ['ab', 'x'.repeat(65), '-abc', 'abc-', 'a__b', 'a..b', 'a b c']) {
      const r = await t.post('/v4/compute/instances', { ...base, label: bad });
      expect(r.status, bad).toBe(400);
      expect(r.body.errors[0].field).toBe('label');
    }
    for (const good of ['abc', 'x'.repeat(64), 'web-1.a_b']) {
      const r = await t.post('/v4/compute/instances', { ...base, label: good });
      expect(r.status, good).toBe(200);
    }
  });

  it('createComputeInstance: a default label is assigned when omitted', async () => {
    const r = await t.post('/v4/compute/instances', base);
    expect(r.body.label).toBe(`compute${r.body.id}`);
  });

  it('createComputeInstance: labels are unique in an account', async () => {
    expect((await t.post('/v4/compute/instances', { ...base, label: 'same' })).status).toBe(200);
    const r = await t.post('/v4/compute/instances', { ...base, label: 'same' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('label');
  });

  it('createComputeInstance: image excludes backup_id', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, backup_id: 5 });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('image');
  });

  it('createComputeInstance: root_pass is required with an image', async () => {
    const r = await t.post('/v4/compute/instances', { ...base, image: 'compute/debian12' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'root_pass', reason: expect.stringContaining('required') },
    ]);
  });

  it('createComputeInstance: root_pass must be 7..128 characters', async () => {
    for (const pw of ['Ab1!xy', 'A'.repeat(129)]) {
      const r = await t.post('/v4/compute/instances', { ...fromImage, root_pass: pw });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('root_pass');
    }
  });

  it('createComputeInstance: a weak root_pass fails the strength check', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, root_pass: 'password123' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'root_pass', reason: 'Password does not meet strength requirement' },
    ]);
  });

  it('createComputeInstance: authorized_keys must be valid public keys', async () => {
    const bad = await t.post('/v4/compute/instances', {
      ...fromImage,
      authorized_keys: [KEY, 'ssh-rsa notbase64!'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('authorized_keys.1');
  });

  it('createComputeInstance: authorized_users must be users of the account with SSH keys', async () => {
    const { userId, username } = await createTestUser(t, { restricted: false });
    const noKeys = await t.post('/v4/compute/instances', {
      ...fromImage,
      authorized_users: [username, 'ghost-user'],
    });
    expect(noKeys.status).toBe(400);
    expect(fieldsOf(noKeys)).toEqual(['authorized_users.0', 'authorized_users.1']);
    await t.ctx.db.db
      .insertInto('ssh_keys')
      .values({
        account_id: t.admin.accountId,
        user_id: userId,
        label: 'k',
        ssh_key: KEY,
        created: '2026-01-01T00:00:00',
      })
      .execute();
    expect(
      (await t.post('/v4/compute/instances', { ...fromImage, authorized_users: [username] }))
        .status,
    ).toBe(200);
  });

  it('createComputeInstance: an image deployment has a boot disk of the type size minus swap, a 512 MB swap disk and a config', async () => {
    const r = await t.post('/v4/compute/instances', fromImage);
    const disks = await t.ctx.db.db
      .selectFrom('disks')
      .selectAll()
      .where('instance_id', '=', r.body.id)
      .orderBy('id')
      .execute();
    expect(disks.map((d) => [d.size, d.filesystem])).toEqual([
      [25600 - 512, 'ext4'],
      [512, 'swap'],
    ]);
    const configs = await t.ctx.db.db
      .selectFrom('configs')
      .selectAll()
      .where('instance_id', '=', r.body.id)
      .execute();
    expect(configs).toHaveLength(1);
    expect(JSON.parse(configs[0]!.devices).sda).toEqual({ disk_id: disks[0]!.id });
  });

  it('createComputeInstance: swap_size sets the swap disk', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, swap_size: 1024 });
    const disks = await t.ctx.db.db
      .selectFrom('disks')
      .select(['size'])
      .where('instance_id', '=', r.body.id)
      .orderBy('id')
      .execute();
    expect(disks.map((d) => d.size)).toEqual([25600 - 1024, 1024]);
  });

  it('createComputeInstance: an empty instance ends offline with no disks and no configs', async () => {
    const r = await t.post('/v4/compute/instances', base);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('offline');
    expect(await t.ctx.db.db.selectFrom('disks').selectAll().execute()).toHaveLength(0);
    expect(await t.ctx.db.db.selectFrom('configs').selectAll().execute()).toHaveLength(0);
  });

  it('createComputeInstance: booted false provisions and stays offline', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, booted: false });
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('offline');
    const boots = await t.get('/v4/account/events', { filter: { action: 'compute_boot' } });
    expect(boots.body.results).toBe(0);
  });

  it('createComputeInstance: backups_enabled is forced on by the account setting', async () => {
    await t.ctx.db.db.updateTable('accounts').set({ backups_enabled: 1 }).execute();
    const r = await t.post('/v4/compute/instances', { ...base, backups_enabled: false });
    expect(r.body.backups.enabled).toBe(true);
  });

  it('createComputeInstance: private_ip adds a private IPv4 from 192.168.128.0/17', async () => {
    const r = await t.post('/v4/compute/instances', { ...base, private_ip: true });
    expect(r.body.ipv4).toHaveLength(2);
    expect(r.body.ipv4[1]).toMatch(/^192\.168\.(1[2-9][0-9]|2[0-5][0-9])\./);
  });

  it('createComputeInstance: interfaces follow the purpose rules', async () => {
    const two = await t.post('/v4/compute/instances', {
      ...fromImage,
      interfaces: [{ purpose: 'public' }, { purpose: 'public' }],
    });
    expect(two.status).toBe(400);
    expect(two.body.errors[0].field).toBe('interfaces.1.purpose');
    const vlanNoLabel = await t.post('/v4/compute/instances', {
      ...fromImage,
      interfaces: [{ purpose: 'vlan' }],
    });
    expect(vlanNoLabel.body.errors[0].field).toBe('interfaces.0.label');
    const vlanPrimary = await t.post('/v4/compute/instances', {
      ...fromImage,
      interfaces: [{ purpose: 'vlan', label: 'v1', primary: true }],
    });
    expect(vlanPrimary.body.errors[0].field).toBe('interfaces.0.primary');
    const dupIpam = await t.post('/v4/compute/instances', {
      ...fromImage,
      interfaces: [
        { purpose: 'vlan', label: 'v1', ipam_address: '10.0.0.1/24' },
        { purpose: 'vlan', label: 'v2', ipam_address: '10.0.0.1/24' },
      ],
    });
    expect(dupIpam.body.errors[0].field).toBe('interfaces.1.ipam_address');
    const four = await t.post('/v4/compute/instances', {
      ...fromImage,
      interfaces: [
        { purpose: 'public' },
        { purpose: 'vlan', label: 'a' },
        { purpose: 'vlan', label: 'b' },
        { purpose: 'vlan', label: 'c' },
      ],
    });
    expect(four.status).toBe(400);
    expect(four.body.errors[0].field).toBe('interfaces');
  });

  it('createComputeInstance: an empty interfaces array gives one public interface', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, interfaces: [] });
    const ifaces = await t.ctx.db.db
      .selectFrom('config_interfaces')
      .selectAll()
      .where('instance_id', '=', r.body.id)
      .execute();
    expect(ifaces.map((i) => i.purpose)).toEqual(['public']);
  });

  it('createComputeInstance: image null is an empty instance; null optional ids are not given', async () => {
    const empty = await t.post('/v4/compute/instances', { ...base, image: null });
    expect(empty.status).toBe(200);
    expect(empty.body.image).toBeNull();
    const r = await t.post('/v4/compute/instances', {
      ...fromImage,
      backup_id: null,
      stackscript_id: null,
      stackscript_data: null,
      firewall_id: null,
      metadata: { user_data: null },
    });
    expect(r.status).toBe(200);
    expect(r.body.image).toBe(fromImage.image);
  });

  it('createComputeInstance: maintenance_policy is checked with the real words, stored and shown', async () => {
    const bad = await t.post('/v4/compute/instances', { ...fromImage, maintenance_policy: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'maintenance_policy', reason: 'Unsupported maintenance policy slug format.' },
    ]);
    const r = await t.post('/v4/compute/instances', { ...fromImage });
    expect(r.body).toMatchObject({
      maintenance_policy: 'compute/migrate',
      site_type: 'core',
      capabilities: [],
      disk_encryption: 'disabled',
      interface_generation: 'legacy_config',
      placement_group: null,
      lke_cluster_id: null,
      locks: [],
      specs: { accelerated_devices: 0 },
      alerts: { system_alerts: [], user_alerts: [] },
    });
    const u = await t.put(`/v4/compute/instances/${r.body.id}`, {
      maintenance_policy: 'compute/power_off_on',
    });
    expect(u.body.maintenance_policy).toBe('compute/power_off_on');
    const wrong = await t.put(`/v4/compute/instances/${r.body.id}`, {
      maintenance_policy: 'compute/other',
    });
    expect(wrong.body.errors).toEqual([
      { field: 'maintenance_policy', reason: 'Maintenance policy not found.' },
    ]);
  });

  it('createComputeInstance: without maintenance_policy the instance follows the account default of its create', async () => {
    await t.put('/v4/account/settings', { maintenance_policy: 'compute/power_off_on' });
    const r = await t.post('/v4/compute/instances', { ...fromImage });
    expect(r.body.maintenance_policy).toBe('compute/power_off_on');
    const own = await t.post('/v4/compute/instances', {
      ...fromImage,
      maintenance_policy: 'compute/migrate',
    });
    expect(own.body.maintenance_policy).toBe('compute/migrate');
    // A later change of the default leaves existing instances as they are.
    await t.put('/v4/account/settings', { maintenance_policy: 'compute/migrate' });
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.maintenance_policy).toBe(
      'compute/power_off_on',
    );
  });

  it('createComputeInstance: metadata.user_data must be base64 of at most 65535 bytes', async () => {
    const ok = Buffer.alloc(65535, 'a').toString('base64');
    const tooBig = Buffer.alloc(65536, 'a').toString('base64');
    expect(
      (await t.post('/v4/compute/instances', { ...fromImage, metadata: { user_data: ok } })).status,
    ).toBe(200);
    const big = await t.post('/v4/compute/instances', {
      ...fromImage,
      metadata: { user_data: tooBig },
    });
    expect(big.body.errors[0].field).toBe('metadata.user_data');
    const notB64 = await t.post('/v4/compute/instances', {
      ...fromImage,
      metadata: { user_data: 'not base64!!' },
    });
    expect(notB64.body.errors[0].field).toBe('metadata.user_data');
  });

  it('createComputeInstance: stackscript_data must be JSON of at most 65535 characters', async () => {
    const r = await t.post('/v4/compute/instances', {
      ...fromImage,
      stackscript_id: 1,
      stackscript_data: { big: 'x'.repeat(65535) },
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toContain('stackscript_data');
  });

  it('createComputeInstance: tags are for unrestricted users only', async () => {
    const { token } = await createTestUser(t, { global: { add_computes: true } });
    const r = await t.post('/v4/compute/instances', { ...base, tags: ['prod'] }, { token });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ errors: [{ reason: 'Unauthorized' }] });
  });

  it('createComputeInstance: needs the add_computes grant; the creator gets read_write', async () => {
    const denied = await createTestUser(t);
    expect((await t.post('/v4/compute/instances', base, { token: denied.token })).status).toBe(403);
    const allowed = await createTestUser(t, { global: { add_computes: true } });
    const r = await t.post('/v4/compute/instances', base, { token: allowed.token });
    expect(r.status).toBe(200);
    expect(
      (
        await t.put(
          `/v4/compute/instances/${r.body.id}`,
          { label: 'mine' },
          { token: allowed.token },
        )
      ).status,
    ).toBe(200);
  });

  it('getComputeInstances: a restricted user sees only instances it has a grant on', async () => {
    const a = await t.post('/v4/compute/instances', base);
    await t.post('/v4/compute/instances', base);
    const { token } = await createTestUser(t, {
      grants: [{ type: 'compute', id: a.body.id, permissions: 'read_only' }],
    });
    const list = await t.get('/v4/compute/instances', { token });
    expect(list.body.data.map((i: any) => i.id)).toEqual([a.body.id]);
    expect(list.body.results).toBe(1);
  });

  it('getComputeInstances: results of a full page follow every create, delete and grant at once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 26; i++) ids.push((await t.post('/v4/compute/instances', base)).body.id);
    const results = async (token?: string) =>
      (await t.get('/v4/compute/instances?page_size=25', token ? { token } : {})).body.results;
    expect(await results()).toBe(26);
    expect(await results()).toBe(26);
    ids.push((await t.post('/v4/compute/instances', base)).body.id);
    expect(await results()).toBe(27);
    expect((await t.del(`/v4/compute/instances/${ids[0]}`)).status).toBe(200);
    await t.settle();
    expect(await results()).toBe(26);
    // A restricted user's count is its own, however often the admin's was read.
    const { token } = await createTestUser(t, {
      grants: ids.slice(1).map((id) => ({ type: 'compute', id, permissions: 'read_only' })),
    });
    expect(await results(token)).toBe(26);
    const few = await createTestUser(t, {
      grants: ids.slice(2).map((id) => ({ type: 'compute', id, permissions: 'read_only' })),
    });
    expect(await results(few.token)).toBe(25);
    expect(await results()).toBe(26);
  });

  it('updateComputeInstance: a read_only grant cannot write (403); no grant is 404', async () => {
    const a = await t.post('/v4/compute/instances', base);
    const ro = await createTestUser(t, {
      grants: [{ type: 'compute', id: a.body.id, permissions: 'read_only' }],
    });
    expect(
      (await t.put(`/v4/compute/instances/${a.body.id}`, { label: 'x-y-z' }, { token: ro.token }))
        .status,
    ).toBe(403);
    const none = await createTestUser(t);
    expect((await t.get(`/v4/compute/instances/${a.body.id}`, { token: none.token })).status).toBe(
      404,
    );
  });

  it('getComputeInstances: filters on tags, label and ipv4', async () => {
    const a = await t.post('/v4/compute/instances', {
      ...base,
      label: 'alpha',
      tags: ['prod', 'web'],
    });
    await t.post('/v4/compute/instances', { ...base, label: 'beta', tags: ['dev'] });
    expect(
      (await t.get('/v4/compute/instances', { filter: { tags: 'prod' } })).body.data.map(
        (i: any) => i.label,
      ),
    ).toEqual(['alpha']);
    expect(
      (
        await t.get('/v4/compute/instances', { filter: { label: { '+contains': 'ET' } } })
      ).body.data.map((i: any) => i.label),
    ).toEqual(['beta']);
    expect(
      (await t.get('/v4/compute/instances', { filter: { ipv4: a.body.ipv4[0] } })).body.results,
    ).toBe(1);
    const bad = await t.get('/v4/compute/instances', { filter: { status: 'running' } });
    expect(bad.body).toEqual({
      errors: [{ reason: 'Cannot filter on status', field: 'X-Filter' }],
    });
  });

  it('updateComputeInstance: label, group, tags, watchdog, alerts and backup schedule', async () => {
    const a = await t.post('/v4/compute/instances', base);
    const r = await t.put(`/v4/compute/instances/${a.body.id}`, {
      label: 'renamed',
      group: 'g1',
      tags: ['b-tag', 'a-tag'],
      watchdog_enabled: false,
      alerts: { cpu: 50, io: 5000, network_in: 5, network_out: 6, transfer_quota: 70 },
      backups: { schedule: { day: 'Monday', window: 'W10' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'renamed',
      group: 'g1',
      tags: ['a-tag', 'b-tag'],
      watchdog_enabled: false,
      alerts: { cpu: 50, io: 5000, network_in: 5, network_out: 6, transfer_quota: 70 },
      backups: { schedule: { day: 'Monday', window: 'W10' } },
    });
    const ev = await t.get('/v4/account/events', { filter: { action: 'compute_update' } });
    expect(ev.body.data[0].entity.label).toBe('renamed');
  });

  it('updateComputeInstance: alert bounds (cpu at most 100 per core, transfer_quota a percentage)', async () => {
    const a = await t.post('/v4/compute/instances', base);
    expect(
      (await t.put(`/v4/compute/instances/${a.body.id}`, { alerts: { cpu: 100 } })).status,
    ).toBe(200);
    const cpu = await t.put(`/v4/compute/instances/${a.body.id}`, { alerts: { cpu: 101 } });
    expect(cpu.body.errors[0].field).toBe('alerts.cpu');
    const tq = await t.put(`/v4/compute/instances/${a.body.id}`, {
      alerts: { transfer_quota: 101 },
    });
    expect(tq.body.errors[0].field).toBe('alerts.transfer_quota');
    const neg = await t.put(`/v4/compute/instances/${a.body.id}`, { alerts: { io: -1 } });
    expect(neg.body.errors[0].field).toBe('alerts.io');
    const day = await t.put(`/v4/compute/instances/${a.body.id}`, {
      backups: { schedule: { day: 'Someday' } },
    });
    expect(day.body.errors[0].field).toBe('backups.schedule.day');
  });

  it('deleteComputeInstance: refused while cloning or restoring', async () => {
    const a = await t.post('/v4/compute/instances', base);
    await t.settle();
    for (const status of ['cloning', 'restoring'] as const) {
      await t.ctx.db.db
        .updateTable('instances')
        .set({ status })
        .where('id', '=', a.body.id)
        .execute();
      const r = await t.del(`/v4/compute/instances/${a.body.id}`);
      expect(r.status).toBe(400);
    }
  });

  it('deleteComputeInstance: work under way stops when the instance is deleted', async () => {
    const a = await t.post('/v4/compute/instances', fromImage);
    expect((await t.del(`/v4/compute/instances/${a.body.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${a.body.id}`)).status).toBe(404);
    const created = await t.get('/v4/account/events', { filter: { action: 'compute_create' } });
    expect(created.body.data[0].status).toBe('failed');
    const deleted = await t.get('/v4/account/events', { filter: { action: 'compute_delete' } });
    expect(deleted.body.data[0].status).toBe('finished');
  });
});

describe('compute instances: rate limit', () => {
  it('createComputeInstance: 10 creates per 30 seconds per token, then 429 with Retry-After', async () => {
    const t = await buildTestApp({ rateLimits: true });
    try {
      for (let i = 0; i < 10; i++) {
        const r = await t.post('/v4/compute/instances', base);
        expect(r.status, `create ${i + 1}`).toBe(200);
        expect(r.headers['x-ratelimit-limit']).toBe('10');
      }
      const limited = await t.post('/v4/compute/instances', base);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(30);
      // Reads are counted separately from creates.
      expect((await t.get('/v4/compute/instances')).status).toBe(200);
      t.clock.advance(30_000);
      expect((await t.post('/v4/compute/instances', base)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
