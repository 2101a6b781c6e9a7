import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/lib/time.js';
import { runMaintenance } from '../../../src/modules/account-notices/maintenance.cli.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { operatorToken } from '../controls/helpers.js';
import { instance } from '../transfers/fixtures.js';

const HOUR = 3600_000;

describe('maintenance', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ timing: 'instant' });
  });
  afterEach(async () => {
    await t.close();
  });

  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMaintenance(t.ctx, args, {
      out: (s) => out.push(s),
      err: (s) => err.push(s),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it("getMaintenancePolicies: lists the real service's two policies, migrate the default, paged", async () => {
    const r = await t.get('/v4beta/maintenance/policies');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(r.body.data.map((p: Record<string, unknown>) => [p.slug, p.type, p.is_default])).toEqual(
      [
        ['compute/migrate', 'migrate', true],
        ['compute/power_off_on', 'power_off_on', false],
      ],
    );
    expect(r.body.data[0]).toEqual({
      slug: 'compute/migrate',
      label: 'Migrate',
      description: expect.any(String),
      type: 'migrate',
      notification_period_sec: 10800,
      is_default: true,
    });
    const second = await t.get('/v4/maintenance/policies?page=2');
    expect(second.body).toMatchObject({ data: [], page: 2, results: 2 });
    const u = await createTestUser(t);
    expect((await t.get('/v4/maintenance/policies', { token: u.token })).status).toBe(200);
  });

  /** Moves the operator clock on and runs what is due until nothing is. */
  async function tick(ms: number) {
    t.clock.advance(ms);
    for (let i = 0; i < 50; i++) if ((await t.runDue()) === 0) return;
  }
  const instanceOf = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body;
  const list = async () => (await t.get('/v4/account/maintenance')).body;
  const eventsOf = async (id: number, action: string) =>
    (
      await t.get('/v4/account/events', {
        headers: {
          'X-Filter': JSON.stringify({ action, 'entity.id': id, '+order_by': 'id' }),
        },
      })
    ).body.data as Record<string, unknown>[];

  it('getMaintenance: under the migrate policy, the instance is moved live at the start of the window (compute_migrate) and keeps running', async () => {
    const a = await instance(t);
    const before = await instanceOf(a.id);
    const created = t.clock.nowMs();
    const c = await cli(['create', '--compute', String(a.id), '--reason', 'Host firmware upgrade']);
    expect(c.code, c.err).toBe(0);
    // The migrate policy's notice period (3 hours) sets the earliest start, and the default one.
    const notBefore = isoSeconds(created + 3 * HOUR);
    const until = isoSeconds(created + 5 * HOUR);
    expect(JSON.parse(c.out)).toMatchObject({
      status: 'pending',
      type: 'migrate',
      by_policy: true,
      when: notBefore,
      until,
      not_before: notBefore,
      maintenance_policy_set: 'compute/migrate',
    });
    expect((await list()).data).toEqual([
      {
        type: 'migrate',
        status: 'pending',
        reason: 'Host firmware upgrade',
        when: notBefore,
        maintenance_policy_set: 'compute/migrate',
        description: 'scheduled',
        source: 'platform',
        not_before: notBefore,
        start_time: notBefore,
        complete_time: until,
        entity: { id: a.id, label: a.label, type: 'compute', url: `/v4/compute/instances/${a.id}` },
      },
    ]);
    expect((await eventsOf(a.id, 'compute_migrate')).map((e) => [e.status, e.username])).toEqual([
      ['scheduled', null],
    ]);
    // Through the notice period the instance is the owner's to use.
    await tick(HOUR);
    expect((await instanceOf(a.id)).status).toBe('running');
    expect((await t.post(`/v4/compute/instances/${a.id}/reboot`)).status).toBe(200);
    expect((await instanceOf(a.id)).status).toBe('rebooting');
    await tick(0);
    expect((await instanceOf(a.id)).status).toBe('running');
    await tick(2 * HOUR);
    expect((await list()).data[0]).toMatchObject({ status: 'started', start_time: notBefore });
    expect((await instanceOf(a.id)).status).toBe('migrating');
    expect((await eventsOf(a.id, 'compute_migrate'))[0]?.status).toBe('started');
    const busy = await t.post(`/v4/compute/instances/${a.id}/shutdown`);
    expect(busy.status).toBe(400);
    expect(busy.body.errors[0].reason).toBe('Compute busy.');

    await tick(2 * HOUR);
    const after = await instanceOf(a.id);
    expect(after.status).toBe('running');
    expect(after.host_uuid).not.toBe(before.host_uuid);
    expect((await list()).data[0]).toMatchObject({
      status: 'completed',
      start_time: notBefore,
      complete_time: until,
      maintenance_policy_set: 'compute/migrate',
    });
    const [ev] = await eventsOf(a.id, 'compute_migrate');
    expect(ev).toMatchObject({ status: 'finished', percent_complete: 100 });
    expect((await eventsOf(a.id, 'compute_shutdown')).length).toBe(0);
  });

  it('getMaintenance: under the power_off_on policy, the instance is shut down for the window and booted after it (compute_poweroff_on)', async () => {
    const a = await instance(t, { maintenance_policy: 'compute/power_off_on' });
    const created = t.clock.nowMs();
    const early = await cli([
      'create',
      '--compute',
      String(a.id),
      '--when',
      isoSeconds(created + 24 * HOUR),
    ]);
    // Seven days of notice under this policy.
    expect(early.code).toBe(2);
    expect(JSON.parse(early.err).errors[0]).toMatchObject({ field: 'when' });
    expect(JSON.parse(early.err).errors[0].reason).toContain('compute/power_off_on');
    const c = await cli(['create', '--compute', String(a.id)]);
    expect(c.code, c.err).toBe(0);
    const start = created + 7 * 24 * HOUR;
    expect(JSON.parse(c.out)).toMatchObject({ type: 'power_off_on', when: isoSeconds(start) });
    expect((await eventsOf(a.id, 'compute_poweroff_on'))[0]?.status).toBe('scheduled');

    await tick(7 * 24 * HOUR);
    expect((await list()).data[0]).toMatchObject({
      type: 'power_off_on',
      status: 'started',
      maintenance_policy_set: 'compute/power_off_on',
    });
    expect((await instanceOf(a.id)).status).toBe('shutting_down');
    await tick(0);
    expect((await instanceOf(a.id)).status).toBe('offline');
    expect((await eventsOf(a.id, 'compute_poweroff_on'))[0]?.status).toBe('started');
    const boot = await t.post(`/v4/compute/instances/${a.id}/boot`);
    expect(boot.status).toBe(400);
    expect(boot.body.errors[0].reason).toBe('Compute busy.');

    // At the end of the window it boots (instantly under the `instant` timing profile).
    await tick(2 * HOUR);
    expect((await instanceOf(a.id)).status).toBe('running');
    expect((await list()).data[0]).toMatchObject({
      status: 'completed',
      complete_time: isoSeconds(start + 2 * HOUR),
    });
    expect((await eventsOf(a.id, 'compute_poweroff_on'))[0]).toMatchObject({
      status: 'finished',
      duration: 7200,
    });
    // The owner's own power actions are theirs again.
    expect((await t.post(`/v4/compute/instances/${a.id}/shutdown`)).status).toBe(200);
  });

  it('getMaintenance: an instance that is off stays off through power_off_on; an emergency gives no notice', async () => {
    const a = await instance(t, { maintenance_policy: 'compute/power_off_on', booted: false });
    expect((await instanceOf(a.id)).status).toBe('offline');
    const c = await cli(['create', '--compute', String(a.id), '--emergency', '--source', 'user']);
    expect(c.code, c.err).toBe(0);
    const now = isoSeconds(t.clock.nowMs());
    expect(JSON.parse(c.out)).toMatchObject({ when: now, not_before: now });
    expect((await list()).data[0]).toMatchObject({ description: 'emergency', source: 'user' });
    const filtered = async (f: Record<string, string>) =>
      (await t.get('/v4/account/maintenance', { headers: { 'X-Filter': JSON.stringify(f) } })).body
        .results;
    expect(await filtered({ description: 'emergency' })).toBe(1);
    expect(await filtered({ description: 'scheduled' })).toBe(0);
    expect(await filtered({ source: 'platform' })).toBe(0);
    await tick(0);
    expect((await list()).data[0].status).toBe('started');
    expect((await instanceOf(a.id)).status).toBe('offline');
    await tick(2 * HOUR);
    expect((await list()).data[0].status).toBe('completed');
    expect((await instanceOf(a.id)).status).toBe('offline');
    expect((await eventsOf(a.id, 'compute_poweroff_on'))[0]?.status).toBe('finished');
    expect((await eventsOf(a.id, 'compute_boot')).length).toBe(0);
  });

  it('getMaintenance: the policy is followed until the maintenance starts, then frozen; an explicit type overrides it', async () => {
    const a = await instance(t);
    const c = await cli(['create', '--compute', String(a.id)]);
    expect(c.code, c.err).toBe(0);
    // The owner switches policy during the notice period: the maintenance follows.
    await t.put(`/v4/compute/instances/${a.id}`, { maintenance_policy: 'compute/power_off_on' });
    expect((await list()).data[0]).toMatchObject({
      type: 'power_off_on',
      maintenance_policy_set: 'compute/power_off_on',
    });
    await tick(3 * HOUR);
    expect((await instanceOf(a.id)).status).toBe('shutting_down');
    await t.put(`/v4/compute/instances/${a.id}`, { maintenance_policy: 'compute/migrate' });
    expect((await list()).data[0]).toMatchObject({
      type: 'power_off_on',
      maintenance_policy_set: 'compute/power_off_on',
    });
    await tick(3 * HOUR);
    await tick(0);
    expect((await instanceOf(a.id)).status).toBe('running');

    const b = await instance(t);
    const typed = await cli([
      'create',
      '--compute',
      String(b.id),
      '--type',
      'reboot',
      '--emergency',
    ]);
    expect(JSON.parse(typed.out)).toMatchObject({ type: 'reboot', by_policy: false });
    await tick(0);
    // A reboot maintenance powers the instance off whatever its (migrate) policy.
    expect((await instanceOf(b.id)).status).toBe('shutting_down');
    const mb = (await list()).data.find((m: { entity: { id: number } }) => m.entity.id === b.id);
    expect(mb).toMatchObject({ type: 'reboot', maintenance_policy_set: 'compute/migrate' });
    await t.settle();
    expect((await instanceOf(b.id)).status).toBe('running');
  });

  it('getMaintenance: under the fast timing profile the instance is seen shutting down, offline, booting and running again', async () => {
    await t.close();
    t = await buildTestApp({ timing: 'fast' });
    const a = await instance(t, { maintenance_policy: 'compute/power_off_on' });
    expect((await cli(['create', '--compute', String(a.id), '--emergency'])).code).toBe(0);
    const seen: string[] = [];
    const look = async () => {
      const s = (await instanceOf(a.id)).status as string;
      if (seen[seen.length - 1] !== s) seen.push(s);
    };
    await look();
    for (let i = 0; i < 40 && (seen.length < 2 || seen[seen.length - 1] !== 'running'); i++) {
      await tick(i === 20 ? 2 * HOUR : 1000);
      await look();
    }
    expect(seen).toEqual(['running', 'shutting_down', 'offline', 'booting', 'running']);
  });

  it('getMaintenance: an instance deleted before its maintenance starts cancels it; one deleted during it fails the event', async () => {
    const a = await instance(t);
    const b = await instance(t);
    expect((await cli(['create', '--compute', String(a.id)])).code).toBe(0);
    expect((await cli(['create', '--compute', String(b.id), '--emergency'])).code).toBe(0);
    await tick(0);
    expect((await instanceOf(b.id)).status).toBe('migrating');
    expect((await t.del(`/v4/compute/instances/${a.id}`)).status).toBe(200);
    // The owner may delete an instance under maintenance (a delete is not refused as busy).
    const del = await t.del(`/v4/compute/instances/${b.id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    await t.settle();
    const ops = JSON.parse((await cli(['list'])).out).data as {
      entity: { id: number };
      status: string;
    }[];
    expect(ops.find((m) => m.entity.id === a.id)?.status).toBe('canceled');
    expect(ops.find((m) => m.entity.id === b.id)?.status).toBe('completed');
    expect((await eventsOf(a.id, 'compute_migrate'))[0]?.status).toBe('canceled');
    expect((await eventsOf(b.id, 'compute_migrate'))[0]).toMatchObject({
      status: 'failed',
      message: 'The instance was deleted.',
    });
  });

  it("getMaintenance: an instance busy with its owner's work when the window opens starts its maintenance once idle", async () => {
    const a = await instance(t);
    expect((await cli(['create', '--compute', String(a.id), '--emergency'])).code).toBe(0);
    expect((await t.post(`/v4/compute/instances/${a.id}/shutdown`)).status).toBe(200);
    await t.runDue();
    expect((await list()).data[0].status).toBe('pending');
    await t.settle();
    expect((await list()).data[0].status).toBe('completed');
    expect((await instanceOf(a.id)).status).toBe('offline');
  });

  it('getMaintenance: canceled maintenance is omitted and its event canceled; a started one cannot be canceled; restricted users see only instances they may view', async () => {
    const a = await instance(t);
    const b = await instance(t);
    for (const id of [a.id, b.id]) {
      expect((await cli(['create', '--compute', String(id)])).code).toBe(0);
    }
    const { token } = await createTestUser(t, {
      grants: [{ type: 'compute', id: b.id, permissions: 'read_only' }],
    });
    const mine = await t.get('/v4/account/maintenance', { token });
    expect(mine.body.data.map((m: { entity: { id: number } }) => m.entity.id)).toEqual([b.id]);

    const listed = JSON.parse((await cli(['list'])).out).data as {
      id: number;
      entity: { id: number };
    }[];
    const first = listed.find((m) => m.entity.id === a.id);
    const second = listed.find((m) => m.entity.id === b.id);
    const cancel = await cli(['cancel', '--id', String(first?.id)]);
    expect(cancel.code, cancel.err).toBe(0);
    expect(JSON.parse(cancel.out).status).toBe('canceled');
    expect((await eventsOf(a.id, 'compute_migrate'))[0]?.status).toBe('canceled');
    const all = await t.get('/v4/account/maintenance');
    expect(all.body.data.map((m: { entity: { id: number } }) => m.entity.id)).toEqual([b.id]);
    expect((await cli(['cancel', '--id', String(first?.id)])).code).toBe(2);
    await tick(3 * HOUR);
    expect((await instanceOf(a.id)).status).toBe('running');
    expect((await instanceOf(b.id)).status).toBe('migrating');
    const started = await cli(['cancel', '--id', String(second?.id)]);
    expect(started.code).toBe(2);
    expect(JSON.parse(started.err).errors[0].reason).toBe('This maintenance is started.');
    await t.settle();
    expect((await instanceOf(b.id)).status).toBe('running');
  });

  it('stratus maintenance: refuses an unknown instance, a bad type and a window that ends before it starts', async () => {
    const a = await instance(t);
    const unknown = await cli(['create', '--compute', '999999']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.err).errors[0].field).toBe('compute_id');
    expect((await cli(['create', '--compute', String(a.id), '--type', 'nap'])).code).toBe(2);
    const when = isoSeconds(t.clock.nowMs() + HOUR);
    const bad = await cli([
      'create',
      '--compute',
      String(a.id),
      '--emergency',
      '--when',
      when,
      '--until',
      when,
    ]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.err).errors[0].field).toBe('until');
    expect((await cli(['reboot'])).code).toBe(2);
    expect((await t.get('/v4/account/maintenance')).body.results).toBe(0);
  });

  it('/_stratus/maintenance: the operator API creates, lists and cancels with the operator token only', async () => {
    const a = await instance(t);
    const body = { compute_id: a.id, type: 'live_migration', description: 'emergency' };
    expect((await t.post('/_stratus/maintenance', body)).status).toBe(401);
    const token = await operatorToken(t);
    const made = await t.post('/_stratus/maintenance', body, { token });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ entity: { id: a.id, type: 'compute' }, status: 'pending' });
    expect(made.body.euuid).toBe(t.admin.euuid);
    const list = await t.get(`/_stratus/maintenance?euuid=${t.admin.euuid}`, { token });
    expect(list.body.data).toHaveLength(1);
    const user = await t.get('/v4/account/maintenance');
    expect(user.body.data[0].type).toBe('live_migration');
    const c = await t.post(`/_stratus/maintenance/${made.body.id}/cancel`, undefined, { token });
    expect(c.status).toBe(200);
    expect((await t.get('/v4/account/maintenance')).body.data).toEqual([]);
  });
});
