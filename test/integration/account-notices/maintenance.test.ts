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
    t = await buildTestApp();
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

  const statusOf = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body.status;

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

  it('getMaintenance: maintenance created with the CLI is listed; the instance shows stopped inside the window and its own status after', async () => {
    const a = await instance(t);
    expect(await statusOf(a.id)).toBe('running');
    const when = isoSeconds(t.clock.nowMs() + HOUR);
    const until = isoSeconds(t.clock.nowMs() + 3 * HOUR);
    const c = await cli([
      'create',
      '--compute',
      String(a.id),
      '--type',
      'reboot',
      '--when',
      when,
      '--until',
      until,
      '--reason',
      'Host firmware upgrade',
    ]);
    expect(c.code, c.err).toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({ status: 'pending', when, until });

    const list = async () => (await t.get('/v4/account/maintenance')).body;
    expect((await list()).data).toEqual([
      {
        type: 'reboot',
        status: 'pending',
        reason: 'Host firmware upgrade',
        when,
        maintenance_policy_set: 'compute/migrate',
        entity: { id: a.id, label: a.label, type: 'compute', url: `/v4/compute/instances/${a.id}` },
      },
    ]);
    // The policy shown is the instance's, live.
    await t.put(`/v4/compute/instances/${a.id}`, { maintenance_policy: 'compute/power_off_on' });
    expect((await list()).data[0].maintenance_policy_set).toBe('compute/power_off_on');
    await t.runDue();
    expect(await statusOf(a.id)).toBe('running');

    t.clock.advance(HOUR);
    await t.runDue();
    expect((await list()).data[0].status).toBe('started');
    expect(await statusOf(a.id)).toBe('stopped');
    const listed = await t.get('/v4/compute/instances');
    expect(listed.body.data[0].status).toBe('stopped');

    t.clock.advance(2 * HOUR);
    await t.runDue();
    expect((await list()).data[0].status).toBe('completed');
    expect(await statusOf(a.id)).toBe('running');
  });

  it('getMaintenance: canceled maintenance is omitted and ends the window; restricted users see only instances they may view', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const now = isoSeconds(t.clock.nowMs());
    for (const id of [a.id, b.id]) {
      expect((await cli(['create', '--compute', String(id), '--when', now])).code).toBe(0);
    }
    await t.runDue();
    expect(await statusOf(a.id)).toBe('stopped');
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
    const cancel = await cli(['cancel', '--id', String(first?.id)]);
    expect(cancel.code, cancel.err).toBe(0);
    expect(JSON.parse(cancel.out).status).toBe('canceled');
    expect(await statusOf(a.id)).toBe('running');
    const all = await t.get('/v4/account/maintenance');
    expect(all.body.data.map((m: { entity: { id: number } }) => m.entity.id)).toEqual([b.id]);
    expect((await cli(['cancel', '--id', String(first?.id)])).code).toBe(2);
    await t.settle();
    expect(await statusOf(b.id)).toBe('running');
  });

  it('stratus maintenance: refuses an unknown instance, a bad type and a window that ends before it starts', async () => {
    const a = await instance(t);
    const unknown = await cli(['create', '--compute', '999999']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.err).errors[0].field).toBe('compute_id');
    expect((await cli(['create', '--compute', String(a.id), '--type', 'nap'])).code).toBe(2);
    const when = isoSeconds(t.clock.nowMs() + HOUR);
    const bad = await cli(['create', '--compute', String(a.id), '--when', when, '--until', when]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.err).errors[0].field).toBe('until');
    expect((await cli(['reboot'])).code).toBe(2);
    expect((await t.get('/v4/account/maintenance')).body.results).toBe(0);
  });

  it('/_stratus/maintenance: the operator API creates, lists and cancels with the operator token only', async () => {
    const a = await instance(t);
    const body = { compute_id: a.id, type: 'live_migration', when: isoSeconds(t.clock.nowMs()) };
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
