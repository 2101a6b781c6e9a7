import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance } from '../volumes/fixtures.js';

const G = '/v4beta/placement/groups';

async function group(
  t: TestApp,
  body: Record<string, unknown> = {},
): Promise<{ id: number; label: string; region: string }> {
  const r = await t.post(G, {
    label: `pg-${Math.floor(Math.random() * 1e9)}`,
    region: 'us-east',
    placement_group_type: 'anti_affinity:local',
    placement_group_policy: 'flexible',
    ...body,
  });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const hostOf = async (t: TestApp, id: number) =>
  (
    await t.ctx.db.db
      .selectFrom('instances')
      .select('host_uuid')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).host_uuid;

async function actions(t: TestApp, groupId: number): Promise<string[]> {
  const r = await t.get('/v4/account/events', {
    filter: {
      'entity.type': 'placement_group',
      'entity.id': groupId,
      '+order_by': 'id',
      '+order': 'asc',
    },
  });
  return r.body.data.map((e: { action: string }) => e.action);
}

/** An instance created into a group (`placement_group` of the create), settled. */
async function memberAtCreate(t: TestApp, groupId: number, region = 'us-east') {
  const r = await t.post('/v4/compute/instances', {
    region,
    type: 'g6-nanode-1',
    placement_group: { id: groupId },
  });
  expect(r.status, r.text).toBe(200);
  await t.settle();
  return r.body as { id: number; label: string; placement_group: unknown };
}

describe('placement groups', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('postPlacementGroup: answers the recorded shape and writes placement_group_create', async () => {
    const r = await t.post(G, {
      label: 'PG_Miami_failover',
      region: 'us-east',
      placement_group_type: 'anti_affinity:local',
      placement_group_policy: 'flexible',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(Number),
      label: 'PG_Miami_failover',
      region: 'us-east',
      placement_group_type: 'anti_affinity:local',
      placement_group_policy: 'flexible',
      is_compliant: true,
      members: [],
      migrations: null,
    });
    expect(await actions(t, r.body.id)).toEqual(['placement_group_create']);
    expect((await t.get(`${G}/${r.body.id}`)).body).toEqual(r.body);
    const listed = await t.get(G, { filter: { id: r.body.id } });
    expect(listed.body).toEqual({ data: [r.body], page: 1, pages: 1, results: 1 });
  });

  it('postPlacementGroup: checks every field together, and labels are unique in the account', async () => {
    const r = await t.post(G, {
      label: '-bad label-',
      region: 'us-central',
      placement_group_type: 'near',
      placement_group_policy: 'sometimes',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'label',
      'placement_group_policy',
      'placement_group_type',
      'region',
    ]);
    const g = await group(t);
    const again = await t.post(G, {
      label: g.label,
      region: 'us-east',
      placement_group_type: 'affinity:local',
      placement_group_policy: 'strict',
    });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].field).toBe('label');
  });

  it('putPlacementGroup: renames the group (placement_group_update); deletePlacementGroup removes an empty one', async () => {
    const g = await group(t);
    const r = await t.put(`${G}/${g.id}`, { label: `${g.label}-updated` });
    expect(r.status, r.text).toBe(200);
    expect(r.body.label).toBe(`${g.label}-updated`);
    expect((await t.del(`${G}/${g.id}`)).status).toBe(200);
    expect((await t.get(`${G}/${g.id}`)).status).toBe(404);
    expect(await actions(t, g.id)).toEqual([
      'placement_group_create',
      'placement_group_update',
      'placement_group_delete',
    ]);
  });

  it('postGroupAddCompute: assigns and unassigns; the instance shows its group; events name the instance', async () => {
    const g = await group(t);
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const r = await t.post(`${G}/${g.id}/assign`, { computes: [inst.id] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.members).toEqual([{ compute_id: inst.id, is_compliant: true }]);
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.placement_group).toEqual({
      id: g.id,
      label: g.label,
      placement_group_type: 'anti_affinity:local',
      placement_group_policy: 'flexible',
      migrating_to: null,
    });
    const listed = await t.get('/v4/compute/instances', { filter: { id: inst.id } });
    expect(listed.body.data[0].placement_group.id).toBe(g.id);
    const refused = await t.del(`${G}/${g.id}`);
    expect(refused.status).toBe(400);
    const u = await t.post(`${G}/${g.id}/unassign`, { computes: [inst.id] });
    expect(u.status, u.text).toBe(200);
    expect(u.body.members).toEqual([]);
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.placement_group).toBeNull();
    const ev = await t.get('/v4/account/events', { filter: { action: 'placement_group_assign' } });
    expect(ev.body.data[0].secondary_entity).toMatchObject({ type: 'compute', id: inst.id });
    expect(await actions(t, g.id)).toEqual([
      'placement_group_create',
      'placement_group_assign',
      'placement_group_unassign',
    ]);
  });

  it('postGroupAddCompute: refuses instances of another region, in a group already, or beyond the capacity', async () => {
    const g = await group(t);
    const other = await instance(t, 'g6-nanode-1', { empty: true, region: 'us-central' });
    const r = await t.post(`${G}/${g.id}/assign`, { computes: [other.id] });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatchObject({ field: 'computes' });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await instance(t, 'g6-nanode-1', { empty: true })).id);
    expect((await t.post(`${G}/${g.id}/assign`, { computes: ids.slice(0, 5) })).status).toBe(200);
    const again = await t.post(`${G}/${g.id}/assign`, { computes: [ids[0]] });
    expect(again.body.errors[0].reason).toMatch(/already assigned to this placement group/);
    const sixth = await instance(t, 'g6-nanode-1', { empty: true });
    const full = await t.post(`${G}/${g.id}/assign`, { computes: [sixth.id] });
    expect(full.status).toBe(400);
    expect(full.body.errors[0].reason).toMatch(/at most 5/);
    const second = await group(t);
    const taken = await t.post(`${G}/${second.id}/assign`, { computes: [ids[0]] });
    expect(taken.body.errors[0].reason).toMatch(/already assigned to a placement group/);
  });

  it('createCompute: placement_group places the instance — affinity on the group’s host, anti-affinity apart', async () => {
    const near = await group(t, {
      placement_group_type: 'affinity:local',
      placement_group_policy: 'strict',
    });
    const a = await memberAtCreate(t, near.id);
    const b = await memberAtCreate(t, near.id);
    expect(await hostOf(t, a.id)).toBe(await hostOf(t, b.id));
    expect((await t.get(`${G}/${near.id}`)).body).toMatchObject({
      is_compliant: true,
      members: [
        { compute_id: a.id, is_compliant: true },
        { compute_id: b.id, is_compliant: true },
      ],
    });
    const apart = await group(t, { placement_group_policy: 'strict' });
    const c = await memberAtCreate(t, apart.id);
    const d = await memberAtCreate(t, apart.id);
    expect(await hostOf(t, c.id)).not.toBe(await hostOf(t, d.id));
    const wrong = await t.post('/v4/compute/instances', {
      region: 'us-iad',
      type: 'g6-nanode-1',
      placement_group: { id: apart.id },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].field).toBe('placement_group.id');
  });

  it('postGroupAddCompute: a flexible affinity group takes an instance on another host, is non-compliant, then compliant once it is moved', async () => {
    const g = await group(t, { placement_group_type: 'affinity:local' });
    const first = await memberAtCreate(t, g.id);
    const other = await instance(t, 'g6-nanode-1', { empty: true });
    const r = await t.post(`${G}/${g.id}/assign`, { computes: [other.id] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.is_compliant).toBe(false);
    expect(r.body.members).toEqual([
      { compute_id: first.id, is_compliant: true },
      { compute_id: other.id, is_compliant: false },
    ]);
    const nc = await t.get(G, { filter: { is_compliant: false } });
    expect(nc.body.data.map((x: { id: number }) => x.id)).toEqual([g.id]);
    await t.settle();
    const after = await t.get(`${G}/${g.id}`);
    expect(after.body.is_compliant).toBe(true);
    expect(await hostOf(t, other.id)).toBe(await hostOf(t, first.id));
    expect(await actions(t, g.id)).toEqual([
      'placement_group_create',
      'placement_group_assign',
      'placement_group_assign',
      'placement_group_became_non_compliant',
      'placement_group_became_compliant',
    ]);
  });

  it('postGroupAddCompute: a strict group (or compliant_only) refuses what would break its model', async () => {
    const g = await group(t, {
      placement_group_type: 'affinity:local',
      placement_group_policy: 'strict',
    });
    await memberAtCreate(t, g.id);
    const other = await instance(t, 'g6-nanode-1', { empty: true });
    const r = await t.post(`${G}/${g.id}/assign`, { computes: [other.id] });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/non-compliant/);
    const flex = await group(t, { placement_group_type: 'affinity:local' });
    await memberAtCreate(t, flex.id);
    const only = await t.post(`${G}/${flex.id}/assign`, {
      computes: [other.id],
      compliant_only: true,
    });
    expect(only.status).toBe(400);
    expect((await t.get(`${G}/${flex.id}`)).body.members).toHaveLength(1);
  });

  it('postGroupAddCompute: instances sharing a host break an anti-affinity group (strict refuses, flexible accepts)', async () => {
    const near = await group(t, { placement_group_type: 'affinity:local' });
    const a = await memberAtCreate(t, near.id);
    const b = await memberAtCreate(t, near.id);
    await t.post(`${G}/${near.id}/unassign`, { computes: [a.id, b.id] });
    const strict = await group(t, { placement_group_policy: 'strict' });
    expect((await t.post(`${G}/${strict.id}/assign`, { computes: [a.id, b.id] })).status).toBe(400);
    const flex = await group(t);
    const r = await t.post(`${G}/${flex.id}/assign`, { computes: [a.id, b.id] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.members).toEqual([
      { compute_id: a.id, is_compliant: true },
      { compute_id: b.id, is_compliant: false },
    ]);
    await t.settle();
    expect((await t.get(`${G}/${flex.id}`)).body.is_compliant).toBe(true);
    expect(await hostOf(t, a.id)).not.toBe(await hostOf(t, b.id));
  });

  it('deleteCompute: a deleted instance leaves its group', async () => {
    const g = await group(t);
    const m = await memberAtCreate(t, g.id);
    expect((await t.del(`/v4/compute/instances/${m.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get(`${G}/${g.id}`)).body.members).toEqual([]);
    expect((await t.del(`${G}/${g.id}`)).status).toBe(200);
  });

  it('migrateCompute: placement_group moves the instance into another group; migrations and migrating_to show the move', async () => {
    const from = await group(t);
    const to = await group(t, { placement_group_type: 'affinity:local' });
    const m = await memberAtCreate(t, from.id);
    const r = await t.post(`/v4/compute/instances/${m.id}/migrate`, {
      placement_group: { id: to.id },
    });
    expect(r.status, r.text).toBe(200);
    expect((await t.get(`${G}/${to.id}`)).body.migrations).toEqual({
      inbound: [{ compute_id: m.id }],
      outbound: [],
    });
    expect((await t.get(`${G}/${from.id}`)).body.migrations).toEqual({
      inbound: [],
      outbound: [{ compute_id: m.id }],
    });
    expect((await t.get(`/v4/compute/instances/${m.id}`)).body.placement_group.migrating_to).toBe(
      to.id,
    );
    await t.settle();
    expect((await t.get(`${G}/${from.id}`)).body).toMatchObject({ members: [], migrations: null });
    expect((await t.get(`${G}/${to.id}`)).body).toMatchObject({
      members: [{ compute_id: m.id, is_compliant: true }],
      migrations: null,
    });
    const wrong = await t.post(`/v4/compute/instances/${m.id}/migrate`, {
      region: 'us-central',
      placement_group: { id: from.id },
    });
    expect(wrong.status).toBe(400);
  });

  it("migrateCompute: region equal to the instance's own and placement_group is a host migration into the group", async () => {
    const from = await group(t);
    const to = await group(t);
    const m = await memberAtCreate(t, from.id);
    const host = await hostOf(t, m.id);
    const r = await t.post(`/v4/compute/instances/${m.id}/migrate`, {
      region: 'us-east',
      placement_group: { id: to.id },
      type: 'cold',
    });
    expect(r.status, r.text).toBe(200);
    expect((await t.get(`${G}/${to.id}`)).body.migrations).toEqual({
      inbound: [{ compute_id: m.id }],
      outbound: [],
    });
    expect((await t.get(`${G}/${from.id}`)).body.migrations).toEqual({
      inbound: [],
      outbound: [{ compute_id: m.id }],
    });
    await t.settle();
    const after = (await t.get(`/v4/compute/instances/${m.id}`)).body;
    expect(after.region).toBe('us-east');
    expect(after.placement_group).toMatchObject({ id: to.id, migrating_to: null });
    expect(await hostOf(t, m.id)).not.toBe(host);
    expect((await t.get(`${G}/${to.id}`)).body).toMatchObject({
      members: [{ compute_id: m.id, is_compliant: true }],
      migrations: null,
    });
    // A group of another region is still refused.
    const west = await group(t, { region: 'eu-central' });
    const wrong = await t.post(`/v4/compute/instances/${m.id}/migrate`, {
      region: 'us-east',
      placement_group: { id: west.id },
    });
    expect(wrong.status).toBe(400);
  });

  it('cloneCompute: a new target joins the placement_group given', async () => {
    const src = await instance(t);
    const g = await group(t);
    const r = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: 'us-east',
      type: 'g6-nanode-1',
      placement_group: { id: g.id },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.placement_group?.id).toBe(g.id);
    await t.settle();
    expect((await t.get(`${G}/${g.id}`)).body.members).toEqual([
      { compute_id: r.body.id, is_compliant: true },
    ]);
  });

  it('postPlacementGroup: a restricted user needs add_computes, and read_write on the instances it assigns', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const ro = await createTestUser(t, {
      global: { add_computes: true },
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    const none = await createTestUser(t);
    const body = {
      label: 'pg-restricted',
      region: 'us-east',
      placement_group_type: 'anti_affinity:local',
      placement_group_policy: 'flexible',
    };
    expect((await t.post(G, body, { token: none.token })).status).toBe(403);
    const g = await t.post(G, body, { token: ro.token });
    expect(g.status, g.text).toBe(200);
    const a = await t.post(
      `${G}/${g.body.id}/assign`,
      { computes: [inst.id] },
      { token: ro.token },
    );
    expect(a.status).toBe(403);
  });

  it('getPlacementGroups: a restricted user without add_computes sees only the groups of the instances it has a grant on', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const seen = await group(t, { label: 'pg-seen' });
    const hidden = await group(t, { label: 'pg-hidden' });
    expect((await t.post(`${G}/${seen.id}/assign`, { computes: [inst.id] })).status).toBe(200);
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    const list = await t.get(G, { token: u.token });
    expect(list.body.data.map((g: { id: number }) => g.id)).toEqual([seen.id]);
    expect((await t.get(`${G}/${seen.id}`, { token: u.token })).status).toBe(200);
    expect((await t.get(`${G}/${hidden.id}`, { token: u.token })).status).toBe(404);
    const none = await createTestUser(t);
    expect((await t.get(G, { token: none.token })).body.results).toBe(0);
    const creator = await createTestUser(t, { global: { add_computes: true } });
    expect((await t.get(G, { token: creator.token })).body.results).toBe(2);
  });

  it('createCompute, cloneCompute, migrateCompute: placement_group null means no group', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      placement_group: null,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.placement_group).toBeNull();
    await t.settle();
    const c = await t.post(`/v4/compute/instances/${r.body.id}/clone`, {
      region: 'us-east',
      type: 'g6-nanode-1',
      placement_group: null,
    });
    expect(c.status, c.text).toBe(200);
    await t.settle();
    const m = await t.post(`/v4/compute/instances/${r.body.id}/migrate`, { placement_group: null });
    expect(m.status, m.text).toBe(200);
  });
});
