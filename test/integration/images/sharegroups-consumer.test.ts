import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage, diskToCapture, STRONG } from './fixtures.js';

/** A private image of the account of `token`, captured and settled: its id. */
async function capturedImageAs(t: TestApp, token: string): Promise<string> {
  const { diskId } = await diskToCapture(t, 2000, token);
  const r = await t.post('/v4/images', { disk_id: diskId }, { token });
  expect(r.status, r.text).toBe(200);
  await t.settle();
  return r.body.id;
}

/** The consumer side of image share groups: a member account lists, views and deploys them. */
describe('image share groups, consumer side', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ timing: 'instant' });
  });
  afterEach(async () => {
    await t.close();
  });

  let accounts = 0;
  /** A producer's group with one image, and a consumer account holding a token of it. */
  const shared = async (join = true) => {
    const img = await capturedImage(t, { label: 'golden' });
    const g = (
      await t.post('/v4/images/sharegroups', { label: 'golden', images: [{ id: img.id }] })
    ).body;
    const entry = (await t.get(`/v4/images/sharegroups/${g.id}/images`)).body.data[0] as {
      id: string;
      label: string;
    };
    const consumer = await secondAccount(t, `consumer${++accounts}`);
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
    return {
      img,
      group: g,
      entry,
      as,
      consumer,
      tokenUuid: tok.body.token_uuid as string,
    };
  };
  const deploy = (image: string, as: { token: string }) =>
    t.post(
      '/v4/compute/instances',
      { region: 'us-east', type: 'g6-nanode-1', image, root_pass: STRONG },
      as,
    );

  /** The ids a token lists in `GET /images` (page 1, 500 a page), in order. */
  const listed = async (as: { token: string }, filter?: Record<string, unknown>) => {
    const r = await t.get('/v4/images?page_size=500', { ...as, ...(filter ? { filter } : {}) });
    expect(r.status, r.text).toBe(200);
    return r.body.data.map((i: { id: string }) => i.id) as string[];
  };

  it('getImages: a member lists the shared images after its private ones and before public ones; filterable by type', async () => {
    const { entry, as, group, img } = await shared();
    const ids = await listed(as);
    expect(ids.filter((id) => id.startsWith('shared/'))).toEqual([entry.id]);
    // Private images of the consumer first, then the shared ones, then public ones.
    const own = await capturedImageAs(t, as.token);
    const order = await listed(as);
    expect(order.indexOf(own)).toBe(0);
    expect(order.indexOf(entry.id)).toBe(1);
    expect(
      order.slice(2).every((id) => !id.startsWith('private/') && !id.startsWith('shared/')),
    ).toBe(true);
    // Never the producer's private image itself.
    expect(order).not.toContain(img.id);
    const item = (await t.get('/v4/images?page_size=500', as)).body.data[1];
    expect(item).toMatchObject({
      id: entry.id,
      label: 'golden',
      type: 'shared',
      is_public: false,
      is_shared: null,
      created_by: null,
      tags: [],
      status: 'available',
      image_sharing: {
        shared_with: null,
        shared_by: {
          sharegroup_id: group.id,
          sharegroup_uuid: group.uuid,
          sharegroup_label: 'golden',
          source_image_id: null,
        },
      },
    });
    expect(item.regions).toEqual([{ region: 'us-east', status: 'available' }]);
    expect(await listed(as, { type: 'shared' })).toEqual([entry.id]);
    expect(await listed(as, { is_public: false })).toEqual([own, entry.id]);
    // The producer does not list its own group's entries.
    expect((await listed({ token: t.admin.token })).some((id) => id.startsWith('shared/'))).toBe(
      false,
    );
  });

  it('getImage: a member views shared/<n> (raw or encoded) as listed; others get 404', async () => {
    const { entry, as } = await shared();
    const one = await t.get(`/v4/images/${entry.id}`, as);
    expect(one.status, one.text).toBe(200);
    const inList = (await t.get('/v4/images', { ...as, filter: { type: 'shared' } })).body.data[0];
    expect(one.body).toEqual(inList);
    expect((await t.get(`/v4/images/${encodeURIComponent(entry.id)}`, as)).status).toBe(200);
    expect((await t.get(`/v4/images/${entry.id}`)).status).toBe(404);
    const stranger = await secondAccount(t, `stranger${++accounts}`);
    expect((await t.get(`/v4/images/${entry.id}`, { token: stranger.token })).status).toBe(404);
    expect(await listed({ token: stranger.token })).not.toContain(entry.id);
    expect((await t.get('/v4/images/shared/99999', as)).status).toBe(404);
  });

  it('getImages: a pending token sees no shared image; removing the member, the token, the entry, the image or the group takes it away', async () => {
    const pending = await shared(false);
    expect(await listed(pending.as)).not.toContain(pending.entry.id);
    expect((await t.get(`/v4/images/${pending.entry.id}`, pending.as)).status).toBe(404);

    const a = await shared();
    const members = (await t.get(`/v4/images/sharegroups/${a.group.id}/members`)).body.data;
    await t.del(`/v4/images/sharegroups/${a.group.id}/members/${members[0].token_uuid}`);
    expect(await listed(a.as)).not.toContain(a.entry.id);

    const e = await shared();
    expect(await listed(e.as)).toContain(e.entry.id);
    expect((await t.del(`/v4/images/sharegroups/tokens/${e.tokenUuid}`, e.as)).status).toBe(200);
    expect(await listed(e.as)).not.toContain(e.entry.id);

    const b = await shared();
    expect(await listed(b.as)).toContain(b.entry.id);
    await t.del(`/v4/images/sharegroups/${b.group.id}/images/${b.entry.id}`);
    expect(await listed(b.as)).not.toContain(b.entry.id);

    const c = await shared();
    expect((await t.del(`/v4/images/${c.img.id}`)).status).toBe(200);
    expect(await listed(c.as)).not.toContain(c.entry.id);
    expect((await t.get(`/v4/images/${c.entry.id}`, c.as)).status).toBe(404);

    const d = await shared();
    expect((await t.del(`/v4/images/sharegroups/${d.group.id}`)).status).toBe(200);
    expect(await listed(d.as)).not.toContain(d.entry.id);
    // Their listed records go with the entries.
    const left = await t.ctx.db.db
      .selectFrom('images')
      .select('id')
      .where('id', 'in', [c.entry.id, d.entry.id])
      .execute();
    expect(left).toEqual([]);
  });

  it('getImage: a shared image follows its entry, its group and its source image', async () => {
    const { entry, as, group, img } = await shared();
    await t.put(`/v4/images/sharegroups/${group.id}/images/${entry.id}`, {
      label: 'renamed',
      description: 'for members',
    });
    await t.put(`/v4/images/sharegroups/${group.id}`, { label: 'group-2' });
    const r = await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east', 'us-central'] });
    expect(r.status, r.text).toBe(200);
    const mid = (await t.get(`/v4/images/${entry.id}`, as)).body;
    expect(mid).toMatchObject({
      label: 'renamed',
      description: 'for members',
      image_sharing: { shared_by: { sharegroup_label: 'group-2' } },
    });
    expect(mid.regions).toEqual([
      { region: 'us-east', status: 'available' },
      { region: 'us-central', status: 'pending replication' },
    ]);
    await t.settle();
    const after = (await t.get(`/v4/images/${entry.id}`, as)).body;
    expect(after.regions.map((x: { status: string }) => x.status)).toEqual([
      'available',
      'available',
    ]);
    expect(after.total_size).toBe(after.size * 2);
    expect(await listed(as, { label: 'renamed' })).toEqual([entry.id]);
  });

  it('updateImage, deleteImage, replicateImage, postSharegroupImages: a member cannot change, delete, replicate or share again a shared image', async () => {
    const { entry, as } = await shared();
    const enc = encodeURIComponent(entry.id);
    for (const r of [
      await t.put(`/v4/images/${entry.id}`, { label: 'mine' }, as),
      await t.put(`/v4/images/${enc}`, { label: 'mine' }, as),
      await t.del(`/v4/images/${entry.id}`, as),
      await t.post(`/v4/images/${entry.id}/regions`, { regions: ['us-east'] }, as),
    ]) {
      expect(r.status, r.text).toBe(403);
    }
    const stranger = await secondAccount(t, `stranger${++accounts}`);
    expect(
      (await t.put(`/v4/images/${entry.id}`, { label: 'x' }, { token: stranger.token })).status,
    ).toBe(404);
    const again = await t.post(
      '/v4/images/sharegroups',
      { label: 'resell', images: [{ id: entry.id }] },
      as,
    );
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([{ field: 'images[0].id', reason: 'Image not found.' }]);
    expect((await t.get(`/v4/images/${entry.id}`, as)).body.label).toBe(entry.label);
  });

  it('getImages: a restricted user of a member account sees the shared images (no grant names them) but not ungranted private ones', async () => {
    const { entry, as, consumer } = await shared();
    const own = await capturedImageAs(t, as.token);
    const user = await createTestUser(t, { accountId: consumer.accountId });
    expect(await listed({ token: user.token })).toContain(entry.id);
    expect(await listed({ token: user.token })).not.toContain(own);
    expect((await t.get(`/v4/images/${entry.id}`, { token: user.token })).status).toBe(200);
    expect((await t.get(`/v4/images/${own}`, { token: user.token })).status).toBe(404);
    expect((await t.del(`/v4/images/${entry.id}`, { token: user.token })).status).toBe(403);
    // A token without images:read_only lists public images only.
    const scoped = await createTestUser(t, {
      accountId: consumer.accountId,
      restricted: false,
      scopes: 'computes:read_only',
    });
    expect(await listed({ token: scoped.token })).not.toContain(entry.id);
  });

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
