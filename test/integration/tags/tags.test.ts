import { Type } from '@sinclair/typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EntityType } from '../../../src/entities/entities.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance, volume } from '../volumes/fixtures.js';
import { nodebalancer } from '../nodebalancers/fixtures.js';
import { domain } from '../domains/fixtures.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field).sort();

async function tagEvents(t: TestApp) {
  const r = await t.get('/v4/account/events', {
    filter: { '+order_by': 'id', '+order': 'asc' },
  });
  return (r.body.data as { action: string; entity: { type: string; label: string; url: string } }[])
    .filter((e) => e.action.startsWith('tag_'))
    .map((e) => [e.action, e.entity.type, e.entity.label, e.entity.url]);
}

/** An entity of each taggable type, made through the API (the walk fails for a type without one). */
const MAKERS: Record<string, (t: TestApp) => Promise<number | { key: string; url: string }>> = {
  compute: async (t) => (await instance(t)).id,
  volume: async (t) => (await volume(t)).id,
  nodebalancer: async (t) => (await nodebalancer(t)).id,
  // Named by its address in POST /tags, viewed at its address.
  reserved_ipv4_address: async (t) => {
    const r = await t.post('/v4beta/networking/reserved/ips', { region: 'us-east' });
    expect(r.status, r.text).toBe(200);
    return { key: r.body.address, url: `/v4beta/networking/reserved/ips/${r.body.address}` };
  },
  domain: async (t) => (await domain(t, 'tagged.example')).id,
};

