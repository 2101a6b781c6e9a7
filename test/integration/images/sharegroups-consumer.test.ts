import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage, STRONG } from './fixtures.js';

/** The consumer side of image share groups: a member account deploys the shared images. */
describe('image share groups, consumer side', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ timing: 'instant' });
  });
  afterEach(async () => {
    await t.close();
  });

  /** A producer's group with one image, and a consumer account holding a token of it. */
  const shared = async (join = true) => {
    const img = await capturedImage(t, { label: 'golden' });
    const g = (
      await t.post('/v4/images/sharegroups', { label: 'golden', images: [{ id: img.id }] })
    ).body;
    const entry = (await t.get(`/v4/images/sharegroups/${g.id}/images`)).body.data[0] as {
      id: string;
    };
    const consumer = await secondAccount(t, 'consumer');
    const as = { token: consumer.token };
    const tok = await t.post(
      '/v4/images/sharegroups/tokens',
      { label: 'mine', valid_for_sharegroup_uuid: g.uuid },
      as,
    );
    expect(tok.status).toBe(200);
    if (join) {
      const m = await t.post(`/v4/images/sharegroups/${g.id}/members`, {
        token: tok.body.token,
        label: 'consumer',
      });
      expect(m.status).toBe(200);
    }
    return { img, group: g, entry, as, tokenUuid: tok.body.token_uuid as string };
  };
  const deploy = (image: string, as: { token: string }) =>
    t.post(
      '/v4/compute/instances',
      { region: 'us-east', type: 'g6-nanode-1', image, root_pass: STRONG },
      as,
    );

  it('createComputeInstance: a member deploys a shared/<n> image; the instance shows the shared id', async () => {
    const { entry, as, tokenUuid } = await shared();
    const listed = await t.get(`/v4/images/sharegroups/tokens/${tokenUuid}/sharegroup/images`, as);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([entry.id]);
    const r = await deploy(entry.id, as);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.image).toBe(entry.id);
    await t.settle();
    const inst = await t.get(`/v4/compute/instances/${r.body.id}`, as);
    expect(inst.body.status).toBe('running');
    const disks = (await t.get(`/v4/compute/instances/${r.body.id}/disks`, as)).body.data;
    expect(disks.map((d: { filesystem: string }) => d.filesystem).sort()).toEqual(['ext4', 'swap']);
    const rebuilt = await t.post(
      `/v4/compute/instances/${r.body.id}/rebuild`,
      { image: entry.id, root_pass: STRONG },
      as,
    );
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(200);
    expect(rebuilt.body.image).toBe(entry.id);
  });

  it('createComputeInstance: a shared/<n> image is not valid for a pending token, another account, or once the member is removed', async () => {
    const pending = await shared(false);
    const refused = await deploy(pending.entry.id, pending.as);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ field: 'image', reason: 'image is not valid' }]);
    // The producer deploys its own private image by its private id, not the shared entry.
    expect((await deploy(pending.entry.id, { token: t.admin.token })).status).toBe(400);

    const g = pending.group;
    const tokens = (await t.get(`/v4/images/sharegroups/tokens`, pending.as)).body.data;
    const again = await t.post(
      '/v4/images/sharegroups/tokens',
      { label: 'again', valid_for_sharegroup_uuid: g.uuid },
      pending.as,
    );
    expect(tokens.length).toBe(1);
    await t.post(`/v4/images/sharegroups/${g.id}/members`, { token: again.body.token, label: 'm' });
    expect((await deploy(pending.entry.id, pending.as)).status).toBe(200);
    const removed = await t.del(`/v4/images/sharegroups/${g.id}/members/${again.body.token_uuid}`);
    expect(removed.status).toBe(200);
    const after = await deploy(pending.entry.id, pending.as);
    expect(after.status).toBe(400);
    expect(after.body.errors[0].field).toBe('image');
  });
});
