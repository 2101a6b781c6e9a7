import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx9Qd5bnJcLQ4Vz9kq3pJx9sKx1lmn0pQ2rS3tU4vW5 user@host';

/**
 * Deploying an image with `authorized_keys` (or `authorized_users`) and no `root_pass`. The
 * real service takes any one of the three (its recorded refusal: "Must provide valid root_pass,
 * authorized_keys, or authorized_users"); the spec makes `root_pass` required whenever an image
 * is deployed, and the spec wins (docs/fidelity.md).
 */
describe('deploy credentials', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const base = { region: 'us-east', type: 'g6-nanode-1', image: 'compute/debian12' };
  const fields = (r: { body: { errors?: { field?: string }[] } }) =>
    (r.body.errors ?? []).map((e) => e.field);
  const instances = async () => (await t.get('/v4/compute/instances')).body.results as number;

  it('createComputeInstance: authorized_keys or authorized_users without root_pass are refused (root_pass, as the spec has it); with root_pass they deploy', async () => {
    const keys = await t.post('/v4/compute/instances', { ...base, authorized_keys: [KEY] });
    expect(keys.status).toBe(400);
    expect(fields(keys)).toEqual(['root_pass']);
    await t.post('/v4/profile/sshkeys', { label: 'mine', ssh_key: KEY });
    const users = await t.post('/v4/compute/instances', {
      ...base,
      authorized_users: [t.admin.username],
    });
    expect(users.status).toBe(400);
    expect(fields(users)).toEqual(['root_pass']);
    expect(await instances()).toBe(0);
    const ok = await t.post('/v4/compute/instances', {
      ...base,
      root_pass: STRONG,
      authorized_keys: [KEY],
      authorized_users: [t.admin.username],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(await instances()).toBe(1);
  });

  it('rebuildComputeInstance: authorized_keys without root_pass are refused; with root_pass the rebuild runs', async () => {
    const created = await t.post('/v4/compute/instances', { ...base, root_pass: STRONG });
    await t.settle();
    const url = `/v4/compute/instances/${created.body.id}/rebuild`;
    const refused = await t.post(url, { image: 'compute/debian12', authorized_keys: [KEY] });
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['root_pass']);
    expect((await t.get(`/v4/compute/instances/${created.body.id}`)).body.status).toBe('running');
    const ok = await t.post(url, {
      image: 'compute/debian12',
      root_pass: STRONG,
      authorized_keys: [KEY],
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('addComputeDisk: from an image, authorized_keys without root_pass are refused; with root_pass the disk is made', async () => {
    const created = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
    });
    expect(created.status, created.text).toBe(200);
    await t.settle();
    const url = `/v4/compute/instances/${created.body.id}/disks`;
    const disk = { size: 2000, image: 'compute/debian12', label: 'root', authorized_keys: [KEY] };
    const refused = await t.post(url, disk);
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['root_pass']);
    expect((await t.get(url)).body.results).toBe(0);
    const ok = await t.post(url, { ...disk, root_pass: STRONG });
    expect(ok.status, ok.text).toBe(200);
  });
});
