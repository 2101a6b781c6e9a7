import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage, STRONG } from '../images/fixtures.js';

const SCRIPT = `#!/bin/bash
# <UDF name="APP_USER" label="Application user" example="deploy" />
# <UDF name="SIZE" label="Size" oneOf="small,large" default="small" />
# <UDF name="ADDONS" label="Add-ons" manyOf="redis,nginx" default="redis" />
useradd "$APP_USER"`;

describe('deploying from a StackScript', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const script = async (body: Record<string, unknown> = {}, token?: string) => {
    const r = await t.post(
      '/v4/compute/stackscripts',
      { label: 'app-setup', images: ['compute/debian12'], script: SCRIPT, ...body },
      token ? { token } : {},
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.id as number;
  };
  const deploy = (body: Record<string, unknown>, token?: string) =>
    t.post(
      '/v4/compute/instances',
      {
        region: 'us-east',
        type: 'g6-nanode-1',
        image: 'compute/debian12',
        root_pass: STRONG,
        ...body,
      },
      token ? { token } : {},
    );
  const counts = async (id: number) => {
    const s = (await t.get(`/v4/compute/stackscripts/${id}`)).body;
    return [s.deployments_total, s.deployments_active];
  };
  const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
    r.body.errors.map((e) => e.field).sort();

  it('createComputeInstance: with a StackScript and its data runs to running and counts the deployment', async () => {
    const id = await script();
    const r = await deploy({
      stackscript_id: id,
      stackscript_data: { APP_USER: 'web', SIZE: 'large' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('running');
    expect(await counts(id)).toEqual([1, 1]);
    const row = await t.ctx.db.db
      .selectFrom('stackscript_deployments')
      .select('data')
      .where('instance_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.data)).toEqual({ APP_USER: 'web', SIZE: 'large', ADDONS: 'redis' });
    // Deleting the instance ends the deployment; the total stays.
    expect((await t.del(`/v4/compute/instances/${r.body.id}`)).status).toBe(200);
    await t.settle();
    expect(await counts(id)).toEqual([1, 0]);
  });

  it('createComputeInstance: stackscript_data is checked against the user-defined fields', async () => {
    const id = await script();
    const missing = await deploy({ stackscript_id: id });
    expect(missing.body.errors).toEqual([
      { field: 'stackscript_data.APP_USER', reason: 'Application user is required' },
    ]);
    const wrong = await deploy({
      stackscript_id: id,
      stackscript_data: { APP_USER: 'web', SIZE: 'huge', ADDONS: 'redis,apache' },
    });
    expect(fieldsOf(wrong)).toEqual(['stackscript_data.ADDONS', 'stackscript_data.SIZE']);
    const big = await deploy({
      stackscript_id: id,
      stackscript_data: { APP_USER: 'x'.repeat(65535) },
    });
    expect(big.body.errors).toContainEqual({
      field: 'stackscript_data',
      reason: 'stackscript_data must be at most 65535 characters',
    });
    expect(await counts(id)).toEqual([0, 0]);
  });

  it('createComputeInstance: the StackScript needs a compatible public image', async () => {
    const id = await script();
    const other = await deploy({
      stackscript_id: id,
      image: 'compute/ubuntu22.04',
      stackscript_data: { APP_USER: 'web' },
    });
    expect(other.body.errors).toEqual([
      { field: 'image', reason: 'The StackScript does not support the image compute/ubuntu22.04' },
    ]);
    const none = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      stackscript_id: id,
      stackscript_data: { APP_USER: 'web' },
    });
    expect(none.body.errors).toContainEqual({
      field: 'image',
      reason: 'An image is required to deploy a StackScript',
    });
    const img = await capturedImage(t);
    const anyId = await script({ images: ['any/all'] });
    const priv = await deploy({
      stackscript_id: anyId,
      image: img.id,
      stackscript_data: { APP_USER: 'web' },
    });
    expect(priv.body.errors).toEqual([
      { field: 'image', reason: 'A StackScript cannot be deployed with a private image' },
    ]);
    const any = await deploy({
      stackscript_id: anyId,
      image: 'compute/ubuntu22.04',
      stackscript_data: { APP_USER: 'web' },
    });
    expect(any.status).toBe(200);
  });

  it('createComputeInstance: only StackScripts the caller can see deploy', async () => {
    const other = await secondAccount(t);
    const theirs = await script({}, other.token);
    const theirsPublic = await script({ is_public: true }, other.token);
    const data = { APP_USER: 'web' };
    const hidden = await deploy({ stackscript_id: theirs, stackscript_data: data });
    expect(hidden.body.errors).toEqual([
      { field: 'stackscript_id', reason: 'StackScript not found' },
    ]);
    expect((await deploy({ stackscript_id: 424242 })).body.errors[0].field).toBe('stackscript_id');
    const pub = await deploy({ stackscript_id: theirsPublic, stackscript_data: data });
    expect(pub.status).toBe(200);
    expect(await counts(theirsPublic)).toEqual([1, 1]);
    // A restricted user needs a grant on a private script of its own account.
    const own = await script();
    const u = await createTestUser(t, { global: { add_computes: true } });
    const denied = await deploy({ stackscript_id: own, stackscript_data: data }, u.token);
    expect(denied.body.errors[0].field).toBe('stackscript_id');
    const g = await createTestUser(t, {
      global: { add_computes: true },
      grants: [{ type: 'stackscript', id: own, permissions: 'read_only' }],
    });
    expect((await deploy({ stackscript_id: own, stackscript_data: data }, g.token)).status).toBe(
      200,
    );
  });

  it('addComputeDisk: a disk deployed with a StackScript counts a deployment of the instance', async () => {
    const id = await script();
    const inst = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    const url = `/v4/compute/instances/${inst.body.id}/disks`;
    const noData = await t.post(url, {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      stackscript_id: id,
    });
    expect(noData.body.errors[0].field).toBe('stackscript_data.APP_USER');
    const ok = await t.post(url, {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      stackscript_id: id,
      stackscript_data: { APP_USER: 'web' },
    });
    expect(ok.status).toBe(200);
    await t.settle();
    expect(await counts(id)).toEqual([1, 1]);
    // A second disk from the same script: one more deployment, still one active instance.
    await t.post(url, {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      stackscript_id: id,
      stackscript_data: { APP_USER: 'db' },
    });
    expect(await counts(id)).toEqual([2, 1]);
  });

  it('deleteStackScript: a private script with active deployments can be deleted; its instances keep running', async () => {
    const id = await script();
    const r = await deploy({ stackscript_id: id, stackscript_data: { APP_USER: 'web' } });
    await t.settle();
    expect((await t.del(`/v4/compute/stackscripts/${id}`)).status).toBe(200);
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('running');
    expect((await t.del(`/v4/compute/instances/${r.body.id}`)).status).toBe(200);
    await t.settle();
  });
});