describe('tags', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createTag: creates a tag that getTags lists, with a tag_create event', async () => {
    const r = await t.post('/v4/tags', { label: 'production' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ label: 'production' });
    await t.post('/v4/tags', { label: 'alpha' });
    const list = await t.get('/v4/tags');
    expect(list.body).toEqual({
      data: [{ label: 'alpha' }, { label: 'production' }],
      page: 1,
      pages: 1,
      results: 2,
    });
    expect(await tagEvents(t)).toEqual([
      ['tag_create', 'tag', 'production', '/v4/tags/production'],
      ['tag_create', 'tag', 'alpha', '/v4/tags/alpha'],
    ]);
  });

  it('createTag: a tag the account has already (made again, or by tagging) writes no second event', async () => {
    await t.post('/v4/volumes', {
      label: 'vol-tagged',
      region: 'us-east',
      size: 20,
      tags: ['made-by-tagging'],
    });
    expect((await t.post('/v4/tags', { label: 'made-by-tagging' })).status).toBe(200);
    expect((await t.post('/v4/tags', { label: 'twice' })).status).toBe(200);
    expect((await t.post('/v4/tags', { label: 'twice' })).status).toBe(200);
    expect(await tagEvents(t)).toEqual([['tag_create', 'tag', 'twice', '/v4/tags/twice']]);
    const ev = await t.get('/v4/account/events', { filter: { action: 'tag_create' } });
    const row = await t.ctx.db.db
      .selectFrom('tags')
      .select('id')
      .where('label', '=', 'twice')
      .executeTakeFirstOrThrow();
    expect(ev.body.data[0].entity.id).toBe(row.id);
  });

  it('createTag: label is 3..50 characters and required', async () => {
    for (const bad of ['ab', 'x'.repeat(51)]) {
      const r = await t.post('/v4/tags', { label: bad });
      expect(r.status, bad).toBe(400);
      expect(fieldsOf(r)).toEqual(['label']);
    }
    expect(fieldsOf(await t.post('/v4/tags', {}))).toEqual(['label']);
    expect((await t.post('/v4/tags', { label: 'x'.repeat(50) })).status).toBe(200);
    expect((await t.post('/v4/tags', { label: 'abc' })).status).toBe(200);
  });

  it('createTag: tags instances and volumes in one call; their views show the tag', async () => {
    const inst = await instance(t);
    const vol = await volume(t, { tags: ['old'] });
    const r = await t.post('/v4/tags', { label: 'web', computes: [inst.id], volumes: [vol.id] });
    expect(r.status, r.text).toBe(200);
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.tags).toEqual(['web']);
    expect((await t.get(`/v4/volumes/${vol.id}`)).body.tags).toEqual(['old', 'web']);
  });

  it('createTag: an id that names nothing of the account fails the call, and nothing is created', async () => {
    const other = await t.post('/v4/tags', { label: 'web', computes: [999] });
    expect(other.status).toBe(400);
    expect(fieldsOf(other)).toEqual(['computes']);
    const vol = await volume(t);
    const mixed = await t.post('/v4/tags', { label: 'web', volumes: [vol.id, 12345] });
    expect(fieldsOf(mixed)).toEqual(['volumes']);
    // Domains do not exist in Stratus: any id names nothing.
    expect(fieldsOf(await t.post('/v4/tags', { label: 'web', domains: [1] }))).toEqual(['domains']);
    expect((await t.get('/v4/tags')).body.results).toBe(0);
    expect((await t.get(`/v4/volumes/${vol.id}`)).body.tags).toEqual([]);
    expect(await tagEvents(t)).toEqual([]);
  });

  it('createTag: entities of another account cannot be tagged', async () => {
    const owner2 = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'b@example.com',
      username: 'other-owner',
    });
    const vol = await volume(t, {}, owner2.token);
    const r = await t.post('/v4/tags', { label: 'theirs', volumes: [vol.id] });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['volumes']);
  });

  it('createTag: an existing tag is kept and tags the entities given, without a second event', async () => {
    const vol = await volume(t);
    await t.post('/v4/tags', { label: 'web' });
    const r = await t.post('/v4/tags', { label: 'web', volumes: [vol.id] });
    expect(r.status).toBe(200);
    expect((await t.get(`/v4/volumes/${vol.id}`)).body.tags).toEqual(['web']);
    expect((await t.get('/v4/tags')).body.results).toBe(1);
    expect((await tagEvents(t)).length).toBe(1);
  });

  it('getTags: tags set through an entity create or update are tags of the account', async () => {
    await volume(t, { tags: ['from-create'] });
    const inst = await instance(t);
    await t.put(`/v4/compute/instances/${inst.id}`, { tags: ['from-update'] });
    expect((await t.get('/v4/tags')).body.data).toEqual([
      { label: 'from-create' },
      { label: 'from-update' },
    ]);
    const objs = await t.get('/v4/tags/from-update');
    expect(
      objs.body.data.map((o: { type: string; data: { id: number } }) => [o.type, o.data.id]),
    ).toEqual([['compute', inst.id]]);
  });

  it('getTaggedObjects: every object with the tag as {type, data}, data as its own view answers it', async () => {
    const inst = await instance(t, 'g6-nanode-1');
    const v1 = await volume(t);
    const v2 = await volume(t);
    await t.post('/v4/tags', { label: 'web', computes: [inst.id], volumes: [v2.id, v1.id] });
    await t.post('/v4/tags', { label: 'other', volumes: [v1.id] });
    const r = await t.get('/v4/tags/web');
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(3);
    expect(r.body.data).toEqual([
      { type: 'compute', data: (await t.get(`/v4/compute/instances/${inst.id}`)).body },
      { type: 'volume', data: (await t.get(`/v4/volumes/${v1.id}`)).body },
      { type: 'volume', data: (await t.get(`/v4/volumes/${v2.id}`)).body },
    ]);
    const paged = await t.get('/v4/tags/web?page=2&page_size=25');
    expect(paged.body).toMatchObject({ data: [], page: 2, pages: 1, results: 3 });
  });

  it('getTaggedObjects: an unknown tag is 404; a tag without objects is an empty page', async () => {
    expect((await t.get('/v4/tags/nothing')).status).toBe(404);
    await t.post('/v4/tags', { label: 'lonely tag' });
    const r = await t.get(`/v4/tags/${encodeURIComponent('lonely tag')}`);
    expect(r.body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  });

  it('getTags, getTaggedObjects: tags have no filterable field (400 Cannot filter on)', async () => {
    await t.post('/v4/tags', { label: 'web' });
    for (const url of ['/v4/tags', '/v4/tags/web']) {
      const r = await t.get(url, { filter: { label: 'web' } });
      expect(r.status, url).toBe(400);
      expect(r.body.errors).toEqual([{ reason: 'Cannot filter on label', field: 'X-Filter' }]);
    }
  });

  it('deleteTag: removes the tag from every entity and deletes it, with a tag_delete event', async () => {
    const inst = await instance(t);
    const vol = await volume(t, { tags: ['web', 'keep'] });
    await t.post('/v4/tags', { label: 'web', computes: [inst.id] });
    const r = await t.del('/v4/tags/web');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(`/v4/volumes/${vol.id}`)).body.tags).toEqual(['keep']);
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.tags).toEqual([]);
    expect((await t.get('/v4/tags')).body.data).toEqual([{ label: 'keep' }]);
    expect((await t.get('/v4/tags/web')).status).toBe(404);
    expect((await t.del('/v4/tags/web')).status).toBe(404);
    expect((await tagEvents(t)).at(-1)).toEqual(['tag_delete', 'tag', 'web', '/v4/tags/web']);
  });

  it('every tag operation: unrestricted users only (403 for a restricted user, even with grants)', async () => {
    const vol = await volume(t);
    await t.post('/v4/tags', { label: 'web' });
    const { token } = await createTestUser(t, {
      global: { account_access: 'read_write' },
      grants: [{ type: 'volume', id: vol.id, permissions: 'read_write' }],
    });
    expect((await t.get('/v4/tags', { token })).status).toBe(403);
    expect((await t.post('/v4/tags', { label: 'mine', volumes: [vol.id] }, { token })).status).toBe(
      403,
    );
    expect((await t.get('/v4/tags/web', { token })).status).toBe(403);
    expect((await t.del('/v4/tags/web', { token })).status).toBe(403);
    expect((await t.get('/v4/tags')).body.data).toEqual([{ label: 'web' }]);
  });

  it('every declared taggable type: POST /tags names it by its field, GET /tags/{label} shows it as its view answers', async () => {
    const types = t.ctx.entities.taggable();
    expect(types.map((d) => d.type).sort()).toEqual(Object.keys(MAKERS).sort());
    const doc = await t.get('/v4/openapi.json', { token: null });
    const body = doc.body.paths['/tags'].post.requestBody.content['application/json'].schema;
    for (const d of types) {
      const make = MAKERS[d.type];
      if (!make) throw new Error(`no maker for taggable type ${d.type}`);
      expect(Object.keys(body.properties), d.type).toContain(d.taggable.field);
      const made = await make(t);
      await t.settle();
      const [key, url] = typeof made === 'number' ? [made, d.url(made)] : [made.key, made.url];
      const label = `walk-${d.type}`;
      expect((await t.post('/v4/tags', { label, [d.taggable.field]: [key] })).status).toBe(200);
      const view = await t.get(url);
      expect(view.status, d.type).toBe(200);
      expect(view.body.tags, d.type).toContain(label);
      expect((await t.get(`/v4/tags/${label}`)).body.data, d.type).toEqual([
        { type: d.type, data: view.body },
      ]);
      expect((await t.del(`/v4/tags/${label}`)).status).toBe(200);
      expect((await t.get(url)).body.tags, d.type).not.toContain(label);
    }
  });
});

describe('tags: the declarations drive the area', () => {
  const widget: EntityType = {
    type: 'widget',
    url: (id) => `/v4/widgets/${id}`,
    list: async () => [{ id: 7, label: 'w7' }],
    taggable: {
      field: 'widgets',
      schema: Type.Object({ id: Type.Integer(), label: Type.String(), size: Type.Integer() }),
      render: async (_view, _account, ids) =>
        new Map(ids.filter((id) => id === 7).map((id) => [id, { id, label: `w${id}`, size: 3 }])),
    },
  };

  it('createTag: a type declared taggable is tagged through its own field and listed with its shape', async () => {
    const t = await buildTestApp({ entities: [widget] });
    try {
      expect(fieldsOf(await t.post('/v4/tags', { label: 'www', widgets: [8] }))).toEqual([
        'widgets',
      ]);
      expect((await t.post('/v4/tags', { label: 'www', widgets: [7] })).status).toBe(200);
      expect((await t.get('/v4/tags/www')).body.data).toEqual([
        { type: 'widget', data: { id: 7, label: 'w7', size: 3 } },
      ]);
    } finally {
      await t.close();
    }
  });
});
