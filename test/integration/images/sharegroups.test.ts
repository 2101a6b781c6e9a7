import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage } from './fixtures.js';

describe('image share groups', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ timing: 'instant' });
  });
  afterEach(async () => {
    await t.close();
  });

  const image = async (id: string) => (await t.get(`/v4/images/${id}`)).body;

  it('postSharegroup: creates a group (with images), viewed, listed, updated and deleted as the recorded wire shows', async () => {
    const img = await capturedImage(t);
    const made = await t.post('/v4beta/images/sharegroups', {
      label: 'golden-images',
      description: 'Test create',
      images: [{ id: img.id }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toEqual({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      label: 'golden-images',
      description: 'Test create',
      is_suspended: false,
      images_count: 1,
      members_count: 0,
      created: expect.any(String),
      updated: null,
      expiry: null,
    });
    const id = made.body.id;
    expect((await t.get(`/v4beta/images/sharegroups/${id}`)).body).toEqual(made.body);
    const list = await t.get('/v4beta/images/sharegroups');
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1, data: [made.body] });
    // The shared image says it is shared, and with how many groups.
    expect(await image(img.id)).toMatchObject({
      is_shared: true,
      image_sharing: {
        shared_with: { sharegroup_count: 1, sharegroup_list_url: `/images/${img.id}/sharegroups` },
        shared_by: null,
      },
    });
    const ofImage = await t.get(`/v4beta/images/${img.id}/sharegroups`);
    expect(ofImage.body.data.map((g: { id: number }) => g.id)).toEqual([id]);
    const encoded = await t.get(`/v4beta/images/${encodeURIComponent(img.id)}/sharegroups`);
    expect(encoded.body.results).toBe(1);

    const up = await t.put(`/v4beta/images/sharegroups/${id}`, {
      label: 'Updated label',
      description: null,
    });
    expect(up.body).toMatchObject({ label: 'Updated label', description: '' });
    expect(up.body.updated).toEqual(expect.any(String));
    expect((await t.del(`/v4beta/images/sharegroups/${id}`)).status).toBe(200);
    expect((await t.get(`/v4beta/images/sharegroups/${id}`)).status).toBe(404);
    expect((await image(img.id)).is_shared).toBe(false);
  });

  it('postSharegroupImages: shares private images as shared/<n> entries, updated and removed; the refusals name the image', async () => {
    const img = await capturedImage(t, { label: 'base' });
    const g = (await t.post('/v4/images/sharegroups', { label: 'g' })).body;
    expect(g).toMatchObject({ images_count: 0, description: '' });
    const add = await t.post(`/v4/images/sharegroups/${g.id}/images`, {
      images: [{ id: img.id }],
    });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    expect(add.body).toMatchObject({ page: 1, results: 1 });
    const [entry] = add.body.data;
    expect(entry).toMatchObject({
      id: expect.stringMatching(/^shared\/\d+$/),
      label: 'base',
      description: '',
      type: 'shared',
      is_public: false,
      is_shared: null,
      status: 'available',
      size: img.size,
      tags: [],
      image_sharing: {
        shared_with: null,
        shared_by: {
          sharegroup_id: g.id,
          sharegroup_uuid: g.uuid,
          sharegroup_label: 'g',
          source_image_id: img.id,
        },
      },
    });
    const listed = await t.get(`/v4/images/sharegroups/${g.id}/images`);
    expect(listed.body.data).toEqual([entry]);
    expect((await t.get(`/v4/images/sharegroups/${g.id}`)).body.images_count).toBe(1);

    const again = await t.post(`/v4/images/sharegroups/${g.id}/images`, {
      images: [{ id: img.id }],
    });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].field).toBe('images[0].id');
    const unknown = await t.post(`/v4/images/sharegroups/${g.id}/images`, {
      images: [{ id: 'compute/debian12' }],
    });
    expect(unknown.body.errors).toEqual([{ field: 'images[0].id', reason: 'Image not found.' }]);

    // The entry's own label and description (the Go SDK's update, its id raw or encoded).
    const put = await t.put(`/v4/images/sharegroups/${g.id}/images/${entry.id}`, {
      label: 'Updated label',
      description: 'Updated description',
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ label: 'Updated label', description: 'Updated description' });
    expect((await image(img.id)).label).toBe('base');
    const del = await t.del(
      `/v4/images/sharegroups/${g.id}/images/${encodeURIComponent(entry.id)}`,
    );
    expect(del.status).toBe(200);
    expect((await t.get(`/v4/images/sharegroups/${g.id}/images`)).body.data).toEqual([]);
    expect(await image(img.id)).toMatchObject({
      is_shared: false,
      image_sharing: { shared_with: { sharegroup_count: 0 }, shared_by: null },
    });
    expect((await t.del(`/v4/images/sharegroups/${g.id}/images/${entry.id}`)).status).toBe(404);
  });

  it('postSharegroupTokens: a consumer draws a token, the producer adds it as a member, the consumer sees the group and its images until removed', async () => {
    const img = await capturedImage(t);
    const g = (
      await t.post('/v4/images/sharegroups', { label: 'shared', images: [{ id: img.id }] })
    ).body;
    const other = await secondAccount(t, 'consumer');
    const as = { token: other.token };
    // Not for one's own group (the recorded words).
    const own = await t.post('/v4/images/sharegroups/tokens', {
      valid_for_sharegroup_uuid: g.uuid,
    });
    expect(own.status).toBe(400);
    expect(own.body.errors).toEqual([
      {
        field: 'valid_for_sharegroup_uuid',
        reason: 'You may not create a token for your own sharegroup',
      },
    ]);
    const tok = await t.post(
      '/v4/images/sharegroups/tokens',
      { label: 'My token', valid_for_sharegroup_uuid: g.uuid },
      as,
    );
    expect(tok.status, JSON.stringify(tok.body)).toBe(200);
    expect(tok.body).toMatchObject({
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      status: 'pending',
      label: 'My token',
      valid_for_sharegroup_uuid: g.uuid,
      sharegroup_uuid: null,
      sharegroup_label: null,
      expiry: null,
    });
    const uuid = tok.body.token_uuid;
    const view = await t.get(`/v4/images/sharegroups/tokens/${uuid}`, as);
    expect(view.body).not.toHaveProperty('token');
    expect((await t.get('/v4/images/sharegroups/tokens', as)).body.results).toBe(1);
    expect((await t.get(`/v4/images/sharegroups/tokens/${uuid}`)).status).toBe(404);
    expect((await t.get(`/v4/images/sharegroups/tokens/${uuid}/sharegroup`, as)).status).toBe(404);

    const bad = await t.post(`/v4/images/sharegroups/${g.id}/members`, {
      token: 'not_existing_token',
      label: 'New Member',
    });
    expect(bad.body.errors).toEqual([{ field: 'token', reason: 'Invalid token format' }]);
    const member = await t.post(`/v4/images/sharegroups/${g.id}/members`, {
      token: tok.body.token,
      label: 'New Member',
    });
    expect(member.status, JSON.stringify(member.body)).toBe(200);
    expect(member.body).toEqual({
      token_uuid: uuid,
      status: 'active',
      label: 'New Member',
      created: expect.any(String),
      updated: null,
      expiry: null,
    });
    const reuse = await t.post(`/v4/images/sharegroups/${g.id}/members`, {
      token: tok.body.token,
      label: 'Twice',
    });
    expect(reuse.status).toBe(400);
    expect((await t.get(`/v4/images/sharegroups/${g.id}`)).body.members_count).toBe(1);
    expect((await t.get(`/v4/images/sharegroups/${g.id}/members`)).body.data).toEqual([
      member.body,
    ]);
    const renamed = await t.put(`/v4/images/sharegroups/${g.id}/members/${uuid}`, {
      label: 'Renamed',
    });
    expect(renamed.body).toMatchObject({ label: 'Renamed', updated: expect.any(String) });

    // The consumer's view: the group, and its images without the producer's image id.
    expect((await t.get(`/v4/images/sharegroups/tokens/${uuid}`, as)).body).toMatchObject({
      status: 'active',
      sharegroup_uuid: g.uuid,
      sharegroup_label: 'shared',
    });
    const seen = await t.get(`/v4/images/sharegroups/tokens/${uuid}/sharegroup`, as);
    expect(seen.body).toEqual({
      id: g.id,
      uuid: g.uuid,
      label: 'shared',
      description: '',
      is_suspended: false,
      created: g.created,
      updated: null,
    });
    const imgs = await t.get(`/v4/images/sharegroups/tokens/${uuid}/sharegroup/images`, as);
    expect(imgs.body.data).toHaveLength(1);
    expect(imgs.body.data[0].image_sharing.shared_by).toMatchObject({
      sharegroup_id: g.id,
      source_image_id: null,
    });
    // The producer's groups are not the consumer's.
    expect((await t.get(`/v4/images/sharegroups/${g.id}`, as)).status).toBe(404);

    expect((await t.del(`/v4/images/sharegroups/${g.id}/members/${uuid}`)).status).toBe(200);
    expect((await t.get(`/v4/images/sharegroups/tokens/${uuid}`, as)).body.status).toBe('revoked');
    expect((await t.get(`/v4/images/sharegroups/tokens/${uuid}/sharegroup`, as)).status).toBe(404);
    expect((await t.get(`/v4/images/sharegroups/${g.id}/members/${uuid}`)).status).toBe(404);
    expect((await t.del(`/v4/images/sharegroups/tokens/${uuid}`, as)).status).toBe(200);
    expect((await t.get('/v4/images/sharegroups/tokens', as)).body.results).toBe(0);

    // Deleting the group ends the tokens drawn for it and its memberships.
    const again = await t.post(
      '/v4/images/sharegroups/tokens',
      { valid_for_sharegroup_uuid: g.uuid },
      as,
    );
    await t.post(`/v4/images/sharegroups/${g.id}/members`, { token: again.body.token, label: 'm' });
    expect((await t.del(`/v4/images/sharegroups/${g.id}`)).status).toBe(200);
    expect((await t.get('/v4/images/sharegroups/tokens', as)).body.results).toBe(0);
    const gone = await t.get(`/v4/images/sharegroups/tokens/${again.body.token_uuid}`, as);
    expect(gone.status).toBe(404);
  });

  it('getSharegroupMembers: unknown members and tokens are 404; a restricted user needs add_images to see or change groups', async () => {
    const g = (await t.post('/v4/images/sharegroups', { label: 'g' })).body;
    expect((await t.get(`/v4/images/sharegroups/${g.id}/members`)).body.data).toEqual([]);
    for (const [m, u] of [
      ['GET', `/v4/images/sharegroups/${g.id}/members/not_existing_token`],
      ['PUT', `/v4/images/sharegroups/${g.id}/members/not_existing_token`],
      ['DELETE', `/v4/images/sharegroups/${g.id}/members/not_existing_token`],
      ['GET', '/v4/images/sharegroups/tokens/36b0-4d52_invalid'],
      ['GET', '/v4/images/sharegroups/999999'],
    ] as const) {
      const r = await t.request(m, u, m === 'PUT' ? { body: { label: 'x' } } : {});
      expect(r.status, `${m} ${u}`).toBe(404);
    }
    const ro = await createTestUser(t);
    expect((await t.get('/v4/images/sharegroups', { token: ro.token })).status).toBe(403);
    expect((await t.get('/v4/images/sharegroups/tokens', { token: ro.token })).status).toBe(403);
    const refused = await t.post('/v4/images/sharegroups', { label: 'x' }, { token: ro.token });
    expect(refused.status).toBe(403);
    const del = await t.del(`/v4/images/sharegroups/${g.id}`, { token: ro.token });
    expect(del.status).toBe(403);
    const adder = await createTestUser(t, { global: { add_images: true } });
    const ok = await t.post('/v4/images/sharegroups', { label: 'y' }, { token: adder.token });
    expect(ok.status).toBe(200);
    expect((await t.get('/v4/images/sharegroups', { token: adder.token })).body.results).toBe(2);
    // Deleting a shared private image ends its shares.
    const img = await capturedImage(t);
    await t.post(`/v4/images/sharegroups/${g.id}/images`, { images: [{ id: img.id }] });
    expect((await t.del(`/v4/images/${img.id}`)).status).toBe(200);
    expect((await t.get(`/v4/images/sharegroups/${g.id}`)).body.images_count).toBe(0);
  });
});
